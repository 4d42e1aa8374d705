// tick() for 1 000 and 10 000 jobs: planning alone; a whole tick on the memory store and
// on a libSQL file. "claims made" is the time from calling tick() until the claim batch
// has returned; "recorded after last handler" is the time from the last handler
// finishing to every outcome recorded, with group commit (one `updateMany` per group of
// writes) and, in the same run, with the per-write path (the store's `updateMany`
// hidden: one `update` transaction per outcome), and their ratio. Then the cost of one
// heartbeat renewal of 10 000 running leases (one `store.renew`).
// Runnable alone: `npx tsx bench/tick.ts`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { cron } from "../src/core/mod.ts";
import { createScheduler, planSlots } from "../src/engine/mod.ts";
import { createManualClock } from "../src/engine/clock.ts";
import type { Scheduler } from "../src/engine/types.ts";
import { claimOrder, planTick, takeRound } from "../src/engine/tick/plan_tick.ts";
import { resolveJob } from "../src/engine/jobs/spec.ts";
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

/** The whole tick plan: `planTick` over `n` resolved minutely jobs with one slot due each (what a tick does between its snapshot and its claim). */
function planTickMs(n: number): number {
  const jobs = Array.from(
    { length: n },
    (_, i) => resolveJob(`job-${i}`, { schedule: `${i % 60} * * * * *`, run: () => {} }, {}),
  );
  const snapshot = {
    jobs: {} as Record<string, { name: string; firstSeen: number; paused: boolean }>,
    watermarks: {} as Record<string, number>,
    defs: [],
    running: [],
  };
  const times: number[] = [];
  for (let round = 0; round < 7; round++) {
    const now = T0 + (round + 1) * MIN;
    for (const job of jobs) {
      snapshot.jobs[job.name] = { name: job.name, firstSeen: T0, paused: false };
      snapshot.watermarks[job.name] = now - MIN;
    }
    const start = performance.now();
    const plan = planTick(jobs, snapshot, { now });
    const taken = takeRound(claimOrder(plan, snapshot, now, { node: "n", nodes: [], offset: 0 }).due, 0, {
      now,
      node: "n",
      batch: "b",
      leaseUntil: () => now + 15_000,
      capacity: n,
    });
    times.push(performance.now() - start);
    if (taken.requests.length !== n) throw new Error(`bench: planTick planned ${taken.requests.length}, expected ${n}`);
  }
  return median(times.slice(2));
}

/** The same store without `updateMany`: the scheduler then records each outcome with its own `update`. */
function perWrite(store: Store): Store {
  const { updateMany: _hidden, ...rest } = store;
  return rest as Store;
}

/**
 * One whole tick with `n` minutely jobs on `store`: ms to claims made, and from the last
 * handler finishing to every outcome recorded. System clock and timers, with explicit
 * tick instants on minute boundaries just behind the wall clock.
 */
async function tickMs(n: number, store: Store): Promise<{ claims: number; recorded: number }> {
  const first = Math.floor(Date.now() / MIN) * MIN - 2 * MIN;
  let lastClaim = 0;
  let lastHandler = 0;
  const scheduler = createScheduler({
    store,
    logger: silent,
    concurrency: n,
    onEvent: (e) => {
      if (e.type === "claimed") lastClaim = performance.now();
    },
  });
  for (let i = 0; i < n; i++) {
    scheduler.job(`job-${i}`, {
      schedule: "* * * * *",
      run: () => void (lastHandler = performance.now()),
    });
  }
  await scheduler.tick(first); // registers every job
  const start = performance.now();
  const report = await scheduler.tick(first + MIN);
  const done = performance.now();
  const ok = Object.values(report.jobs).filter((r) => r.outcomes[first + MIN] === "ok").length;
  if (ok !== n) throw new Error(`bench: ${ok} outcomes recorded ok, expected ${n}`);
  return { claims: lastClaim - start, recorded: done - lastHandler };
}

/** One `renew()` of `n` running leases on `store`, in ms. */
async function renewMs(n: number, store: Store): Promise<number> {
  await store.init();
  const now = Math.floor(Date.now() / MIN) * MIN;
  const requests = Array.from({ length: n }, (_, i) => ({
    job: `job-${i}`,
    slot: now,
    kind: "scheduled",
    status: "running",
    overlap: "skip",
    node: "n",
    batch: "b",
    now,
    leaseUntil: now + 15_000,
  } as const));
  await store.claim(requests);
  const items = requests.map((r) => ({ job: r.job, slot: r.slot, attempt: 1, node: "n", leaseUntil: now + 20_000 }));
  const start = performance.now();
  const renewed = await store.renew(items, now + 5_000);
  const ms = performance.now() - start;
  if (renewed.filter(Boolean).length !== n) throw new Error("bench: not every lease was renewed");
  return ms;
}

