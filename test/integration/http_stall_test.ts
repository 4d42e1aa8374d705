// No HTTP read holds the event loop for more than 50 ms at 20 000 jobs (half of them
// data-defined, as another node stored them): GET /metrics,
// GET /jobs (first and last page), the dashboard overview and GET /jobs/:name. What is
// measured is the longest synchronous block while a request runs (the gap between turns
// of a zero-delay timer), not the request's total time: a read may take as long as it
// likes, so long as it lets timers and I/O run. A gap counts only as far as this process
// spent CPU in it, so a loaded machine that deschedules the process is not blamed on the
// code; each request is measured up to five times and its smallest worst block is asserted.
// (Speed itself is `npm run bench -- --only=stall`.) `GET /metrics` is measured again at
// 100 000 jobs on the memory store and 50 000 on a libSQL file (a page costs the same at
// any size; the file's setup is what takes long): a scrape walks every job.
import { after, before, describe, it } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { createMetrics } from "../../src/http/metrics.ts";
import { createManualClock, createScheduler } from "../../src/engine/mod.ts";
import { createMemoryStore } from "../../src/store/mod.ts";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import type { Store } from "../../src/store/types.ts";
import { edgecronRouter } from "../../src/http/mod.ts";
import type { Hono } from "hono";
import { quietLogger, T0 } from "../http/_setup.ts";

const JOBS = 20_000;
const BLOCK_MS = 50;
/** Runs of one request at most, for its smallest worst block. */
const TRIES = 5;
const MIN = 60_000;

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The longest block while `work` runs: per gap between timer turns, the smaller of its wall time and this process's CPU time in it. */
async function longestBlock(work: () => Promise<void>): Promise<number> {
  let wall = performance.now();
  let cpu = cpuMs();
  let worst = 0;
  let on = true;
  const gap = (): void => {
    const w = performance.now();
    const c = cpuMs();
    worst = Math.max(worst, Math.min(w - wall, c - cpu));
    wall = w;
    cpu = c;
  };
  const spin = (): void => {
    gap();
    if (on) setTimeout(spin, 0);
  };
  setTimeout(spin, 0);
  await work();
  on = false;
  gap();
  return worst;
}

/**
 * The longest block of each of up to {@link TRIES} runs of `request`, stopping at the first
 * within {@link BLOCK_MS}: a code path that blocks longer does so every time, while a
 * garbage collection or a busy machine (the suite runs tiers side by side on two cores)
 * lengthens some runs only. A one-off block (the first scrape, which resolves the
 * definitions another node stored) therefore passes when a later run is within the
 * limit; `npm run bench -- --only=stall` reports the first scrape on its own.
 */
async function worstBlocks(request: () => Promise<void>): Promise<number[]> {
  const blocks: number[] = [];
  while (blocks.length < TRIES && !blocks.some((b) => b <= BLOCK_MS)) blocks.push(await longestBlock(request));
  return blocks;
}

/** Reads a response body chunk by chunk, as a client on a socket would. */
async function drain(res: Response): Promise<number> {
  const reader = res.body!.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.length;
  }
}

let app: Hono;

before(async () => {
  const clock = createManualClock(T0 + MIN);
  const metrics = createMetrics({ now: clock.now });
  const store = createMemoryStore();
  const scheduler = createScheduler({
    clock,
    store,
    logger: quietLogger(),
    onEvent: metrics.onEvent,
    webhookSecret: "a-secret",
  });
  // Half code jobs, half data-defined (webhook) jobs, interleaved by name.
  const names = Array.from({ length: JOBS }, (_, i) => `job-${String(i).padStart(5, "0")}`);
  const code = names.filter((_, i) => i % 2 === 0);
  const data = names.filter((_, i) => i % 2 === 1);
  for (const name of code) scheduler.job(name, { schedule: "* * * * *", run: () => {} });
  await scheduler.define(data[0]!, { schedule: "* * * * *", target: { url: "https://hooks.example/run" } });
  // The rest stored as another node would store them: the same spec, straight into the store.
  const spec = (await store.getDef(data[0]!))!.spec;
  for (const name of data.slice(1)) await store.putDef(name, spec, T0);
  await scheduler.ready();
  // One finished run per job (written straight to the store: a 20 000-job tick is the
  // tick bench's business), and the events a run sends, so every series has a line.
  await finishedRun(store, names);
  for (const job of names) metrics.onEvent({ type: "succeeded", job, slot: T0, attempt: 1, durationMs: 10 });
  app = edgecronRouter(scheduler, { public: true, metrics, cacheTtl: 0 });
});

