// maxRuns in the engine: the plan's trim and get() count pruned runs, and the store's
// refusal (outcome "limit") leaves no row and no run.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { HOUR, MIN, rows, setup, T0, tickAt } from "../_helpers.ts";
import { remainingRuns } from "../../../src/engine/tick/max_runs.ts";
import type { ClaimRequest, ClaimResult, Store } from "../../../src/store/types.ts";
import type { MemoryStore } from "../../../src/store/memory/mod.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";

describe("maxRuns and pruning", () => {
  it("a job at its limit stays completed after maxRows prunes its counted rows", async () => {
    const s = setup({ start: T0 - MIN + 1 });
    const ran: number[] = [];
    s.scheduler.job("twice", { schedule: "* * * * *", maxRuns: 2, maxRows: 1, run: (ctx) => void ran.push(ctx.slot) });
    await tickAt(s, T0 - MIN + 1);
    await tickAt(s, T0);
    await tickAt(s, T0 + MIN);
    // Two hours on: this tick plans nothing (2 used) and prunes the older row afterwards.
    await tickAt(s, T0 + 2 * HOUR);
    assert.deepEqual((await rows(s.store, "twice")).map((r) => (r.slot - T0) / MIN), [1]);
    assert.equal((await s.store.read(["twice"])).jobs["twice"]?.prunedRuns, 1);
    for (const at of [T0 + 2 * HOUR + MIN, T0 + 3 * HOUR]) await tickAt(s, at);
    assert.deepEqual(ran, [T0, T0 + MIN]);
    const info = await s.scheduler.get("twice");
    assert.deepEqual([info?.state, info?.remainingRuns], ["completed", 0]);
  });

  it("remainingRuns counts pruned runs beside the retained counts and open rows", () => {
    assert.equal(remainingRuns(5, { ok: 1, error: 1, skipped: 4, missed: 3 }, 1), 2);
    assert.equal(remainingRuns(5, { ok: 1, error: 1 }, 1, 2), 0);
    assert.equal(remainingRuns(5, undefined, 0, 7), 0, "never below 0");
  });
});

describe("maxRuns refused by the store", () => {
  it("a claim the store refuses (limit) runs nothing and writes no row, even when the node's read said one was left", async () => {
    const inner = createMemoryStore();
    const seen: ClaimResult[] = [];
    // A store whose counts() lags (as a read before another node's claim would): the plan keeps the slot.
    const store: Store = {
      ...inner,
      counts: async (names) => Object.fromEntries(names.map((n) => [n, {} as never])),
      async claim(requests: readonly ClaimRequest[]): Promise<ClaimResult[]> {
        const results = await inner.claim(requests);
        seen.push(...results);
        return results;
      },
    };
    const s = setup({ store: store as unknown as MemoryStore, start: T0 - MIN + 1 });
    const ran: number[] = [];
    s.scheduler.job("once", { schedule: "* * * * *", maxRuns: 1, run: (ctx) => void ran.push(ctx.slot) });
    await tickAt(s, T0 - MIN + 1);
    await tickAt(s, T0);
    const report = await tickAt(s, T0 + MIN);
    assert.deepEqual(ran, [T0]);
    assert.deepEqual(seen.map((r) => [(r.slot - T0) / MIN, r.outcome]), [[0, "won"], [1, "limit"]]);
    assert.deepEqual(report.jobs["once"]?.won, []);
    assert.deepEqual((await rows(inner, "once")).map((r) => [(r.slot - T0) / MIN, r.status]), [[0, "ok"]]);
  });
});

describe("maxRuns and backfill", () => {
  it("a backfill stops at the limit: buffered slots past it end skipped, direct claims are listed, nothing hangs", async () => {
    const s = setup({ start: T0 + HOUR });
    const ran: number[] = [];
    s.scheduler.job("j", { schedule: "0 * * * *", maxRuns: 2, run: (ctx) => void ran.push(ctx.slot) });
    // bufferAll (the default): each slot is enqueued, then started by promote(), which checks the limit.
    const buffered = await s.scheduler.backfill("j", { from: T0 - 4 * HOUR, to: T0 - HOUR });
    assert.deepEqual(ran, [T0 - 4 * HOUR, T0 - 3 * HOUR]);
    assert.deepEqual(Object.values(buffered.outcomes), ["ok", "ok", "skipped"]);
    // The third slot did not run: the report says so instead of listing it under `ran`.
    assert.deepEqual(buffered.ran, [T0 - 4 * HOUR, T0 - 3 * HOUR]);
    assert.deepEqual(buffered.skipped, [{ slot: T0 - 2 * HOUR, reason: "maxRuns" }]);
    const third = await s.store.getRun("j", T0 - 2 * HOUR);
    assert.deepEqual([third?.status, third?.error], ["skipped", "maxRuns reached"]);
    // skip: claimed directly, refused by the store with no row.
    const direct = await s.scheduler.backfill("j", { from: T0 - HOUR, to: T0 + 1, overlap: "skip" });
    assert.deepEqual(direct.skipped, [{ slot: T0 - HOUR, reason: "maxRuns" }, { slot: T0, reason: "maxRuns" }]);
    assert.equal(await s.store.getRun("j", T0), undefined);
    assert.equal(ran.length, 2);
  });
});
