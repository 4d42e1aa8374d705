// Fencing: a node stops its run and reports `held: false` before any other node can see
// its lease as ended, with clocks skewed by up to the lease grace and a store that hangs
// or throws for the node that runs.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createManualClock, type ManualClock } from "../../../src/engine/clock.ts";
import type { RunContext } from "../../../src/engine/types.ts";
import { SchedulerError } from "../../../src/core/errors.ts";
import { createMemoryStore, type MemoryStore } from "../../../src/store/memory/mod.ts";
import { MIN, ofType, rows, SEC, setup, T0, tickAt } from "../_helpers.ts";
import { faultyStore } from "../_faulty.ts";

/** `base` seen from a node whose clock runs `ms` ahead; timers stay on `base`. */
function skewed(base: ManualClock, ms: number): ManualClock {
  return { ...base, now: () => base.now() + ms };
}

/** The shared store as one node sees it: after `fail()` every call hangs or throws. */
function breakable(inner: MemoryStore): { store: MemoryStore; fail(how: "hang" | "throw"): void } {
  let mode: "ok" | "hang" | "throw" = "ok";
  const store = { ...inner } as MemoryStore;
  for (const key of Object.keys(inner) as (keyof MemoryStore)[]) {
    const fn = inner[key];
    if (typeof fn !== "function" || key === "setFailing") continue;
    (store as unknown as Record<string, unknown>)[key] = (...args: unknown[]) => {
      if (mode === "hang") return new Promise(() => {});
      if (mode === "throw") return Promise.reject(new SchedulerError("store-error", `${key}: connection reset`));
      return (fn as (...a: unknown[]) => unknown).apply(inner, args);
    };
  }
  return { store, fail: (how) => void (mode = how) };
}

interface Live {
  node: string;
  ctx: RunContext;
  start: number;
  end: number | undefined;
  abortedAt: number | undefined;
}

/**
 * Node A (on time) runs the slot; its store then hangs or throws. Node B (`skewMs` ahead)
 * ticks every 500 ms. The base clock steps 50 ms at a time and, at each step, no instant
 * may have both handlers live and both `held`.
 */
async function scenario(options: { how: "hang" | "throw"; skewMs: number; graceMs: number; stopAfterAbortMs: number }) {
  // Registered just after a minute: the registering tick plans [registered, now] and runs no slot.
  const base = createManualClock(T0 - MIN + 1);
  const shared = createMemoryStore();
  const a = breakable(shared);
  const lives: Live[] = [];
  const spec = (node: string) => ({
    schedule: "* * * * *",
    retries: { attempts: 2, backoff: "1s" }, // A's attempt and B's re-run
    run: (ctx: RunContext) => {
      const live: Live = { node, ctx, start: base.now(), end: undefined, abortedAt: undefined };
      lives.push(live);
      return new Promise<void>((resolve, reject) => {
        // B's re-run finishes after a second; A's run lasts until its signal aborts.
        if (node === "b") {
          base.setTimeout(() => {
            live.end = base.now();
            resolve();
          }, SEC);
        }
        ctx.signal.addEventListener("abort", () => {
          live.abortedAt = base.now();
          // A handler that needs a moment to wind down after its signal aborts.
          base.setTimeout(() => {
            live.end = base.now();
            reject(ctx.signal.reason);
          }, options.stopAfterAbortMs);
        });
      });
    },
  });
  const common = { lease: "3s", heartbeat: "1s", leaseGrace: options.graceMs, storeTimeout: "30s" } as const;
  const nodeA = setup({ ...common, clock: base, store: a.store, node: "a" });
  const nodeB = setup({ ...common, clock: skewed(base, options.skewMs), store: shared, node: "b" });
  nodeA.scheduler.job("once", spec("a"));
  nodeB.scheduler.job("once", spec("b"));
  await nodeA.scheduler.tick(T0 - MIN + 1);
  await base.set(T0);
  void nodeA.scheduler.tick(T0);
  await base.settle();
  assert.equal(lives.length, 1, "A runs the slot");
  // A few healthy renewals, then A's store stops answering mid-run.
  await base.advance(2_500);
  a.fail(options.how);
  let bothHeld = 0;
  for (let step = 0; step < 1_200 && lives.filter((l) => l.node === "b").length === 0; step++) {
    if (step % 10 === 0) void nodeB.scheduler.tick();
    await base.advance(50);
    const live = lives.filter((l) => l.end === undefined);
    if (live.length === 2 && live.every((l) => l.ctx.lease.held)) bothHeld++;
  }
  const runA = lives.find((l) => l.node === "a")!;
  const runB = lives.find((l) => l.node === "b");
  await base.advance(5 * SEC);
  return { runA, runB, bothHeld, shared };
}

