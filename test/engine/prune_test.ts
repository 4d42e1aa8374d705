import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../src/store/memory/mod.ts";
import type { Store } from "../../src/store/types.ts";
import { HOUR, MIN, setup, T0, tickAt } from "./_helpers.ts";

const DAY = 24 * HOUR;

function pruneSpy(): { store: ReturnType<typeof createMemoryStore>; calls: number[] } {
  const inner = createMemoryStore();
  const calls: number[] = [];
  const store: Store = {
    ...inner,
    prune: (before) => {
      calls.push(before);
      return inner.prune(before);
    },
  };
  return { store: store as ReturnType<typeof createMemoryStore>, calls };
}

describe("pruning", () => {
  it("prunes after a tick at most once an hour, keeping 7 days by default", async () => {
    const { store, calls } = pruneSpy();
    const s = setup({ store });
    s.scheduler.job("x", { schedule: "* * * * *", run: () => {} });
    await tickAt(s, T0);
    await tickAt(s, T0 + 30 * MIN);
    await tickAt(s, T0 + HOUR - 1);
    await tickAt(s, T0 + HOUR);
    assert.deepEqual(calls, [T0 - 7 * DAY, T0 + HOUR - 7 * DAY]);
  });

  it("never keeps less than the longest catch-up window", async () => {
    const { store, calls } = pruneSpy();
    const s = setup({ store, retention: "1d" });
    s.scheduler.job("x", { schedule: "* * * * *", catchUp: { mode: "all", window: "30d" }, run: () => {} });
    await tickAt(s, T0);
    assert.deepEqual(calls, [T0 - 30 * DAY]);
  });

  it("finished rows older than the retention are gone, recent ones stay", async () => {
    const s = setup({ retention: "2h" });
    s.scheduler.job("x", { schedule: "0 * * * *", run: () => {} });
    await tickAt(s, T0);
    for (let h = 1; h <= 5; h++) await tickAt(s, T0 + h * HOUR);
    const slots = (await s.store.runs("x")).map((r) => (r.slot - T0) / HOUR);
    assert.deepEqual(slots, [5, 4, 3]);
  });
});
