import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../../src/core/errors.ts";
import { createManualClock } from "../../../src/engine/clock.ts";
import { withDeadline } from "../../../src/engine/store/deadline.ts";
import { createMemoryStore, type MemoryStore } from "../../../src/store/memory/mod.ts";
import { MIN, ofType, rows, setup, T0 } from "../_helpers.ts";

/** A memory store whose `snapshot` never answers while `hung` is set. */
function hangingStore(): MemoryStore & { hung: boolean } {
  const inner = createMemoryStore();
  const out = { ...inner, hung: false } as MemoryStore & { hung: boolean };
  out.snapshot = (names, now) => (out.hung ? new Promise(() => {}) : inner.snapshot(names, now));
  return out;
}

describe("withDeadline", () => {
  it("guards a method the port gains later (a store's extra async method) too", async () => {
    const clock = createManualClock(T0);
    const store = { ...createMemoryStore(), getSetting: () => new Promise<string>(() => {}) };
    const guarded = withDeadline(store, clock, 1_000) as typeof store;
    const refused = assert.rejects(guarded.getSetting(), /getSetting\(\) did not answer within/);
    await clock.advance(1_000);
    await refused;
  });

  it("rejects a call that does not answer in time with store-error naming the method", async () => {
    const clock = createManualClock(T0);
    const store = hangingStore();
    store.hung = true;
    const guarded = withDeadline(store, clock, 30_000);
    const pending = guarded.snapshot(["a"], T0);
    const outcome = pending.then(() => "answered", (e: unknown) => e);
    await clock.advance(29_999);
    await clock.advance(1);
    const error = await outcome;
    assert.ok(error instanceof SchedulerError);
    assert.equal(error.code, "store-error");
    assert.match(error.message, /snapshot\(\) did not answer within 30s/);
  });

  it("passes answers and errors through and leaves no timer behind", async () => {
    const clock = createManualClock(T0);
    const store = createMemoryStore();
    const guarded = withDeadline(store, clock, 30_000);
    assert.deepEqual(Object.keys((await guarded.snapshot(["a"], T0)).jobs), ["a"]);
    store.setFailing(true);
    await assert.rejects(guarded.listDefs(), /the store is set to fail/);
    assert.deepEqual(clock.pending(), []);
  });
});

describe("a store call that hangs", () => {
  it("fails the tick closed after storeTimeout, and the timer loop keeps ticking and catches up", async () => {
    const store = hangingStore();
    const ran: number[] = [];
    const s = setup({ store, storeTimeout: "10s", start: T0 + 1 });
    s.scheduler.job("minutely", { schedule: "* * * * *", run: ({ slot }) => void ran.push(slot) });
    await s.scheduler.tick();
    store.hung = true;
    s.scheduler.start();
    await s.clock.advance(MIN + 10_000);
    assert.equal(ran.length, 0);
    assert.ok(ofType(s.events, "store-error").some((e) => /did not answer within 10s/.test(e.error)));
    assert.equal((await s.scheduler.health()).ok, false);
    store.hung = false;
    await s.clock.advance(2 * MIN);
    await s.scheduler.stop({ grace: 0, deadline: 0 });
    assert.ok(ran.includes(T0 + 2 * MIN), `ran ${ran.map((t) => (t - T0) / MIN)}`);
    const records = await rows(store, "minutely");
    assert.equal(new Set(records.map((r) => r.slot)).size, records.length);
    assert.equal((await s.scheduler.health()).ok, true);
  });

  it("refuses a storeTimeout that is not a duration", () => {
    assert.throws(
      () => setup({ storeTimeout: "soon" }),
      (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && e.path === "storeTimeout",
    );
  });
});
