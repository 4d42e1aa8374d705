// tick() for 1 000 and 10 000 jobs: planning alone; a whole tick on the memory store; a
// whole tick on a libSQL file. "claims made" is the time from calling tick() until the
// claim batch has returned (snapshot + reaping check + planning + one claim batch);
// "runs recorded" adds running every (no-op) handler and recording its outcome.
// Runnable alone: `npx tsx bench/tick.ts`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { cron } from "../src/core/mod.ts";
import { createScheduler, planSlots } from "../src/engine/mod.ts";
import { createMemoryStore } from "../src/store/memory/mod.ts";
import { libsqlStore } from "../src/store/libsql/mod.ts";
import type { Store } from "../src/store/types.ts";

const T0 = Date.UTC(2030, 0, 1);
const MIN = 60_000;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Planning alone: `planSlots` for `n` minutely jobs with one slot due each. */
function planningMs(n: number): number {
  const schedules = Array.from({ length: n }, (_, i) => cron(`${i % 60} * * * * *`));
  const catchUp = { mode: "latest" as const, windowMs: 3_600_000, toleranceMs: 60_000 };
  const times: number[] = [];
  for (let round = 0; round < 7; round++) {
    const now = T0 + (round + 1) * MIN;
    const start = performance.now();
    let planned = 0;
    for (const schedule of schedules) {
      planned += planSlots({ schedule, catchUp, now, watermark: now - MIN, firstSeen: T0, paused: false }).run.length;
    }
    times.push(performance.now() - start);
    if (planned !== n) throw new Error(`bench: planned ${planned} slots, expected ${n}`);
  }
  return median(times.slice(2));
}

/**
 * One whole tick with `n` minutely jobs on `store`: ms to claims made and to runs
 * recorded. System clock and timers (10 000 timeouts are what a real tick arms), with
 * explicit tick instants on minute boundaries just behind the wall clock.
 */
async function tickMs(n: number, store: Store): Promise<{ claims: number; total: number }> {
  const first = Math.floor(Date.now() / MIN) * MIN - 2 * MIN;
  let lastClaim = 0;
  const scheduler = createScheduler({
    store,
    logger: silent,
    onEvent: (e) => {
      if (e.type === "claimed") lastClaim = performance.now();
    },
  });
  for (let i = 0; i < n; i++) scheduler.job(`job-${i}`, { schedule: "* * * * *", run: () => {} });
  await scheduler.tick(first); // registers every job
  const start = performance.now();
  const report = await scheduler.tick(first + MIN);
  const total = performance.now() - start;
  const won = Object.values(report.jobs).reduce((k, r) => k + r.won.length, 0);
  if (won !== n) throw new Error(`bench: won ${won} slots, expected ${n}`);
  return { claims: lastClaim - start, total };
}

const fmt = (ms: number): string => `${ms < 10 ? ms.toFixed(2) : ms.toFixed(0)} ms`;
const rate = (n: number, ms: number): string => `${Math.round(n / (ms / 1000)).toLocaleString("en-US")}/s`;

/** Prints the tick figures. */
export async function benchTick(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "edgecron-bench-tick-"));
  try {
    console.log("\ntick(): N minutely jobs, one slot due each");
    console.log("jobs   | planning alone | memory: claims made (claims/s) | memory: runs recorded | libSQL file: claims made (claims/s) | libSQL file: runs recorded");
    for (const n of [1_000, 10_000]) {
      const plan = planningMs(n);
      await tickMs(n, createMemoryStore()); // warm-up
      const mem = await tickMs(n, createMemoryStore());
      const lib = libsqlStore({ url: `file:${join(dir, `tick-${n}.db`)}` });
      const file = await tickMs(n, lib);
      await lib.close();
      console.log(
        `${String(n).padEnd(6)} | ${fmt(plan).padEnd(14)} | ${`${fmt(mem.claims)} (${rate(n, mem.claims)})`.padEnd(30)} | ` +
          `${fmt(mem.total).padEnd(21)} | ${`${fmt(file.claims)} (${rate(n, file.claims)})`.padEnd(35)} | ${fmt(file.total)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchTick();
