// The AWS EventBridge form, read only with format: "aws": minute hour day-of-month
// month day-of-week year, day-of-week 1-7 from Sunday, "?" in one day field.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cron } from "../../../src/core/cron/mod.ts";
import { schedule } from "../../../src/core/schedule.ts";
import { assertSchedulerError, iso, ms } from "../_helpers.ts";

const AFTER = ms("2026-06-15T00:00:00Z"); // a Monday
const aws = { format: "aws" } as const;
const runs = (expr: string, n: number): (string | null)[] => cron(expr, aws).nextRuns(AFTER, n).map(iso);

describe("AWS form: values", () => {
  it("reads minute hour day-of-month month day-of-week year", () => {
    assert.deepEqual(runs("0 12 * * ? *", 2), ["2026-06-15T12:00:00.000Z", "2026-06-16T12:00:00.000Z"]);
    assert.deepEqual(runs("15 10 ? * MON-FRI 2026", 2), ["2026-06-15T10:15:00.000Z", "2026-06-16T10:15:00.000Z"]);
    assert.deepEqual(runs("0/20 * * * ? *", 3), [
      "2026-06-15T00:20:00.000Z",
      "2026-06-15T00:40:00.000Z",
      "2026-06-15T01:00:00.000Z",
    ]);
  });

  it("numbers day-of-week 1-7 from Sunday, as EventBridge does", () => {
    assert.deepEqual(runs("0 9 ? * 1 *", 1), ["2026-06-21T09:00:00.000Z"]); // Sunday
    assert.deepEqual(runs("0 9 ? * 2 *", 1), ["2026-06-15T09:00:00.000Z"]); // Monday
    assert.deepEqual(runs("0 9 ? * 7 *", 1), ["2026-06-20T09:00:00.000Z"]); // Saturday
    assert.deepEqual(runs("0 9 ? * 2-6/2 *", 3), [
      "2026-06-15T09:00:00.000Z",
      "2026-06-17T09:00:00.000Z",
      "2026-06-19T09:00:00.000Z",
    ]);
    assert.deepEqual(runs("0 9 ? * 6#3 *", 1), ["2026-06-19T09:00:00.000Z"]); // third Friday
    assert.deepEqual(runs("0 9 ? * 6L *", 1), ["2026-06-26T09:00:00.000Z"]); // last Friday
  });

  it("ends after its last year", () => {
    const s = cron("0 12 * * ? 2020-2021", aws);
    assert.equal(s.next(AFTER), null);
    assert.equal(iso(s.prev(AFTER)), "2021-12-31T12:00:00.000Z");
  });
});

describe("AWS form: never guessed", () => {
  it('without the option, AWS text is refused: its "?" lands in the hour or month of the seconds-first form', () => {
    assertSchedulerError(
      () => cron("0 12 * * ? *"),
      "invalid-cron",
      'invalid-cron: month cannot be "?" (only day-of-month and day-of-week can)',
    );
    assertSchedulerError(
      () => cron("0 12 ? * 2 *"),
      "invalid-cron",
      'invalid-cron: hour cannot be "?" (only day-of-month and day-of-week can)',
    );
  });

  it("refuses what EventBridge refuses", () => {
    assertSchedulerError(
      () => cron("0 0 12 * * ? *", aws),
      "invalid-cron",
      'invalid-cron: format "aws" expects 6 fields (minute hour day-of-month month day-of-week year), got 7 in "0 0 12 * * ? *"',
    );
    assertSchedulerError(
      () => cron("0 12 * * * *", aws),
      "invalid-cron",
      'invalid-cron: format "aws" needs "?" in exactly one of day-of-month and day-of-week, got "*" and "*"',
    );
    assertSchedulerError(() => cron("0 12 ? * ? *", aws), "invalid-cron");
    assertSchedulerError(
      () => cron("0 9 ? * 0 *", aws),
      "invalid-cron",
      'invalid-cron: day-of-week must be 1-7 or SUN-SAT, got "0"',
    );
    assertSchedulerError(() => cron("@daily", aws), "invalid-cron");
    assertSchedulerError(
      () => cron("0 12 * * ? *", { format: "quartz" as "aws" }),
      "invalid-cron",
      'invalid-cron: format must be "cron" or "aws", got "quartz"',
    );
  });
});

describe("AWS form: text and round trips", () => {
  it("toString() wraps it as cron(...), which schedule() reads as the AWS form", () => {
    const s = cron("0  9 ? * MON-FRI *", { format: "aws", timezone: "Europe/Berlin" });
    assert.equal(s.toString(), "CRON_TZ=Europe/Berlin cron(0 9 ? * MON-FRI *)");
    assert.deepEqual(s.toJSON(), { cron: "0 9 ? * MON-FRI *", timezone: "Europe/Berlin", format: "aws" });
    const want = s.nextRuns(AFTER, 10);
    assert.deepEqual(schedule(s.toString()).nextRuns(AFTER, 10), want);
    assert.deepEqual(schedule(s.toJSON()).nextRuns(AFTER, 10), want);
    assert.deepEqual(
      schedule("0 9 ? * MON-FRI *", { format: "aws", timezone: "Europe/Berlin" }).nextRuns(AFTER, 10),
      want,
    );
  });

  it("takes H with a hash key", () => {
    const s = cron("H 3 ? * 2 *", { format: "aws", hashKey: "weekly-export" });
    assert.equal(new Date(s.next(AFTER)!).getUTCDay(), 1);
    assert.deepEqual(schedule(s.toJSON()).nextRuns(AFTER, 3), s.nextRuns(AFTER, 3));
  });
});