/**
 * CPU (this process's, user + system) per minute of `nodes` schedulers in ONE process, each
 * registering all `n` minutely jobs, on one libSQL file: the median of 8 minutes after 4
 * warm-up minutes, ticked back to back on a manual clock (stepped while the nodes wait to
 * help with each other's shares). Beside the 4-process bench (`scale.ts procs`), it tells
 * the engine's cost per slot and what sharing a minute costs from what four processes cost.
 */
async function sharedMinuteCpuMs(nodes: number, n: number, file: () => Store): Promise<number> {
  const clock = createManualClock(T0 + 1);
  const schedulers: Scheduler[] = [];
  let ran = 0;
  for (let k = 0; k < nodes; k++) {
    const s = createScheduler({ clock, store: file(), logger: silent, node: `n${k + 1}` });
    for (let i = 0; i < n; i++) s.job(`job-${i}`, { schedule: "* * * * *", run: () => void ran++ });
    schedulers.push(s);
  }
  await Promise.all(schedulers.map((s) => s.ready()));
  const perMinute: number[] = [];
  for (let m = 1; m <= 12; m++) {
    const before = process.cpuUsage();
    const ran0 = ran;
    await clock.set(T0 + m * MIN);
    let done = false;
    const reports = Promise.all(schedulers.map((s) => s.tick(T0 + m * MIN))).finally(() => (done = true));
    while (!done) await clock.advance(50);
    for (const report of await reports) if (!report.ok) throw new Error(`bench: tick failed: ${report.error}`);
    const used = process.cpuUsage(before);
    if (ran - ran0 !== n) throw new Error(`bench: ${ran - ran0} runs in minute ${m}, expected ${n}`);
    if (m > 4) perMinute.push((used.user + used.system) / 1000);
  }
  await Promise.all(schedulers.map((s) => s.close()));
  return median(perMinute);
}

const fmt = (ms: number): string => `${ms < 10 ? ms.toFixed(2) : ms.toFixed(0)} ms`;
const rate = (n: number, ms: number): string => `${Math.round(n / (ms / 1000)).toLocaleString("en-US")}/s`;

/** Prints the tick figures. */
export async function benchTick(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "edgecron-bench-tick-"));
  let files = 0;
  const file = (): Store => libsqlStore({ url: `file:${join(dir, `tick-${files++}.db`)}` });
  try {
    console.log(
      "\ntick(): N minutely jobs, one slot due each; outcomes recorded after the last handler, group commit vs per-write",
    );
    console.log(
      "jobs   | planSlots / planTick | store       | claims made (claims/s)   | recorded: group commit | recorded: per-write | per-write / group",
    );
    for (const n of [1_000, 10_000]) {
      const plan = `${fmt(planningMs(n))} / ${fmt(planTickMs(n))}`;
      await tickMs(n, createMemoryStore()); // warm-up
      for (const [label, make] of [["memory", createMemoryStore], ["libSQL file", file]] as const) {
        const grouped = make();
        const g = await tickMs(n, grouped);
        await grouped.close();
        const single = make();
        const p = await tickMs(n, perWrite(single));
        await single.close();
        console.log(
          `${String(n).padEnd(6)} | ${plan.padEnd(19)} | ${label.padEnd(11)} | ${
            `${fmt(g.claims)} (${rate(n, g.claims)})`.padEnd(24)
          } | ` +
            `${fmt(g.recorded).padEnd(22)} | ${fmt(p.recorded).padEnd(19)} | ${(p.recorded / g.recorded).toFixed(1)}x`,
        );
      }
    }
    const n = 10_000;
    const mem = await renewMs(n, createMemoryStore());
    const lib = file();
    const libMs = await renewMs(n, lib);
    await lib.close();
    console.log(
      `heartbeat: one renew() of ${n.toLocaleString("en-US")} running leases: memory ${fmt(mem)}, libSQL file ${
        fmt(libMs)
      }`,
    );
    // A shared file per run: every node of a run on the same database.
    const shared = (): () => Store => {
      const url = `file:${join(dir, `shared-${files++}.db`)}`;
      return () => libsqlStore({ url });
    };
    const one = await sharedMinuteCpuMs(1, n, shared());
    const four = await sharedMinuteCpuMs(4, n, shared());
    console.log(
      `a minute of ${n.toLocaleString("en-US")} jobs in ONE process, libSQL file, CPU: 1 node ${fmt(one)} (${
        (one * 1000 / n).toFixed(0)
      } µs a slot), 4 nodes sharing it ${fmt(four)} (${(four * 1000 / n).toFixed(0)} µs a slot, ${
        (four / one).toFixed(2)
      }x); compare croner's CPU per minute in \`scale.ts procs\``,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchTick();
