// Adversarial: timer mode against itself — start() twice, stop() racing start(),
// timer wakes overlapping manual ticks, and clocks that jump.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../src/store/memory/mod.ts";
import type { Store } from "../../src/store/types.ts";
import { deferred, HOUR, MIN, ofType, rows, SEC, setup, T0, tally, tickAt } from "./_helpers.ts";

/** A memory store whose snapshot() waits on `gate` while one is set. */
function gatedStore(): { store: Store & { setFailing(f: boolean): void }; hold(): () => void } {
  const inner = createMemoryStore();
  let gate: Promise<void> | undefined;
  const store = {
    ...inner,
    async snapshot(names: readonly string[], now: number) {
      if (gate !== undefined) await gate;
      return inner.snapshot(names, now);
    },
  };
  return {
    store,
    hold() {
      const d = deferred();
      gate = d.promise;
      return () => {
        gate = undefined;
        d.resolve();
      };
    },
  };
}

describe("adversarial: timer mode", () => {
  it("start() twice arms one timer chain", async () => {
    const s = setup({ start: T0 + 1 });
    const slots: number[] = [];
    s.scheduler.job("x", { schedule: "* * * * *", run: (ctx) => void slots.push(ctx.slot) });
    s.scheduler.start();
    s.scheduler.start();
    await s.clock.set(T0 + 3 * MIN);
    assert.equal(s.clock.pending().length, 1);
    assert.equal(ofType(s.events, "tick").length, 4);
    assert.deepEqual(slots, [T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN]);
    await s.scheduler.stop();
    assert.equal(s.clock.pending().length, 0);
  });

  it("stop() then start() while a wake is still planning leaves one timer chain, not two", async () => {
    const { store, hold } = gatedStore();
    const s = setup({ store: store as ReturnType<typeof createMemoryStore> });
    s.scheduler.job("x", { schedule: "* * * * *", run: () => {} });
    const release = hold();
    s.scheduler.start(); // its first tick waits in snapshot()
    await s.clock.settle();
    const stopping = s.scheduler.stop();
    s.scheduler.start();
    release();
    await stopping;
    await s.clock.settle();
    assert.equal(s.clock.pending().length, 1, "one armed timer");
    await s.clock.set(T0 + 5 * MIN);
    assert.equal(s.clock.pending().length, 1, "still one armed timer");
    // One tick at start, the one left over from before stop(), then one per minute.
    assert.ok(ofType(s.events, "tick").length <= 7, `${ofType(s.events, "tick").length} ticks`);
    await s.scheduler.stop();
    assert.equal(s.clock.pending().length, 0);
  });

  it("timer wakes and manual ticks overlapping in time run each slot once", async () => {
    const s = setup({ start: T0 + 1 });
    const slots: number[] = [];
    const gate = deferred();
    s.scheduler.job("slow", {
      schedule: "* * * * * *",
      overlap: "allow",
      catchUp: { mode: "all" },
      run: async (ctx) => {
        slots.push(ctx.slot);
        await gate.promise;
      },
    });
    s.scheduler.start();
    for (let i = 1; i <= 30; i++) {
      const manual = s.scheduler.tick(); // same instant as the timer wake, racing it
      await s.clock.advance(SEC);
      void manual;
    }
    gate.resolve();
    await s.scheduler.stop();
    assert.equal(slots.length, new Set(slots).size, "no slot ran twice");
    assert.deepEqual(slots.sort((a, b) => a - b), Array.from({ length: 30 }, (_, i) => T0 + (i + 1) * SEC));
    assert.deepEqual(tally(await rows(s.store, "slow")), { ok: 30 });
  });

  it("stop() during a tick's claims waits for them and arms nothing afterwards", async () => {
    const { store, hold } = gatedStore();
    const s = setup({ store: store as ReturnType<typeof createMemoryStore>, start: T0 + 1 });
    const slots: number[] = [];
    s.scheduler.job("x", { schedule: "* * * * *", run: (ctx) => void slots.push(ctx.slot) });
    s.scheduler.start();
    await s.clock.settle();
    const release = hold();
    await s.clock.set(T0 + MIN);
    let stopped = false;
    const stopping = s.scheduler.stop().then(() => (stopped = true));
    await s.clock.settle();
    assert.equal(stopped, false);
    release();
    await stopping;
    assert.deepEqual(slots, [T0 + MIN]);
    assert.equal(s.clock.pending().length, 0);
    await s.clock.set(T0 + 5 * MIN);
    assert.deepEqual(slots, [T0 + MIN]);
  });
});

