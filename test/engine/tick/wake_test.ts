import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Schedule } from "../../../src/core/types.ts";
import { nextWake } from "../../../src/engine/tick/plan.ts";
import { createWakeCache } from "../../../src/engine/tick/wake.ts";

const MIN = 60_000;
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);

/** A grid schedule every `step` ms from `offset`, counting its next() calls. */
function grid(step: number, offset = 0): Schedule & { calls: number } {
  const next = (after: number): number => Math.floor((after - offset) / step + 1) * step + offset;
  const s = {
    calls: 0,
    kind: "every" as const,
    timezone: "UTC",
    next(after: number) {
      s.calls++;
      return next(after);
    },
    nextRuns: (after: number, n: number) => Array.from({ length: n }, (_, i) => next(after) + i * step),
    prev: (before: number) => Math.ceil((before - offset) / step - 1) * step + offset,
    *between(from: number, to: number) {
      for (let t = next(from); t <= to; t += step) yield t;
    },
    toString: () => `every ${step}ms`,
    toJSON: () => ({ every: `${step}ms` }),
  };
  return s;
}

describe("createWakeCache()", () => {
  it("steps only the schedules whose slot came due, and agrees with nextWake", () => {
    const minute = grid(MIN);
    const hour = grid(60 * MIN);
    const wakes = createWakeCache();
    const all = [minute, hour];
    for (const now of [T0 + 1, T0 + 2, T0 + 30_000, T0 + MIN, T0 + MIN + 5, T0 + 2 * MIN]) {
      const cached = wakes.next(now, 1, () => all);
      assert.equal(cached, nextWake(all, now), `at ${now - T0}`);
    }
    // Built at T0+1 (one call each), then the minute schedule again when its slot came due.
    assert.equal(hour.calls, 1 + 6, "the hourly schedule was stepped once by the cache (6 by nextWake)");
    assert.equal(minute.calls, 3 + 6);
  });

  it("re-reads the schedules when the version changes, and rebuilds after the clock steps back", () => {
    const minute = grid(MIN);
    const seven = grid(7_000);
    const wakes = createWakeCache();
    let reads = 0;
    const source = (list: Schedule[]) => () => {
      reads++;
      return list;
    };
    assert.equal(wakes.next(T0 + 1, 1, source([minute])), T0 + MIN);
    assert.equal(wakes.next(T0 + 2, 1, source([minute, seven])), T0 + MIN, "same version: the set is not re-read");
    assert.equal(reads, 1);
    assert.equal(wakes.next(T0 + 3, 2, source([minute, seven])), seven.next(T0 + 3), "a new version re-reads it");
    assert.equal(wakes.next(T0 - MIN + 1, 2, source([minute])), T0, "stepped back a minute");
    assert.equal(reads, 3);
  });

  it("asks a schedule that throws again at every call, and leaves out one with no next slot", () => {
    const wakes = createWakeCache();
    let broken = true;
    const flaky = grid(7_000);
    const inner = flaky.next;
    flaky.next = (after: number) => {
      if (broken) throw new Error("boom");
      return inner(after);
    };
    const done: Schedule = { ...grid(MIN), next: () => null };
    const minute = grid(MIN);
    assert.equal(wakes.next(T0 + 1, 1, () => [flaky, done, minute]), T0 + MIN);
    broken = false;
    assert.equal(wakes.next(T0 + 2, 1, () => [flaky, done, minute]), inner(T0 + 2));
  });

  it("agrees with nextWake over random schedules and instants", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ step: fc.integer({ min: 1, max: 600 }), offset: fc.integer({ min: 0, max: 599 }) }), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 40 }),
        (specs, steps) => {
          const schedules = specs.map(({ step, offset }) => grid(step * 1_000, offset * 1_000));
          const wakes = createWakeCache();
          let now = T0;
          for (const dt of steps) {
            now += dt;
            if (wakes.next(now, 1, () => schedules) !== nextWake(schedules, now)) return false;
          }
          return true;
        },
      ),
    );
  });

  it("advance() steps the slot's schedules in the lead, and answers the slot until it comes", () => {
    const minute = grid(MIN);
    const hour = grid(60 * MIN);
    const wakes = createWakeCache();
    const all = () => [minute, hour];
    const lead = T0 + MIN - 2_000;
    assert.equal(wakes.next(lead, 1, all), T0 + MIN);
    const before = minute.calls;
    wakes.advance(T0 + MIN, lead, 1, all);
    assert.equal(minute.calls, before + 1, "the minute schedule was stepped past its slot in the lead");
    // Until the slot: the slot (a tick ahead that failed re-arms for an ordinary tick at it).
    assert.equal(wakes.next(lead + 500, 1, all), T0 + MIN);
    // At the slot: the next one, with no schedule stepped again.
    const calls = minute.calls + hour.calls;
    assert.equal(wakes.next(T0 + MIN, 1, all), T0 + 2 * MIN);
    assert.equal(minute.calls + hour.calls, calls, "nothing stepped at the slot");
    assert.equal(wakes.next(T0 + MIN + 1, 1, all), nextWake(all(), T0 + MIN + 1));
  });

  it("sharing() counts the schedules whose next slot is the earliest, up to a limit, and none once advanced past it", () => {
    // 7 per minute, 5 per 2 minutes (their slots meet at even minutes), 3 hourly: shuffled into the heap.
    const schedules = [
      ...Array.from({ length: 7 }, () => grid(MIN)),
      ...Array.from({ length: 5 }, () => grid(2 * MIN)),
      ...Array.from({ length: 3 }, () => grid(60 * MIN)),
    ].map((schedule, i) => ({ schedule, order: (i * 7) % 15 })).sort((a, b) => a.order - b.order)
      .map(({ schedule }) => schedule);
    const wakes = createWakeCache();
    const all = () => schedules;
    // T0 is on the hour: the next slot, T0 + 1 min, is the minute schedules' only.
    assert.equal(wakes.next(T0, 1, all), T0 + MIN);
    assert.equal(wakes.sharing(T0 + MIN, 100), 7);
    assert.equal(wakes.sharing(T0 + MIN, 4), 4, "stops at the limit");
    assert.equal(wakes.sharing(T0 + 2 * MIN, 100), 0, "not the earliest slot");
    assert.equal(wakes.next(T0 + MIN, 1, all), T0 + 2 * MIN);
    assert.equal(wakes.sharing(T0 + 2 * MIN, 100), 12);
    assert.equal(wakes.next(T0 + 59 * MIN, 1, all), T0 + 60 * MIN);
    assert.equal(wakes.sharing(T0 + 60 * MIN, 100), 15);
    wakes.advance(T0 + 60 * MIN, T0 + 60 * MIN - 2_000, 1, all);
    assert.equal(wakes.sharing(T0 + 60 * MIN, 100), 0, "stepped past it in the lead");
  });

  it("advance() is undone by a clock stepped back or a new version, and ignored for a slot that is not next", () => {
    const minute = grid(MIN);
    const wakes = createWakeCache();
    const lead = T0 + MIN - 2_000;
    wakes.advance(T0 + MIN, lead, 1, () => [minute]);
    // Stepped back before the advance: the earliest slot after then, not the advanced one.
    assert.equal(wakes.next(T0 - 30_000, 1, () => [minute]), T0);
    wakes.advance(T0 + MIN, lead, 1, () => [minute]);
    // A job added meanwhile (new version) with a slot before the advanced one.
    const second = grid(1_000);
    assert.equal(wakes.next(lead + 1, 2, () => [minute, second]), T0 + MIN - 1_000);
    // Not the earliest slot: nothing is stepped, and the earliest still comes first.
    const fresh = createWakeCache();
    const calls = minute.calls;
    fresh.advance(T0 + MIN, lead, 1, () => [minute, second]);
    assert.equal(minute.calls, calls + 1, "only the build steps it");
    assert.equal(fresh.next(lead, 1, () => [minute, second]), lead + 1_000);
    assert.equal(fresh.next(T0 + MIN, 1, () => [minute, second]), T0 + MIN + 1_000);
  });
});
