import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cron } from "../../../src/core/cron/mod.ts";
import { assertSchedulerError, iso, ms } from "../_helpers.ts";

describe("cron(): instants", () => {
  it("a 5-field schedule fires on whole minutes, strictly after and strictly before", () => {
    const s = cron("* * * * *");
    assert.equal(s.next(59_999), 60_000);
    assert.equal(s.next(60_000), 120_000);
    assert.equal(s.next(60_000.5), 120_000);
    assert.equal(s.prev(60_000), 0);
    assert.equal(s.prev(60_000.5), 60_000);
  });

  it("a 6-field schedule fires on whole seconds", () => {
    const s = cron("* * * * * *");
    assert.equal(s.next(999), 1000);
    assert.equal(s.next(1000.5), 2000);
    assert.equal(s.prev(1000.5), 1000);
  });

  it("accepts Date and Temporal-like instants and refuses garbage", () => {
    const s = cron("0 * * * *");
    assert.equal(s.next(new Date(0) as unknown as number), 3_600_000);
    assertSchedulerError(() => s.next(Number.NaN), "invalid-instant");
    assertSchedulerError(() => s.prev("soon" as unknown as number), "invalid-instant");
    assertSchedulerError(() => s.nextRuns(0, -1), "invalid-spec");
    assertSchedulerError(() => s.nextRuns(0, 1.5), "invalid-spec");
    assertSchedulerError(() => s.between(0, Number.NaN), "invalid-instant");
  });

  it("nextRuns and between agree", () => {
    const s = cron("*/7 * * * *", { timezone: "Europe/Dublin" });
    const runs = s.nextRuns(ms("2026-10-25T00:00:00Z"), 30);
    assert.deepEqual([...s.between(ms("2026-10-25T00:00:00Z"), runs[29]!)], runs);
    assert.deepEqual(s.nextRuns(0, 0), []);
  });

  it("finds a fire decades away and returns null past year 9999", () => {
    const s = cron("0 0 29 2 1", { dayMatch: "and", timezone: "America/New_York" });
    assert.equal(iso(s.next(ms("2016-03-01T00:00:00Z"))), iso(ms("2044-02-29T00:00:00-05:00")));
    assert.equal(iso(s.prev(ms("2044-01-01T00:00:00Z"))), iso(ms("2016-02-29T00:00:00-05:00")));
    assert.equal(cron("* * * * *").next(ms("9999-12-31T23:59:00Z")), null);
    assert.equal(cron("0 0 1 1 *").prev(ms("0001-01-01T00:00:00Z")), null);
    const chatham = cron("0 0 1 1 *", { timezone: "Pacific/Chatham" });
    // Local mean time +12:13:48: wall 0001-01-01 00:00 is still in year 0 in UTC.
    assert.equal(
      chatham.prev(ms("0001-01-02T00:00:00Z")),
      ms("0001-01-01T00:00:00Z") - (12 * 3600 + 13 * 60 + 48) * 1000,
    );
    assert.equal(chatham.prev(ms("0001-01-01T00:00:00Z") - 2 * 86_400_000), null);
  });

  it("next() jumps a 28-year gap from any start in it (speed is measured by npm run bench, not here)", () => {
    const sparse = cron("0 0 29 2 1", { dayMatch: "and", timezone: "America/New_York" });
    const from = ms("2016-03-01T00:00:00Z"), to = ms("2044-02-28T00:00:00Z");
    for (let i = 0; i < 500; i++) {
      assert.equal(iso(sparse.next(from + Math.floor(((to - from) * i) / 500))), "2044-02-29T05:00:00.000Z");
    }
  });
});

describe("cron(): a CRON_TZ= prefix", () => {
  it("reads the text toString() gives back, zone and all; the prefix wins over timezone", () => {
    const berlin = cron("0 9 * * *", { timezone: "Europe/Berlin" });
    const again = cron(berlin.toString());
    assert.equal(again.timezone, "Europe/Berlin");
    assert.equal(again.next(ms("2026-07-01T00:00:00Z")), ms("2026-07-01T07:00:00Z"));
    assert.equal(cron("TZ=Asia/Tokyo 0 9 * * *", { timezone: "Europe/Paris" }).timezone, "Asia/Tokyo");
    // Before, both read the prefix as the seconds field: "second step must be a number 1-60".
  });

  it("refuses a prefix in lower case or with no zone by name, saying how to write it", () => {
    assert.throws(() => cron("cron_tz=Europe/Berlin 0 9 * * *"), (e: unknown) => {
      assert.match(
        String(e),
        /^SchedulerError: invalid-timezone: timezone: the prefix is written CRON_TZ= in capitals, got "cron_tz=Europe\/Berlin 0 9 \* \* \*" \(CRON_TZ=Europe\/Berlin 0 9 \* \* \*\)$/,
      );
      return true;
    });
    assertSchedulerError(() => cron("Tz=UTC 0 9 * * *"), "invalid-timezone");
    // Two prefixes: "second must be 0-59, got CRON_TZ=B" from cron() (schedule() named them).
    assert.throws(
      () => cron("CRON_TZ=Europe/Paris TZ=Asia/Tokyo 0 9 * * *"),
      /^SchedulerError: invalid-timezone: timezone: one CRON_TZ= or TZ= prefix, got two in "CRON_TZ=Europe\/Paris TZ=Asia\/Tokyo 0 9 \* \* \*"$/,
    );
    // A prefix alone: the parser said 'got 0 in ""', quoting nothing of what was given.
    assert.throws(
      () => cron("CRON_TZ=Europe/Berlin "),
      /^SchedulerError: invalid-cron: expected a schedule after CRON_TZ=Europe\/Berlin, got "CRON_TZ=Europe\/Berlin " \(CRON_TZ=Europe\/Berlin 0 9 \* \* \*\)$/,
    );
    assert.throws(
      () => cron("CRON_TZ= 0 9 * * *", { timezone: "Asia/Tokyo" }),
      /names no zone .*drop the prefix for Asia\/Tokyo/,
    );
  });
});