describe("fencing: held ends before any other node can see the lease end", () => {
  for (const how of ["hang", "throw"] as const) {
    it(`store ${how}s for the running node, the other node 1.5 s ahead: A aborts and reports held false before B starts`, async () => {
      const { runA, runB, bothHeld, shared } = await scenario({
        how,
        skewMs: 1_500,
        graceMs: 2_000,
        stopAfterAbortMs: 0,
      });
      assert.ok(runB !== undefined, "B re-ran the slot after A's lease ended");
      assert.ok(
        runA.abortedAt !== undefined && runA.abortedAt < runB.start,
        `A aborted at ${runA.abortedAt}, B started at ${runB.start}`,
      );
      assert.equal(runA.ctx.lease.held, false);
      assert.equal(bothHeld, 0, "never both handlers live and both held");
      // The stored end is the fence + grace; B (1.5 s ahead) sees it end 0.5 s after A's fence.
      assert.ok(runB.start - runA.abortedAt >= 500 - 1, `gap ${runB.start - runA.abortedAt} ms`);
      const [row] = await rows(shared, "once");
      assert.deepEqual([row!.status, row!.attempt, row!.node], ["ok", 2, "b"]);
    });
  }

  // Many manual-clock steps: more than Bun's default 5 s per test on a loaded machine.
  it(
    "a handler that winds down within leaseGrace − skew of its abort never overlaps the re-run (grace 30 s, lease 3 s)",
    {
      timeout: 60_000,
    },
    async () => {
      const { runA, runB, bothHeld } = await scenario({
        how: "hang",
        skewMs: 1_500,
        graceMs: 30_000,
        stopAfterAbortMs: 25_000,
      });
      assert.ok(runB !== undefined);
      assert.equal(bothHeld, 0);
      assert.ok(runA.end !== undefined && runA.end <= runB.start, `A ended at ${runA.end}, B started at ${runB.start}`);
      // A aborted within a lease of its last confirmed renewal (T0 + 2 s), not at the stored end 30 s later.
      assert.ok(runA.abortedAt! <= T0 + 2 * SEC + 3 * SEC, `A aborted ${runA.abortedAt! - T0} ms after the slot`);
    },
  );

  it("`held` turns false at the fence and never true again; `until` is that fence", async () => {
    const { runA } = await scenario({ how: "throw", skewMs: 0, graceMs: 2_000, stopAfterAbortMs: 0 });
    assert.equal(runA.abortedAt, runA.ctx.lease.until, "the signal aborts exactly at the fence");
    assert.equal(runA.ctx.lease.held, false);
  });

  it("a handler's lease view first read after a retry began is still its own attempt's: not held", async () => {
    const s = setup({ start: T0 + 1 });
    const seen: RunContext[] = [];
    s.scheduler.job("flaky", {
      schedule: "* * * * *",
      retries: { attempts: 2, backoff: "1s" },
      run: (ctx) => {
        seen.push(ctx);
        if (ctx.attempt === 1) throw new Error("first try fails");
        // Attempt 2 holds its lease for a while: the claim is held, now for attempt 2.
        return new Promise<void>((resolve) => s.clock.setTimeout(resolve, 5 * SEC));
      },
    });
    s.scheduler.start();
    await s.clock.set(T0 + MIN + 2 * SEC);
    assert.deepEqual(seen.map((c) => c.attempt), [1, 2]);
    // The first attempt's context had never read its lease; read now, it is attempt 1's and not held.
    const first = seen[0]!.lease;
    assert.equal(first.attempt, 1);
    assert.equal(first.held, false);
    assert.equal(seen[1]!.lease.attempt, 2);
    assert.equal(seen[1]!.lease.held, true);
    await s.clock.set(T0 + MIN + 10 * SEC);
    await s.scheduler.stop();
  });
});

