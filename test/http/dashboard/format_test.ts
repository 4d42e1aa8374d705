import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { formatElapsed, formatInstant, relative, scheduleInWords } from "../../../src/http/dashboard/_format.ts";

const WINTER = Date.UTC(2026, 11, 1, 14, 0, 0);
const SUMMER = Date.UTC(2026, 6, 1, 14, 0, 0);

describe("scheduleInWords", () => {
  it("uses cronstrue for cron schedules", () => {
    assert.equal(scheduleInWords({ cron: "*/15 * * * *" }, "UTC"), "Every 15 minutes");
    assert.equal(scheduleInWords({ cron: "0 9 * * 1-5" }, "UTC"), "At 09:00, Monday through Friday");
    assert.equal(scheduleInWords({ cron: "30 2 * * *" }, "UTC"), "At 02:30");
  });

  it("says a day-of-week N/S to Sunday, as it runs, and reads the AWS form's weekdays from Sunday = 1", () => {
    // cronstrue read `5/1` as Friday to Saturday, and AWS's `2` (Monday) as Tuesday.
    assert.equal(scheduleInWords({ cron: "0 0 * * 5/1" }, "UTC"), "At 00:00, Friday through Sunday");
    assert.equal(
      scheduleInWords({ cron: "0 0 * * MON/2,FRI" }, "UTC"),
      "At 00:00, every 2 days of the week, Monday through Sunday and only on Friday",
    );
    assert.equal(
      scheduleInWords({ cron: "0 12 ? * 2-6 *", format: "aws" }, "UTC"),
      "At 12:00, Monday through Friday",
    );
  });

  it("describes intervals and one-shots itself", () => {
    assert.equal(scheduleInWords({ every: "90m" }, "UTC"), "Every 1h30m");
    assert.equal(scheduleInWords({ every: "1h", anchor: "09:30" }, "UTC"), "Every 1h, from 09:30 each day");
    assert.equal(scheduleInWords({ at: WINTER }, "Europe/Paris"), "Once, at Tue 1 Dec, 15:00:00 CET");
  });

  it("gives no words rather than throwing on what cronstrue cannot read", () => {
    assert.equal(scheduleInWords({ cron: "0 0 1#9 * *" }, "UTC"), "");
  });
});

describe("formatInstant", () => {
  it("names the zone the way its people do, and follows DST", () => {
    assert.equal(formatInstant(WINTER, "Europe/Paris"), "Tue 1 Dec, 15:00:00 CET");
    assert.equal(formatInstant(SUMMER, "Europe/Paris"), "Wed 1 Jul, 16:00:00 CEST");
    assert.equal(formatInstant(WINTER, "America/New_York"), "Tue 1 Dec, 09:00:00 EST");
    assert.equal(formatInstant(SUMMER, "America/New_York"), "Wed 1 Jul, 10:00:00 EDT");
    assert.equal(formatInstant(SUMMER, "Europe/London"), "Wed 1 Jul, 15:00:00 BST");
    assert.equal(formatInstant(WINTER, "UTC"), "Tue 1 Dec, 14:00:00 UTC");
    assert.equal(formatInstant(WINTER, "Asia/Kolkata"), "Tue 1 Dec, 19:30:00 GMT+5:30");
  });

  it("always shows seconds, so every time on a page has one shape, and falls back to UTC for an unknown zone", () => {
    assert.equal(formatInstant(WINTER + 7_000, "UTC"), "Tue 1 Dec, 14:00:07 UTC");
    assert.equal(formatInstant(WINTER, "Mars/Olympus"), "Tue 1 Dec, 14:00:00 UTC");
  });
});

describe("relative and formatElapsed", () => {
  it("reads coarsely, in at most two units", () => {
    assert.equal(relative(WINTER + 90_000, WINTER), "in 1m 30s");
    assert.equal(relative(WINTER - 3 * 3_600_000 - 5 * 60_000 - 9_000, WINTER), "3h 5m ago");
    assert.equal(relative(WINTER + 2 * 86_400_000, WINTER), "in 2d");
    assert.equal(relative(WINTER + 400, WINTER), "now");
  });

  it("formats run durations", () => {
    assert.equal(formatElapsed(340), "340ms");
    assert.equal(formatElapsed(1_250), "1.3s");
    assert.equal(formatElapsed(125_000), "2m5s");
  });
});
