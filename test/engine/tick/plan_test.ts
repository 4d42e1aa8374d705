import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Schedule } from "../../../src/core/types.ts";
import { nextWake, planSlots } from "../../../src/engine/tick/plan.ts";
import type { PlanInput } from "../../../src/engine/tick/plan.ts";

const MIN = 60_000;
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);

/** A grid schedule every `step` ms from the epoch: the oracle is plain arithmetic. */
function grid(step: number): Schedule {
  const next = (after: number): number => (Math.floor(after / step) + 1) * step;
  return {
    kind: "every",
    timezone: "UTC",
    next,
    nextRuns: (after, n) => Array.from({ length: n }, (_, i) => next(after) + i * step),
    prev: (before) => (Math.ceil(before / step) - 1) * step,
    *between(from, to) {
      for (let s = next(from); s <= to; s += step) yield s;
    },
    toString: () => `every ${step}ms`,
    toJSON: () => ({ every: `${step}ms` }),
  };
}

const base = (over: Partial<PlanInput>): PlanInput => ({
  schedule: grid(MIN),
  catchUp: { mode: "latest", windowMs: 60 * MIN, toleranceMs: MIN },
  now: T0,
  watermark: undefined,
  firstSeen: T0 - 3 * 60 * MIN,
  paused: false,
  ...over,
});

describe("planSlots", () => {
  it("latest after a 3 h outage runs only the newest slot and marks the rest of the window missed", () => {
    const plan = planSlots(base({ watermark: T0 - 3 * 60 * MIN }));
    assert.deepEqual(plan.run, [T0]);
    assert.equal(plan.missed.length, 59);
    assert.equal(plan.missed[0], T0 - 59 * MIN);
    assert.equal(plan.missed.at(-1), T0 - MIN);
  });

  it("all after a 3 h outage runs every slot of the window oldest first", () => {
    const plan = planSlots(
      base({ watermark: T0 - 3 * 60 * MIN, catchUp: { mode: "all", windowMs: 60 * MIN, toleranceMs: MIN } }),
    );
    assert.equal(plan.run.length, 60);
    assert.equal(plan.run[0], T0 - 59 * MIN);
    assert.equal(plan.run.at(-1), T0);
    assert.deepEqual(plan.missed, []);
  });

  it("none runs only slots at most tolerance late", () => {
    const now = T0 + 30_000;
    const plan = planSlots(
      base({ now, watermark: T0 - 3 * 60 * MIN, catchUp: { mode: "none", windowMs: 60 * MIN, toleranceMs: MIN } }),
    );
    assert.deepEqual(plan.run, [T0]);
    assert.equal(plan.missed.length, 59);
    const late = planSlots(base({
      schedule: grid(5 * MIN),
      now: T0 + 90_000,
      watermark: T0 - 3 * 60 * MIN,
      catchUp: { mode: "none", windowMs: 60 * MIN, toleranceMs: MIN },
    }));
    assert.deepEqual(late.run, []);
    assert.equal(late.missed.length, 12);
  });

  it("starts after the watermark, and at firstSeen (closed) for a job never recorded", () => {
    const all = { mode: "all", windowMs: 60 * MIN, toleranceMs: 0 } as const;
    assert.deepEqual(planSlots(base({ watermark: T0 - 2 * MIN, catchUp: all })).run, [T0 - MIN, T0]);
    assert.deepEqual(planSlots(base({ firstSeen: T0 - MIN, catchUp: all })).run, [T0 - MIN, T0]);
    assert.deepEqual(planSlots(base({ firstSeen: T0 - MIN + 1, catchUp: all })).run, [T0]);
    // The registering tick at the slot's own instant (a trigger's scheduled time) runs it.
    assert.deepEqual(planSlots(base({ firstSeen: T0 })).run, [T0]);
    assert.deepEqual(planSlots(base({ firstSeen: T0 + 1, now: T0 + 30_000 })).run, []);
    // A watermark stays an open bound.
    assert.deepEqual(planSlots(base({ watermark: T0, firstSeen: T0 })).run, []);
  });

  it("plans nothing when the watermark is now", () => {
    assert.deepEqual(planSlots(base({ watermark: T0 })), { run: [], missed: [], dropped: 0 });
  });

  it("a paused job records every slot of the window missed and runs none", () => {
    const plan = planSlots(
      base({ watermark: T0 - 10 * MIN, paused: true, catchUp: { mode: "all", windowMs: 60 * MIN, toleranceMs: MIN } }),
    );
    assert.deepEqual(plan.run, []);
    assert.equal(plan.missed.length, 10);
  });

  it("caps slots per tick: all takes the oldest, latest the newest and counts the dropped", () => {
    const schedule = grid(1_000);
    const catchUp = { windowMs: 60 * MIN, toleranceMs: 0 };
    const all = planSlots(base({ schedule, maxSlots: 100, catchUp: { mode: "all", ...catchUp } }));
    assert.equal(all.run.length, 100);
    assert.equal(all.run[0], T0 - 60 * MIN + 1_000);
    assert.equal(all.dropped, 0);
    const latest = planSlots(base({ schedule, maxSlots: 100, catchUp: { mode: "latest", ...catchUp } }));
    assert.deepEqual(latest.run, [T0]);
    assert.equal(latest.missed.length, 99);
    assert.equal(latest.missed[0], T0 - 99_000);
    assert.equal(latest.dropped, 3_600 - 100);
  });
});

