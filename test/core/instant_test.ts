import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toEpochMs } from "../../src/core/instant.ts";
import { Temporal } from "../../src/core/temporal.ts";
import { assertSchedulerError } from "./_helpers.ts";

describe("toEpochMs()", () => {
  const t = Date.UTC(2026, 2, 8, 7, 0, 0);

  it("accepts epoch ms, Date, Temporal.Instant and ISO text with Z or an offset", () => {
    assert.equal(toEpochMs(t), t);
    assert.equal(toEpochMs(new Date(t)), t);
    assert.equal(toEpochMs(Temporal.Instant.fromEpochMilliseconds(t)), t);
    assert.equal(toEpochMs("2026-03-08T07:00:00Z"), t);
    assert.equal(toEpochMs("2026-03-08T03:00:00-04:00"), t);
    assert.equal(toEpochMs("2026-03-08t07:00z"), t);
    assert.equal(toEpochMs("2026-03-08T07:00:00.123456789Z"), t + 123);
  });

  it("refuses text without an offset, garbage and out-of-range numbers", () => {
    assertSchedulerError(() => toEpochMs("2026-03-08T07:00:00"), "invalid-instant");
    assertSchedulerError(() => toEpochMs("2026-03-08"), "invalid-instant");
    assertSchedulerError(
      () => toEpochMs("next tuesday", { field: "after" }),
      "invalid-instant",
      'invalid-instant: after: expected epoch ms, a Date or an ISO instant with offset, got "next tuesday"',
    );
    assertSchedulerError(() => toEpochMs(Number.POSITIVE_INFINITY), "invalid-instant");
    assertSchedulerError(() => toEpochMs(8.7e15), "invalid-instant");
    assertSchedulerError(() => toEpochMs({}), "invalid-instant");
    assertSchedulerError(() => toEpochMs("2026-03-08T07:00:00Z", { allowString: false }), "invalid-instant");
  });

  it("says a number past what a Date holds is out of range, naming the range (it read as a malformed instant)", () => {
    for (const [ms, sent] of [[9e15, "9000000000000000"], [-8640000000000001, "-8640000000000001"]] as const) {
      assertSchedulerError(
        () => toEpochMs(ms, { field: "from" }),
        "invalid-instant",
        `invalid-instant: from: expected an instant from -8640000000000000 to 8640000000000000 ms (years -271821 to 275760), got "${sent}" (out of range)`,
      );
    }
    assert.equal(toEpochMs(-8.64e15), -8.64e15);
  });

  it("says a well-formed ISO instant past what a Date holds is out of range (it read as malformed)", () => {
    for (
      const text of [
        "+275760-09-13T00:00:00.001Z",
        "+300000-01-01T00:00:00Z",
        "-271821-04-19T23:59:59.999Z",
        "+275760-09-12T23:00:00-02:00",
      ]
    ) {
      assertSchedulerError(
        () => toEpochMs(text, { field: "from" }),
        "invalid-instant",
        `invalid-instant: from: expected an instant from -8640000000000000 to 8640000000000000 ms (years -271821 to 275760), got "${text}" (out of range)`,
      );
    }
    assert.equal(toEpochMs("+275760-09-13T00:00:00Z"), 8.64e15);
    assert.equal(toEpochMs("-271821-04-20T00:00:00Z"), -8.64e15);
    // Malformed still: no calendar date, and the year -0 ISO-8601 forbids.
    for (const text of ["+275760-02-30T00:00:00Z", "-000000-01-01T00:00:00Z"]) {
      assertSchedulerError(
        () => toEpochMs(text),
        "invalid-instant",
        `invalid-instant: instant: expected epoch ms, a Date or an ISO instant with offset, got "${text}"`,
      );
    }
  });

  it("refuses dates and times that do not exist instead of rolling them over (Date.parse did)", () => {
    for (const text of ["2026-02-30T00:00:00Z", "2026-04-31T00:00Z", "2027-02-29T00:00:00Z", "1900-02-29T00:00:00Z"]) {
      assertSchedulerError(() => toEpochMs(text), "invalid-instant");
    }
    for (const text of ["2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z", "2026-01-01T00:00:60Z", "2026-13-01T00:00Z"]) {
      assertSchedulerError(() => toEpochMs(text), "invalid-instant");
    }
    assertSchedulerError(() => toEpochMs("2026-01-01T00:00:00+24:00"), "invalid-instant");
    assert.equal(toEpochMs("2028-02-29T00:00:00Z"), Date.UTC(2028, 1, 29));
    assert.equal(toEpochMs("2000-02-29T12:30:00+14:00"), Date.UTC(2000, 1, 28, 22, 30));
    assert.equal(toEpochMs("0000-02-29T00:00:00Z"), Date.parse("0000-02-29T00:00:00Z"));
    assert.equal(toEpochMs("2026-06-30T23:59:59.999Z"), Date.UTC(2026, 5, 30, 23, 59, 59, 999));
  });

  it('reads epochMilliseconds only when it is a number (null, "" and [] were the epoch, true 1 ms)', () => {
    for (const v of [null, "", [], false, true, "5", undefined]) {
      assertSchedulerError(() => toEpochMs({ epochMilliseconds: v }, { field: "after" }), "invalid-instant");
    }
    assert.equal(toEpochMs({ epochMilliseconds: t }), t);
    assert.equal(toEpochMs(Temporal.ZonedDateTime.from("2026-03-08T03:00:00-04:00[America/New_York]")), t);
  });
});