describe("adversarial: clock jumps", () => {
  it("a clock going backwards never re-runs or pre-runs a slot", async () => {
    const s = setup();
    const slots: number[] = [];
    s.scheduler.job("x", { schedule: "* * * * *", run: (ctx) => void slots.push(ctx.slot) });
    await tickAt(s, T0 + 1);
    await tickAt(s, T0 + 10 * MIN);
    for (const back of [T0 + 9 * MIN, T0 + 5 * MIN, T0 - HOUR, T0 + 10 * MIN]) await s.scheduler.tick(back);
    await tickAt(s, T0 + 11 * MIN);
    assert.deepEqual(slots, [T0 + 10 * MIN, T0 + 11 * MIN]);
    assert.deepEqual(tally(await rows(s.store, "x")), { missed: 9, ok: 2 });
  });

  it("every: 1s after a day of downtime plans one window, and the next tick carries on from it", async () => {
    const s = setup();
    const slots: number[] = [];
    s.scheduler.job("sec", {
      schedule: { every: "1s" },
      catchUp: { mode: "latest", window: "1h" },
      run: (ctx) => void slots.push(ctx.slot),
    });
    await tickAt(s, T0 + 1);
    const report = await tickAt(s, T0 + 24 * HOUR);
    assert.deepEqual(slots, [T0 + 24 * HOUR]);
    assert.equal(report.jobs["sec"]!.missed.length, 3599);
    await tickAt(s, T0 + 24 * HOUR + 2 * SEC);
    assert.deepEqual(slots, [T0 + 24 * HOUR, T0 + 24 * HOUR + 2 * SEC]);
    const counts = (await s.store.counts(["sec"]))["sec"]!;
    assert.deepEqual([counts.missed, counts.ok, counts.running], [3600, 2, 0]);
  });

  it("latest over more than 10 000 slots in the window records the newest 10 000 and logs how many it could not", async () => {
    const s = setup();
    s.scheduler.job("sec", { schedule: { every: "1s" }, catchUp: { mode: "latest", window: "1d" }, run: () => {} });
    await tickAt(s, T0 + 1);
    const report = await tickAt(s, T0 + 6 * HOUR);
    assert.deepEqual(report.jobs["sec"]!.run, [T0 + 6 * HOUR]);
    assert.equal(report.jobs["sec"]!.missed.length, 9_999);
    assert.equal(report.jobs["sec"]!.missed[0], T0 + 6 * HOUR - 9_999 * SEC);
    assert.ok(
      s.logger.lines.includes(`warn job "sec": ${6 * 3600 - 10_000} slots too far behind to plan were not recorded`),
      s.logger.lines.join("\n"),
    );
  });

  it("catchUp all over more than 10 000 slots runs them oldest first over several ticks, none twice, none lost", async () => {
    const s = setup();
    const slots: number[] = [];
    s.scheduler.job("sec", {
      schedule: { every: "1s" },
      timeout: "1s",
      overlap: "allow",
      catchUp: { mode: "all", window: "4h" },
      run: (ctx) => void slots.push(ctx.slot),
    });
    await tickAt(s, T0 + 1);
    const first = await tickAt(s, T0 + 3 * HOUR);
    assert.equal(first.jobs["sec"]!.run.length, 10_000);
    for (let i = 1; i <= 2; i++) await s.scheduler.tick();
    assert.equal(slots.length, 3 * HOUR / SEC);
    assert.equal(new Set(slots).size, slots.length);
    assert.equal(slots.at(-1), T0 + 3 * HOUR);
  });
});
