// Schedules with `except` beside the same schedules without it, and beside croner and
// cron-parser on the plain expression (they have no exclusions; a caller would loop on
// next() and test each fire). Same start instants; warm-up, 7 rounds, median.
// Runnable alone: `npx tsx bench/core_except.ts`.
import { pathToFileURL } from "node:url";
import { Cron } from "croner";
import { CronExpressionParser } from "cron-parser";
import { cron } from "../src/core/mod.ts";

const HOLIDAYS = ["* * 24-26 12 *", "* * 1 1 *", "2027-03-26", "2027-03-29", "2027-05-01", "0 0 * * 0"];
const CASES: Array<{ name: string; expr: string; except: string[]; tz: string }> = [
  { name: "weekday report, holidays", expr: "0 9 * * 1-5", except: HOLIDAYS, tz: "Europe/Berlin" },
  {
    name: "every minute, not at night",
    expr: "* * * * *",
    except: ["* 0-6 * * *", "* 22-23 * * *"],
    tz: "America/New_York",
  },
  {
    name: "every 15 min, not weekends or last day",
    expr: "*/15 * * * *",
    except: ["* * * * 0,6", "* * L * *"],
    tz: "UTC",
  },
];
const ROUNDS = 7;
const STARTS: number[] = (() => {
  let x = 0x2545f491;
  return Array.from({ length: 128 }, () => {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    return Date.UTC(2024, 0, 1) + (x % 220_000_000) * 1000 + (x % 1000);
  });
})();

function rate(run: (after: number) => unknown): number {
  const rates: number[] = [];
  for (let round = -1; round < ROUNDS; round++) {
    const t0 = performance.now();
    for (const after of STARTS) run(after);
    const ms = performance.now() - t0;
    if (round >= 0) rates.push(STARTS.length / (ms / 1000));
  }
  return rates.sort((a, b) => a - b)[Math.floor(rates.length / 2)]!;
}

const fmt = (
  n: number,
): string => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : n.toFixed(0));

/** Prints the `except` benchmark table. */
export async function benchExcept(): Promise<void> {
  console.log("\n## core: next() per second with `except` (median of 7 rounds; parsed schedules)\n");
  console.log(
    "| case | edgecron + except | edgecron plain | croner plain | cron-parser plain | except/plain | ×croner | ×cron-parser |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const c of CASES) {
    const withExcept = cron(c.expr, { timezone: c.tz, except: c.except });
    const plain = cron(c.expr, { timezone: c.tz });
    const croner = new Cron(c.expr, { timezone: c.tz });
    const parser = CronExpressionParser.parse(c.expr, { tz: c.tz, currentDate: new Date(0) });
    const ours = rate((after) => withExcept.next(after));
    const base = rate((after) => plain.next(after));
    const cr = rate((after) => croner.nextRun(new Date(after)));
    const cp = rate((after) => {
      parser.reset(new Date(after));
      return parser.next();
    });
    console.log(
      `| ${c.name} | ${fmt(ours)} | ${fmt(base)} | ${fmt(cr)} | ${fmt(cp)} | ${(ours / base).toFixed(2)} | ${
        (ours / cr).toFixed(1)
      }× | ${(ours / cp).toFixed(1)}× |`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchExcept();