describe("fencing: a run whose lease ended is left to the reaper", () => {
  it("an attempt that fails after its fence writes no outcome: the reaper records it abandoned and runs the retry", async () => {
    // Written here whenever the store still took it, the same freeze ended `error` at
    // attempt 1 of 3 and was never retried; reaped first, it was retried. Now alike.
    const store = faultyStore();
    const s = setup({ store, lease: "6s", heartbeat: "2s", leaseGrace: "2s" });
    const attempts: number[] = [];
    s.scheduler.job("job", {
      schedule: "* * * * *",
      retries: { attempts: 3, backoff: "1s" },
      run: (ctx) => {
        attempts.push(ctx.attempt);
        if (ctx.attempt > 1) return;
        return new Promise<void>((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
      },
    });
    await tickAt(s, T0 + 1);
    store.failNext("renew", 1000); // renewals do not land: the fence passes mid-run
    await s.clock.set(T0 + MIN);
    const first = s.scheduler.tick(T0 + MIN);
    await s.clock.advance(10 * SEC);
    await first;
    store.failNext("renew", -1000);
    const row = await s.store.getRun("job", T0 + MIN);
    assert.deepEqual([row!.status, row!.attempt], ["running", 1], "no outcome written after the fence");
    const failed = s.events.filter((e) => e.type === "failed");
    assert.deepEqual(failed.map((e) => e.type === "failed" && e.willRetry), [false]);
    assert.ok(
      s.events.some((e) =>
        e.type === "lost" && "reason" in e &&
        /reaps the row records it abandoned, and runs it again if attempts are left/.test(e.reason)
      ),
    );
    await s.clock.set(T0 + MIN + 20 * SEC);
    await s.scheduler.tick(T0 + MIN + 20 * SEC);
    await s.clock.advance(SEC);
    const [final] = await rows(s.store, "job");
    assert.deepEqual([final!.status, final!.attempt], ["ok", 2]);
    assert.deepEqual(attempts, [1, 2]);
  });
});

/** Every 30 s; its first attempt never ends, its second at once. Each start is noted in `starts`. */
function slowJob(starts: { node: string; attempt: number; at: number }[], node: string, clock: ManualClock) {
  return {
    schedule: "*/30 * * * * *",
    retries: { attempts: 2 },
    run: (ctx: RunContext) => {
      starts.push({ node, attempt: ctx.attempt, at: clock.now() });
      return ctx.attempt === 1 ? new Promise<void>(() => {}) : undefined;
    },
  };
}

describe("timer mode: a dead node's slot is re-run when its lease ends", () => {
  it("the surviving node wakes just after the stored lease end, not at the job's next slot", async () => {
    // It reaped at its next tick only: a `*/30 * * * * *` job was re-run 28 s after a kill,
    // past the documented lease + leaseGrace, and the re-run, still live, cost the next slot.
    const base = createManualClock(T0 - 30 * SEC + 1);
    const shared = createMemoryStore();
    const stores = { a: breakable(shared), b: breakable(shared) };
    const starts: { node: string; attempt: number; at: number }[] = [];
    const common = { lease: "6s", heartbeat: "2s", leaseGrace: "2s" } as const;
    const nodes = (["a", "b"] as const).map((node) => {
      const s = setup({ ...common, clock: base, store: stores[node].store, node });
      s.scheduler.job("slow", slowJob(starts, node, base));
      return s;
    });
    for (const s of nodes) s.scheduler.start();
    await base.settle();
    await base.set(T0);
    await base.settle();
    assert.equal(starts.length, 1, "one node runs the slot");
    const dead = starts[0]!.node as "a" | "b";
    await base.advance(3 * SEC); // a renewal or so lands
    stores[dead].fail("hang"); // then that node is gone
    const diedAt = base.now();
    for (let i = 0; i < 40 && starts.length < 2; i++) await base.advance(500);
    const rerun = starts[1];
    assert.ok(rerun !== undefined, "the slot was run again");
    assert.equal(rerun.attempt, 2);
    assert.notEqual(rerun.node, dead);
    // The last renewal landed at most a heartbeat before the death; its stored end is a
    // lease + grace after it (8 s), and the survivor reaps within the step that passes it.
    assert.ok(rerun.at - diedAt <= 8 * SEC + 500, `re-run ${rerun.at - diedAt} ms after the death`);
    assert.ok(rerun.at < T0 + 30 * SEC, "before the job's next slot");
    const survivor = nodes.find((s) => s.scheduler.node !== dead)!;
    await survivor.scheduler.stop({ grace: 0 });
  });
});

describe("timer mode: a row of an earlier process under the same node id", () => {
  it("is re-run once its lease ends, as another node's is (a restart under `node: hostname` after a kill)", async () => {
    // The lease wake looked only at other nodes' rows: the restarted process re-ran its
    // predecessor's slot at the 60 s clamp.
    const clock = createManualClock(T0 - 10 * SEC);
    const shared = createMemoryStore();
    const first = breakable(shared);
    const common = { lease: "6s", heartbeat: "2s", leaseGrace: "2s", node: "web-1", clock } as const;
    const starts: { attempt: number; at: number }[] = [];
    const job = {
      schedule: "0 * * * *",
      retries: { attempts: 2 },
      run: (ctx: RunContext) => {
        starts.push({ attempt: ctx.attempt, at: clock.now() });
        return ctx.attempt === 1 ? new Promise<void>(() => {}) : undefined;
      },
    };
    const p1 = setup({ ...common, store: first.store });
    p1.scheduler.job("hourly", job);
    p1.scheduler.start();
    await clock.set(T0 + SEC);
    assert.equal(starts.length, 1);
    first.fail("hang"); // killed; restarted under the same node id
    const diedAt = clock.now();
    const p2 = setup({ ...common, store: shared });
    p2.scheduler.job("hourly", job);
    p2.scheduler.start();
    for (let i = 0; i < 180 && starts.length < 2; i++) await clock.advance(500);
    assert.equal(starts[1]?.attempt, 2);
    assert.ok(starts[1]!.at - diedAt <= 8 * SEC + 500, `re-run ${starts[1]!.at - diedAt} ms after the death`);
    await p2.scheduler.stop({ grace: 0, deadline: 0 });
  });
});

describe("timer mode: a node that lost the claim to a node that then dies", () => {
  it("wakes when the winner's lease ends, though its snapshot was read before the winner's row existed", async () => {
    // The lease wake read only the snapshot, taken before the claims: the node that lost the
    // race never saw the winner's row and slept to the next slot (re-run 28 s after a kill).
    const base = createManualClock(T0 - 30 * SEC + 1);
    const shared = createMemoryStore();
    const a = breakable(shared);
    const b = { ...shared } as MemoryStore;
    let armed = false;
    let bRead!: () => void;
    let aClaimed!: () => void;
    const bHasRead = new Promise<void>((resolve) => (bRead = resolve));
    const aHasClaimed = new Promise<void>((resolve) => (aClaimed = resolve));
    // The slot's ticks interleave so: B reads its snapshot, then A claims (and wins), then B claims.
    b.snapshot = async (...args) => {
      const snapshot = await shared.snapshot(...args);
      if (armed) bRead();
      return snapshot;
    };
    b.claim = async (requests) => {
      if (armed) await aHasClaimed;
      return shared.claim(requests);
    };
    const aClaim = a.store.claim;
    a.store.claim = async (requests) => {
      if (armed) await bHasRead;
      const results = await aClaim(requests);
      if (armed) aClaimed();
      return results;
    };
    const starts: { node: string; attempt: number; at: number }[] = [];
    const common = { lease: "6s", heartbeat: "2s", leaseGrace: "2s", clock: base } as const;
    const nodes = (["a", "b"] as const).map((node) => {
      const s = setup({ ...common, store: node === "a" ? a.store : b, node });
      s.scheduler.job("slow", slowJob(starts, node, base));
      s.scheduler.start();
      return s;
    });
    await base.settle();
    armed = true;
    await base.set(T0);
    await base.settle();
    assert.deepEqual(starts.map((r) => r.node), ["a"], "A won the slot");
    assert.ok(ofType(nodes[1]!.events, "lost").length > 0, "B lost its claim");
    await base.advance(3 * SEC);
    a.fail("hang");
    const diedAt = base.now();
    for (let i = 0; i < 40 && starts.length < 2; i++) await base.advance(500);
    assert.deepEqual([starts[1]?.node, starts[1]?.attempt], ["b", 2]);
    assert.ok(starts[1]!.at - diedAt <= 8 * SEC + 500, `re-run ${starts[1]!.at - diedAt} ms after the death`);
    await nodes[1]!.scheduler.stop({ grace: 0, deadline: 0 });
  });
});
