import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { jitterDelay } from "../../../src/core/mod.ts";
import { startOf, startsOf } from "../../../src/engine/tick/jitter.ts";
import { cron } from "../../../src/core/mod.ts";
import { HOUR, MIN, rows, setup, T0, tickAt } from "../_helpers.ts";

const job = { name: "spread", schedule: cron("0 * * * *"), jitterMs: 20 * MIN };
const delay = (slot: number): number => jitterDelay("spread", slot, 20 * MIN, HOUR);

describe("jitter in the tick", () => {
  it("startsOf() gives each slot's jittered start, in order", () => {
    const starts = startsOf(job).nextRuns(T0 - 1, 4);
    assert.deepEqual(starts, [0, 1, 2, 3].map((h) => T0 + h * HOUR + delay(T0 + h * HOUR)));
    // Between a slot and its start, next() is that start.
    assert.equal(startsOf(job).next(T0), starts[0]);
    assert.equal(startsOf(job).prev(starts[1]!), starts[0]);
    assert.equal(startOf(job, T0), starts[0]);
  });

  it("timer mode sleeps until the jittered start; ctx.slot and the row keep the slot, the row records the start", async () => {
    const s = setup({ start: T0 - MIN });
    const seen: [number, number][] = [];
    s.scheduler.job("spread", {
      schedule: "0 * * * *",
      jitter: "20m",
      run: (ctx) => void seen.push([ctx.slot, s.clock.now()]),
    });
    s.scheduler.start();
    await s.clock.advance(1);
    for (let i = 0; i < 3 * 60; i++) await s.clock.advance(MIN);
    await s.scheduler.stop();
    const expected = [0, 1, 2].map((h) => [T0 + h * HOUR, T0 + h * HOUR + delay(T0 + h * HOUR)]);
    assert.deepEqual(seen.map(([slot]) => slot), expected.map(([slot]) => slot));
    // The clock steps a minute at a time after the first wake; the timer itself wakes at the start.
    const recorded = await rows(s.store, "spread");
    assert.deepEqual(recorded.map((r) => [r.slot, r.startedAt]), expected);
    assert.ok(
      expected.some(([slot, start]) => start! - slot! > MIN),
      "some delay must exceed a minute for this test to mean anything",
    );
  });

  it("a tick at the slot leaves it for the tick at its start", async () => {
    const s = setup({ start: T0 - MIN });
    const ran: number[] = [];
    s.scheduler.job("spread", { schedule: "0 * * * *", jitter: "20m", run: (ctx) => void ran.push(ctx.slot) });
    await tickAt(s, T0 - MIN);
    const start = T0 + delay(T0);
    assert.ok(start > T0);
    const early = await tickAt(s, T0);
    assert.deepEqual(early.jobs["spread"]?.planned ?? [], []);
    await tickAt(s, start - 1);
    assert.deepEqual(ran, []);
    await tickAt(s, start);
    assert.deepEqual(ran, [T0]);
  });

  it("two schedulers on separate stores start the same slot at the same instant", async () => {
    const starts: number[][] = [];
    for (const node of ["a", "b"]) {
      const s = setup({ start: T0 - MIN, node });
      const seen: number[] = [];
      s.scheduler.job("spread", { schedule: "*/5 * * * *", jitter: "4m", run: () => void seen.push(s.clock.now()) });
      s.scheduler.start();
      await s.clock.advance(1);
      for (let i = 0; i < 60; i++) await s.clock.advance(MIN);
      await s.scheduler.stop();
      starts.push(seen);
    }
    assert.equal(starts[0]!.length, 12);
    assert.deepEqual(starts[0], starts[1]);
  });

  it("run-ahead starts a jittered slot inside the trigger's minute and leaves a later start to the next trigger", async () => {
    const s = setup({ start: T0 - MIN });
    const ran: number[] = [];
    s.scheduler.job("spread", { schedule: "* * * * *", jitter: "50s", run: (ctx) => void ran.push(ctx.slot) });
    await tickAt(s, T0 - MIN + 1);
    await s.clock.set(T0);
    const pending = s.scheduler.tick(T0, { until: T0 + MIN });
    for (let i = 0; i < 60; i++) await s.clock.advance(1000);
    await pending;
    assert.deepEqual(ran, [T0]);
    const recorded = await rows(s.store, "spread");
    assert.equal(recorded.length, 1);
    assert.equal(recorded[0]!.startedAt, T0 + jitterDelay("spread", T0, 50_000, MIN));
    // The slot at T0 + 1 min starts after the trigger's minute: the next trigger takes it.
    const next = T0 + MIN + jitterDelay("spread", T0 + MIN, 50_000, MIN);
    const again = s.scheduler.tick(T0 + MIN, { until: T0 + 2 * MIN });
    for (let i = 0; i < 60; i++) await s.clock.advance(1000);
    await again;
    assert.deepEqual(ran, [T0, T0 + MIN]);
    assert.equal((await rows(s.store, "spread"))[1]!.startedAt, next);
  });
});