describe(`HTTP reads at ${JOBS.toLocaleString("en-US")} jobs`, () => {
  for (const path of ["/metrics", "/jobs", `/jobs?after=job-${JOBS - 50}`, "/", "/jobs/job-10000"]) {
    it(`GET ${path} never blocks the event loop for more than ${BLOCK_MS} ms`, async () => {
      const blocks = await worstBlocks(async () => {
        const res = await app.request(path);
        assert.equal(res.status, 200);
        assert.ok((await drain(res)) > 0);
      });
      const best = Math.min(...blocks);
      assert.ok(
        best <= BLOCK_MS,
        `GET ${path} blocked the event loop for ${blocks.map((b) => b.toFixed(0)).join(", ")} ms`,
      );
    });
  }
});

/** One `ok` run of slot T0 for each of `names`, written straight to `store`. */
async function finishedRun(store: Store, names: string[]): Promise<void> {
  await store.snapshot(names, T0);
  await store.claim(names.map((job) => ({
    job,
    slot: T0,
    kind: "scheduled" as const,
    status: "running" as const,
    overlap: "skip" as const,
    node: "n1",
    batch: "t",
    now: T0,
    leaseUntil: T0 + MIN,
  })));
  await store.updateMany(names.map((job) => ({
    key: { job, slot: T0, attempt: 1, node: "n1" },
    patch: { status: "ok" as const, finishedAt: T0 + 10, leaseUntil: null },
  })));
}

/** A router over `jobs` code jobs with one finished run each, written straight to `store`, and their runs series. */
async function largeNode(store: Store, jobs: number): Promise<Hono> {
  const clock = createManualClock(T0 + MIN);
  const metrics = createMetrics({ now: clock.now });
  const scheduler = createScheduler({ clock, store, logger: quietLogger(), onEvent: metrics.onEvent });
  const names = Array.from({ length: jobs }, (_, i) => `job-${String(i).padStart(6, "0")}`);
  for (const name of names) scheduler.job(name, { schedule: "* * * * *", run: () => {} });
  await scheduler.ready();
  for (let i = 0; i < names.length; i += 10_000) {
    await finishedRun(store, names.slice(i, i + 10_000));
  }
  for (const job of names) metrics.onEvent({ type: "succeeded", job, slot: T0, attempt: 1, durationMs: 10 });
  return edgecronRouter(scheduler, { public: true, metrics, cacheTtl: 0 });
}

describe("GET /metrics of a large node", () => {
  const dir = mkdtempSync(join(tmpdir(), "edgecron-metrics-stall-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const stores: [string, number, () => Store][] = [
    ["memory store", 100_000, () => createMemoryStore()],
    ["libSQL file", 50_000, () => libsqlStore({ url: `file:${join(dir, "scrape.db")}` })],
  ];
  for (const [label, jobs, make] of stores) {
    it(`${label}, ${jobs.toLocaleString("en-US")} jobs: a scrape never blocks the event loop for more than ${BLOCK_MS} ms, and every job has its series`, async () => {
      const node = await largeNode(make(), jobs);
      const blocks = await worstBlocks(async () => {
        const res = await node.request("/metrics");
        assert.equal(res.status, 200);
        assert.ok((await drain(res)) > 0);
      });
      const text = await (await node.request("/metrics")).text();
      assert.ok(text.includes(`edgecron_jobs{state="active"} ${jobs}\n`));
      const last = `{job="job-${String(jobs - 1).padStart(6, "0")}"}`;
      assert.ok(text.includes(`edgecron_last_success_timestamp_seconds${last} ${(T0 + 10) / 1000}\n`));
      const best = Math.min(...blocks);
      assert.ok(
        best <= BLOCK_MS,
        `GET /metrics blocked the event loop for ${blocks.map((b) => b.toFixed(0)).join(", ")} ms`,
      );
    });
  }
});
