// Outside check (not part of `npm test`): runs the agreeing peer vectors in
// /work/shared/peer-vectors/*.json and the real-world cases in
// /work/shared/real-world/real-world.json against cron(), as their READMEs describe.
// Run: npx tsx scripts/check_peers.ts [dir of the shared files]
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { cron, SchedulerError } from "../src/mod.ts";

const shared = process.argv[2] ?? "/work/shared";

interface Vector {
  id: string;
  ourExpr: string;
  tz: string | null;
  dayMatch: "or" | "and";
  after: number | null;
  direction?: "next" | "prev";
  ours: number[] | "error" | "accepted" | null;
  n?: number;
  verdict: string;
}

interface Case {
  id: number;
  expr: string;
  tz: string;
  after: number;
  expected: number[] | "error";
}

type Result = { ok: true } | { ok: false; detail: string };

const iso = (t: number | null | undefined): string => (typeof t === "number" ? new Date(t).toISOString() : String(t));

function expectError(run: () => unknown): Result {
  try {
    run();
    return { ok: false, detail: "accepted, expected an invalid-* SchedulerError" };
  } catch (e) {
    if (e instanceof SchedulerError && e.code.startsWith("invalid")) return { ok: true };
    return { ok: false, detail: `threw ${String(e)}` };
  }
}

function compare(got: number[], want: number[]): Result {
  if (got.length === want.length && got.every((t, i) => t === want[i])) return { ok: true };
  return { ok: false, detail: `got [${got.map(iso).join(", ")}]\n      want [${want.map(iso).join(", ")}]` };
}

function runVector(v: Vector): Result {
  const options = { timezone: v.tz ?? "UTC", ...(v.dayMatch === "and" ? { dayMatch: "and" as const } : {}) };
  if (v.ours === "error") return expectError(() => cron(v.ourExpr, options));
  try {
    const s = cron(v.ourExpr, options);
    if (v.ours === "accepted" || v.ours === null) return { ok: true };
    const want = v.ours;
    if (v.direction === "prev") {
      const got: number[] = [];
      let t: number | null = v.after!;
      while (got.length < want.length && (t = s.prev(t)) !== null) got.push(t);
      return compare(got, want);
    }
    const got = s.nextRuns(v.after!, v.n ?? want.length);
    const first = s.next(v.after!);
    if (first !== (got[0] ?? null)) return { ok: false, detail: `next() ${iso(first)} differs from nextRuns()[0]` };
    return compare(got, want);
  } catch (e) {
    return { ok: false, detail: `threw ${String(e)}` };
  }
}

function runCase(c: Case): Result {
  if (c.expected === "error") return expectError(() => cron(c.expr, { timezone: c.tz }));
  try {
    return compare(cron(c.expr, { timezone: c.tz }).nextRuns(c.after, c.expected.length), c.expected);
  } catch (e) {
    return { ok: false, detail: `threw ${String(e)}` };
  }
}

function report<T>(title: string, items: T[], run: (item: T) => Result, label: (item: T) => string): number {
  let pass = 0;
  const failures: string[] = [];
  for (const item of items) {
    const r = run(item);
    if (r.ok) pass++;
    else failures.push(`  ${label(item)}\n      ${r.detail}`);
  }
  console.log(`${title}: ${pass}/${items.length} pass, ${failures.length} fail`);
  for (const f of failures.slice(0, 15)) console.log(f);
  return failures.length;
}

const vectors: Vector[] = ["croner.json", "cron-parser.json"]
  .flatMap((f) => JSON.parse(readFileSync(join(shared, "peer-vectors", f), "utf8")) as Vector[])
  .filter((v) => v.verdict === "agrees");
const cases = (JSON.parse(readFileSync(join(shared, "real-world", "real-world.json"), "utf8")) as { cases: Case[] }).cases;

const failed =
  report("peer vectors (agreeing)", vectors, runVector, (v) => `${v.id} ${JSON.stringify(v.ourExpr)} tz=${v.tz} ${v.dayMatch} ${v.direction ?? ""} after=${iso(v.after)}`) +
  report("real-world cases", cases, runCase, (c) => `#${c.id} ${JSON.stringify(c.expr)} tz=${c.tz} after=${iso(c.after)}`);
process.exitCode = failed === 0 ? 0 : 1;