describe("nextWake", () => {
  it("is the earliest next slot of all schedules", () => {
    const seven = grid(7_000).next(T0 + 1)!;
    assert.ok(seven < T0 + MIN);
    assert.equal(nextWake([grid(MIN), grid(7_000)], T0 + 1), seven);
    assert.equal(nextWake([grid(MIN)], T0 + 1), T0 + MIN);
    assert.equal(nextWake([], T0), undefined);
  });
});

describe("planSlots on the engine's own schedules (next() for none or one slot due, between() beyond)", () => {
  it("plans what between() yields, in every catch-up mode, across DST changes and windows of 0, 1, 2 and many slots", async () => {
    const { schedule } = await import("../../../src/core/mod.ts");
    const specs = [
      "* * * * *",
      { cron: "30 2 * * *", timezone: "America/New_York" },
      { cron: "*/15 1-2 * * *", timezone: "Europe/London" },
      { every: "90s" },
      { at: Date.UTC(2030, 2, 10, 7, 0) },
    ];
    // Around New York's spring-forward (2030-03-10) and London's fall-back (2030-10-27).
    const nows = [Date.UTC(2030, 2, 10, 7, 1), Date.UTC(2030, 2, 11, 7, 0), Date.UTC(2030, 9, 27, 1, 31)];
    const lags = [0, 1_000, MIN, 90_000, 2 * MIN + 1, 45 * MIN, 26 * 60 * MIN];
    let checked = 0;
    for (const spec of specs) {
      const s = schedule(spec as Parameters<typeof schedule>[0]);
      for (const now of nows) {
        for (const lag of lags) {
          for (const mode of ["latest", "all", "none"] as const) {
            const input = base({
              schedule: s,
              now,
              watermark: now - lag,
              catchUp: { mode, windowMs: 30 * 60 * MIN, toleranceMs: MIN },
            });
            const plan = planSlots({ ...input, maxSlots: 3 });
            const all = [...s.between(now - lag, now)];
            const kept = mode === "all" ? all.slice(0, 3) : all.slice(-3);
            assert.deepEqual(
              [...plan.missed, ...plan.run].sort((a, b) => a - b),
              kept,
              `${JSON.stringify(spec)} now ${now} lag ${lag} ${mode}`,
            );
            assert.equal(plan.dropped, mode === "all" ? 0 : Math.max(0, all.length - 3));
            checked++;
          }
        }
      }
    }
    assert.equal(checked, 315);
  });
});
