// The schedule core beside croner and cron-parser: next() on a parsed schedule, and
// parse+next per call, for a mixed corpus in UTC, the same in America/New_York, and
// sparse schedules. Same start instants for all three; warm-up, 7 rounds, median.
// Runnable alone: `npx tsx bench/core.ts`.
import { pathToFileURL } from "node:url";
import { Cron } from "croner";
import { CronExpressionParser } from "cron-parser";
import { cron } from "../src/core/mod.ts";

const MIXED = [
  "*/5 * * * *",
  "0 * * * *",
  "0 0 * * *",
  "30 2 * * *",
  "0 9 * * 1-5",
  "*/15 9-17 * * 1-5",
  "0 0 1 * *",
  "0 0 * * 0",
  "15 14 1 * *",
  "0 22 * * 1-5",
  "23 0-20/2 * * *",
  "5 4 * * sun",
  "0 0,12 1 */2 *",
  "0 8-18/2 * * MON-FRI",
  "0 3 * * 6",
  "45 23 * * 5",
  "0 12 15 * *",
  "*/10 * * * *",
  "0 6,18 * * *",
  "0 0 L * *",
];
const SPARSE = ["0 0 29 2 *", "0 0 29 2 1", "0 0 1 1 *"];
const CORPORA: Array<{ name: string; exprs: string[]; tz: string }> = [
  { name: "mixed UTC", exprs: MIXED, tz: "UTC" },
  { name: "mixed America/New_York", exprs: MIXED, tz: "America/New_York" },
  { name: "sparse UTC", exprs: SPARSE, tz: "UTC" },
];
const ROUNDS = 7;

// Fixed pseudo-random start instants in 2024-2030 (same for every library).
const STARTS: number[] = (() => {
  let x = 0x2545f491;
  return Array.from({ length: 128 }, () => {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    return Date.UTC(2024, 0, 1) + (x % 220_000_000) * 1000 + (x % 1000);
  });
})();

interface Lib {
  name: string;
  /** Returns a function computing next(after) on a schedule parsed once. */
  parsed(expr: string, tz: string): (after: number) => number | null;
  /** parse + next in one call. */
  oneShot(expr: string, tz: string, after: number): number | null;
}

const LIBS: Lib[] = [
  {
    name: "edgecron",
    parsed: (expr, tz) => {
      const s = cron(expr, { timezone: tz });
      return (after) => s.next(after);
    },
    oneShot: (expr, tz, after) => cron(expr, { timezone: tz }).next(after),
  },
  {
    name: "croner",
    parsed: (expr, tz) => {
      const c = new Cron(expr, { timezone: tz });
      return (after) => c.nextRun(new Date(after))?.getTime() ?? null;
    },
    oneShot: (expr, tz, after) => new Cron(expr, { timezone: tz }).nextRun(new Date(after))?.getTime() ?? null,
  },
  {
    name: "cron-parser",
    parsed: (expr, tz) => {
      const e = CronExpressionParser.parse(expr, { tz, currentDate: new Date(0) });
      return (after) => {
        e.reset(new Date(after));
        return e.next().getTime();
      };
    },
    oneShot: (expr, tz, after) =>
      CronExpressionParser.parse(expr, { tz, currentDate: new Date(after) }).next().getTime(),
  },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** ops/s, median over rounds, of running `run` once per (expr, start). */
function measure(exprs: string[], run: (exprIndex: number, after: number) => unknown): number {
  const calls = exprs.length * STARTS.length;
  const rates: number[] = [];
  for (let round = -1; round < ROUNDS; round++) {
    const t0 = performance.now();
    for (let i = 0; i < exprs.length; i++) for (const after of STARTS) run(i, after);
    const ms = performance.now() - t0;
    if (round >= 0) rates.push(calls / (ms / 1000));
  }
  return median(rates);
}

/** How often each peer returns the same next() as edgecron, and the first difference. */
function agreement(exprs: string[], tz: string): string {
  const fns = LIBS.map((lib) => exprs.map((e) => lib.parsed(e, tz)));
  const same = LIBS.map(() => 0);
  let first = "";
  for (let i = 0; i < exprs.length; i++) {
    for (const after of STARTS) {
      const got = fns.map((f) => f[i]!(after));
      got.forEach((t, k) => {
        if (t === got[0]) same[k]!++;
        else if (first === "") {
          first = `; first difference: ${LIBS[k]!.name} "${exprs[i]}" after ${new Date(after).toISOString()} -> ${
            new Date(t ?? 0).toISOString()
          }, edgecron ${new Date(got[0] ?? 0).toISOString()}`;
        }
      });
    }
  }
  const total = exprs.length * STARTS.length;
  return `croner ${same[1]}/${total}, cron-parser ${same[2]}/${total}${first}`;
}

const fmt = (
  n: number,
): string => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(0));

/** Prints the core benchmark table. */
export async function benchCore(): Promise<void> {
  console.log("\n## core: next() per second (median of 7 rounds; 128 fixed start instants per expression)\n");
  console.log("| corpus | mode | edgecron | croner | cron-parser | ×croner | ×cron-parser | same next() as edgecron |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |");
  for (const { name, exprs, tz } of CORPORA) {
    const agree = agreement(exprs, tz);
    for (const mode of ["parsed next()", "parse+next"] as const) {
      const rates = LIBS.map((lib) => {
        if (mode === "parse+next") return measure(exprs, (i, after) => lib.oneShot(exprs[i]!, tz, after));
        const fns = exprs.map((e) => lib.parsed(e, tz));
        return measure(exprs, (i, after) => fns[i]!(after));
      });
      const [ours, croner, parser] = rates as [number, number, number];
      console.log(
        `| ${name} | ${mode} | ${fmt(ours)} | ${fmt(croner)} | ${fmt(parser)} | ${(ours / croner).toFixed(1)}× | ${
          (ours / parser).toFixed(1)
        }× | ${mode === "parsed next()" ? agree : ""} |`,
      );
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchCore();
