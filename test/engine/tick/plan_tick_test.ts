import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { resolveJob } from "../../../src/engine/jobs/spec.ts";
import { planTick } from "../../../src/engine/tick/plan_tick.ts";
import type { TickSnapshot } from "../../../src/store/types.ts";
import { MIN, setup, T0, tickAt } from "../_helpers.ts";

const job = (name: string, schedule = "* * * * *") => resolveJob(name, { schedule, run: () => {} }, {});

function snapshotOf(names: string[]): TickSnapshot {
  const jobs: TickSnapshot["jobs"] = {};
  for (const name of names) jobs[name] = { name, firstSeen: T0 - 10 * MIN, paused: false };
  return { jobs, watermarks: {}, defs: [], running: [] };
}

describe("planTick()", () => {
  const names = ["a", "b", "c", "d", "e"];
  const jobs = names.map((n) => job(n));
  const input = { now: T0, node: "n", batch: "b", leaseUntil: () => T0 + 15_000, offset: 0 };

  it("with room for every job, plans them all in job order, one batch", () => {
    const plan = planTick(jobs, snapshotOf(names), { ...input, capacity: 10 });
    assert.deepEqual(plan.requests.filter((r) => r.status === "running").map((r) => r.job), names);
    assert.equal(plan.deferred, 0);
    assert.ok(plan.requests.every((r) => r.batch === "b" && r.node === "n"));
  });

  it("claims no more jobs than the capacity, from the offset on, and counts the rest deferred", () => {
    const plan = planTick(jobs, snapshotOf(names), { ...input, capacity: 2, offset: 3 });
    assert.deepEqual(plan.requests.filter((r) => r.status === "running").map((r) => r.job), ["d", "e"]);
    assert.equal(plan.deferred, 3);
    const none = planTick(jobs, snapshotOf(names), { ...input, capacity: 0 });
    assert.deepEqual(none.requests.filter((r) => r.status === "running"), []);
  });

  it("a catch-up queue is one run: a job with many due slots takes one unit of capacity", () => {
    const all = resolveJob("q", { schedule: "* * * * *", catchUp: { mode: "all" }, run: () => {} }, {});
    const plan = planTick([all, job("a")], snapshotOf(["q", "a"]), { ...input, capacity: 2 });
    // First seen at T0 - 10 min: that slot and the ten after it, up to T0.
    assert.equal(plan.requests.filter((r) => r.job === "q").length, 11);
    assert.equal(plan.deferred, 0);
  });
});

describe("concurrency", () => {
  it("tick() from a platform trigger runs every due job in rounds when they exceed the node's capacity", async () => {
    const s = setup({ start: T0 - MIN + 1, concurrency: 2 });
    let live = 0;
    let peak = 0;
    for (const name of ["a", "b", "c", "d", "e"]) {
      s.scheduler.job(name, { schedule: "* * * * *", run: async () => {
        peak = Math.max(peak, ++live);
        await Promise.resolve();
        live--;
      } });
    }
    await tickAt(s, T0 - MIN + 1);
    const report = await tickAt(s, T0);
    assert.deepEqual(Object.keys(report.jobs).sort(), ["a", "b", "c", "d", "e"]);
    assert.ok(Object.values(report.jobs).every((r) => r.outcomes[T0] === "ok"));
    assert.equal(report.deferred, undefined);
    assert.ok(peak <= 2, `at most 2 runs in flight, saw ${peak}`);
  });

  it("refuses a concurrency that is not a positive integer", () => {
    assert.throws(() => setup({ concurrency: 0 }), /concurrency/);
    assert.throws(() => setup({ concurrency: 1.5 }), /concurrency/);
  });
});

describe("concurrency in timer mode", () => {
  it("a node at its capacity claims the rest of the minute as its runs end, in the same minute", async () => {
    const s = setup({ start: T0 - MIN + 1, concurrency: 2 });
    const gates = new Map<string, () => void>();
    const ran: string[] = [];
    for (const name of ["a", "b", "c", "d"]) {
      s.scheduler.job(name, { schedule: "* * * * *", run: (ctx) => {
        ran.push(`${name}@${ctx.slot}`);
        return new Promise<void>((resolve) => gates.set(name, resolve));
      } });
    }
    s.scheduler.start();
    await s.clock.set(T0);
    assert.equal(ran.length, 2, "two runs in flight at most");
    for (const resolve of [...gates.values()]) resolve();
    await s.clock.advance(100);
    assert.equal(ran.length, 4);
    for (const resolve of [...gates.values()]) resolve();
    await s.clock.settle();
    assert.ok(ran.every((r) => r.endsWith(`@${T0}`)));
    await s.scheduler.stop();
  });
});
