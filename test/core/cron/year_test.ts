// The 7th field: the year, 1970-2099. A schedule ends after its last year.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cron } from "../../../src/core/cron/mod.ts";
import { schedule } from "../../../src/core/schedule.ts";
import { assertSchedulerError, iso, ms } from "../_helpers.ts";

const AFTER = ms("2026-06-15T00:00:00Z");
const runs = (expr: string, n: number, after = AFTER, timezone = "UTC"): (string | null)[] =>
  cron(expr, { timezone }).nextRuns(after, n).map(iso);

describe("year field: values", () => {
  it("one year: fires only in it, then next() returns null", () => {
    const s = cron("0 0 12 * * ? 2027");
    assert.equal(iso(s.next(AFTER)), "2027-01-01T12:00:00.000Z");
    assert.equal(iso(s.next(ms("2027-12-31T11:00:00Z"))), "2027-12-31T12:00:00.000Z");
    assert.equal(s.next(ms("2027-12-31T12:00:00Z")), null);
    assert.equal(iso(s.prev(ms("2030-01-01T00:00:00Z"))), "2027-12-31T12:00:00.000Z");
    assert.equal(s.prev(ms("2027-01-01T12:00:00Z")), null);
  });

  it("lists, ranges and steps", () => {
    assert.deepEqual(runs("0 0 0 1 1 * 2030-2040/5", 4), [
      "2030-01-01T00:00:00.000Z",
      "2035-01-01T00:00:00.000Z",
      "2040-01-01T00:00:00.000Z",
    ]);
    assert.deepEqual(runs("0 0 0 1 1 * 2029,2027", 3), ["2027-01-01T00:00:00.000Z", "2029-01-01T00:00:00.000Z"]);
    assert.deepEqual(runs("0 0 0 1 1 * */4", 2), ["2030-01-01T00:00:00.000Z", "2034-01-01T00:00:00.000Z"]);
    assert.deepEqual(runs("0 0 0 1 1 * 2097/2", 3), ["2097-01-01T00:00:00.000Z", "2099-01-01T00:00:00.000Z"]);
  });

  it("* is every year, with no end at 2099", () => {
    assert.deepEqual(runs("0 0 0 1 1 * *", 1, ms("2099-06-01T00:00:00Z")), ["2100-01-01T00:00:00.000Z"]);
  });

  it("a leap day in a year list skips the years without one", () => {
    assert.deepEqual(runs("0 0 0 29 2 * 2027-2033", 3), ["2028-02-29T00:00:00.000Z", "2032-02-29T00:00:00.000Z"]);
  });

  it("combines with day-of-week, L and a zone", () => {
    assert.deepEqual(runs("0 0 9 ? 2 MON#1 2027,2028", 3), ["2027-02-01T09:00:00.000Z", "2028-02-07T09:00:00.000Z"]);
    assert.deepEqual(runs("0 30 2 L 3 ? 2027", 1, AFTER, "Europe/Berlin"), ["2027-03-31T00:30:00.000Z"]);
    // 2027-03-14 is New York's spring-forward day: 02:30 shifts by the gap to 03:30 EDT.
    assert.deepEqual(runs("0 30 2 14 3 ? 2027", 2, AFTER, "America/New_York"), ["2027-03-14T07:30:00.000Z"]);
  });
});

describe("year field: refusals", () => {
  it("refuses years outside 1970-2099 and steps wider than the range", () => {
    assertSchedulerError(
      () => cron("0 0 12 * * ? 1969"),
      "invalid-cron",
      'invalid-cron: year must be 1970-2099, got "1969"',
    );
    assertSchedulerError(
      () => cron("0 0 12 * * ? 2100"),
      "invalid-cron",
      'invalid-cron: year must be 1970-2099, got "2100"',
    );
    assertSchedulerError(
      () => cron("0 0 12 * * ? 2030-2027"),
      "invalid-cron",
      'invalid-cron: year range "2030-2027" is reversed',
    );
    assertSchedulerError(
      () => cron("0 0 12 * * ? */131"),
      "invalid-cron",
      'invalid-cron: year step must be 1-130, got "131" in "*/131"',
    );
    assertSchedulerError(
      () => cron("0 0 12 * * * ?"),
      "invalid-cron",
      'invalid-cron: year cannot be "?" (only day-of-month and day-of-week can)',
    );
  });

  it("refuses a combination that never fires in the years given", () => {
    assertSchedulerError(
      () => cron("0 0 0 29 2 * 2027"),
      "invalid-cron",
      "invalid-cron: never fires: day-of-month 29, month 2 and day-of-week * meet in no year of 2027",
    );
    // 13 June 2026 is a Saturday; 13 February 2026 is a Friday.
    assertSchedulerError(() => cron("0 0 0 13 6 FRI 2026", { dayMatch: "and" }), "invalid-cron");
    assert.equal(iso(cron("0 0 0 13 * FRI 2026", { dayMatch: "and" }).next(0)), "2026-02-13T00:00:00.000Z");
  });
});

describe("year field: text and round trips", () => {
  it("toString() keeps 7 fields and puts the dayMatch + on day-of-week, not on the year", () => {
    const s = cron("0 0 0 13 * 5 2026-2030", { dayMatch: "and", timezone: "Asia/Tokyo" });
    assert.equal(s.toString(), "CRON_TZ=Asia/Tokyo 0 0 0 13 * +5 2026-2030");
    assert.deepEqual(schedule(s.toString()).nextRuns(0, 8), s.nextRuns(0, 8));
    assert.deepEqual(schedule(s.toJSON()).nextRuns(0, 8), s.nextRuns(0, 8));
    assert.equal(cron("0 0 0 13 * +5 2026").toString(), "0 0 0 13 * +5 2026");
  });

  it("a year taken from H lies in the given range", () => {
    const y = new Date(cron("0 0 0 1 1 * H(2030-2039)", { hashKey: "archive" }).next(0)!).getUTCFullYear();
    assert.ok(y >= 2030 && y <= 2039, String(y));
  });
});
