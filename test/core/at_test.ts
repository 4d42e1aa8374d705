import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { at } from "../../src/core/at.ts";
import { schedule } from "../../src/core/schedule.ts";
import { Temporal } from "../../src/core/temporal.ts";
import { assertSchedulerError, ms } from "./_helpers.ts";

describe("at()", () => {
  const when = ms("2026-12-24T17:00:00Z");

  it("fires once, strictly after and strictly before", () => {
    const s = at("2026-12-24T18:00:00+01:00");
    assert.equal(s.next(0), when);
    assert.equal(s.next(when - 1), when);
    assert.equal(s.next(when), null);
    assert.equal(s.prev(when), null);
    assert.equal(s.prev(when + 1), when);
    assert.deepEqual(s.nextRuns(0, 3), [when]);
    assert.deepEqual([...s.between(when - 1, when)], [when]);
    assert.deepEqual([...s.between(when, when + 1)], []);
  });

  it("accepts epoch ms, Date and Temporal.Instant", () => {
    assert.equal(at(when).next(0), when);
    assert.equal(at(new Date(when)).next(0), when);
    assert.equal(at(Temporal.Instant.fromEpochMilliseconds(when)).next(0), when);
  });

  it("round-trips through toJSON and toString", () => {
    const s = at(when);
    assert.deepEqual(s.toJSON(), { at: when });
    assert.equal(String(s), "2026-12-24T17:00:00.000Z");
    assert.deepEqual(schedule(String(s)).toJSON(), s.toJSON());
    assert.deepEqual(schedule(s.toJSON()).toJSON(), s.toJSON());
    assert.equal(s.kind, "at");
  });

  it("refuses options, which a JavaScript caller could pass and which were dropped unread", () => {
    const call = at as unknown as (instant: number, options: unknown) => unknown;
    for (const options of [{ endAt: when - 1 }, { except: ["2026-12-24"] }, { timezone: "Nope/Zone" }, "UTC"]) {
      assert.throws(() => call(when, options), /^SchedulerError: invalid-spec: options: at\(\) takes no options, got /);
    }
    assert.deepEqual((call(when, undefined) as ReturnType<typeof at>).toJSON(), { at: when });
  });

  it("refuses what is not an instant", () => {
    assertSchedulerError(
      () => at("tomorrow"),
      "invalid-instant",
      'invalid-instant: at: expected epoch ms, a Date or an ISO instant with offset, got "tomorrow"',
    );
    assertSchedulerError(() => at("2026-12-24T18:00:00"), "invalid-instant");
    assertSchedulerError(() => at(Number.NaN), "invalid-instant");
    assertSchedulerError(() => at(new Date("nope")), "invalid-instant");
    assertSchedulerError(() => at(9e15), "invalid-instant");
    // A slot is whole milliseconds: a fractional one failed every tick's claims.
    assertSchedulerError(
      () => at(1796340360000.5),
      "invalid-instant",
      'invalid-instant: at: expected whole epoch milliseconds, got "1796340360000.5"',
    );
  });
});
