import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { formatDuration, MAX_DURATION_MS, parseDuration, tryParseDuration } from "../../src/core/duration.ts";
import { assertSchedulerError } from "./_helpers.ts";

describe("durations", () => {
  const table: Array<[unknown, number | undefined]> = [
    ["90s", 90_000],
    ["15m", 900_000],
    ["1h30m", 5_400_000],
    ["500ms", 500],
    ["2d", 172_800_000],
    ["1w", 604_800_000],
    ["PT15M", 900_000],
    ["P1DT2H", 93_600_000],
    ["PT0.5S", 500],
    ["pt1h", 3_600_000],
    [1500, 1500],
    ["", undefined],
    ["15", undefined],
    ["1x", undefined],
    ["P", undefined],
    ["PT", undefined],
    [-1, undefined],
    [null, undefined],
    // Past 2^53 - 1 ms a number no longer holds every whole ms: not a duration.
    [MAX_DURATION_MS, MAX_DURATION_MS],
    [2 ** 53, undefined],
    [1e300, undefined],
    ["99999999999999999999d", undefined],
    ["104249991d8h59m991ms", MAX_DURATION_MS],
    ["104249991d8h59m992ms", undefined],
    ["P99999999999999999999D", undefined],
  ];
  for (const [input, want] of table) {
    it(`tryParseDuration(${JSON.stringify(input)}) is ${want}`, () => assert.equal(tryParseDuration(input), want));
  }

  it("parseDuration names the field and enforces a minimum", () => {
    assertSchedulerError(
      () => parseDuration("soon", { code: "invalid-interval", field: "interval" }),
      "invalid-interval",
      'invalid-interval: interval: expected a duration like "30s", got "soon"',
    );
    assertSchedulerError(
      () => parseDuration("10ms", { min: 1000 }),
      "invalid-duration",
      'invalid-duration: duration: must be at least 1s, got "10ms"',
    );
  });

  it("parseDuration says a duration past 2^53 - 1 ms is too long, naming the longest", () => {
    // It was accepted: `every: "99999999999999999999d"` made a job that never ran, shown as
    // "@every 100000000000000000000d", and `timeout: 1e300` was taken as it came.
    assertSchedulerError(
      () => parseDuration("99999999999999999999d", { field: "timeout" }),
      "invalid-duration",
      'invalid-duration: timeout: "99999999999999999999d" is longer than the longest duration, 104249991d8h59m991ms (2^53 - 1 ms)',
    );
    assertSchedulerError(
      () => parseDuration(2 ** 60, { code: "invalid-interval", field: "interval" }),
      "invalid-interval",
      'invalid-interval: interval: "1152921504606847000" is longer than the longest duration, 104249991d8h59m991ms (2^53 - 1 ms)',
    );
    assert.equal(parseDuration(formatDuration(MAX_DURATION_MS)), MAX_DURATION_MS);
  });

  it("formatDuration round-trips every integer number of milliseconds", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 45 }), (n) => assert.equal(parseDuration(formatDuration(n)), n)),
    );
    assert.equal(formatDuration(5_400_000), "1h30m");
  });

  it('formatDuration refuses what is not whole milliseconds 0 to 2^53 - 1 (it gave "", "1ms" for 1.5, "Infinityd")', () => {
    for (const bad of [-1, NaN, 1.5, Infinity, MAX_DURATION_MS + 1, "1h", null]) {
      assertSchedulerError(() => formatDuration(bad as number), "invalid-duration");
    }
    assertSchedulerError(
      () => formatDuration(-1),
      "invalid-duration",
      'invalid-duration: duration: expected whole milliseconds 0 to 2^53 - 1, got "-1"',
    );
  });
});
