import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { every } from "../../src/core/every.ts";
import { schedule } from "../../src/core/schedule.ts";
import { Temporal } from "../../src/core/temporal.ts";
import type { TemporalTypes } from "../../src/core/temporal.ts";
import { assertSchedulerError, iso, ms } from "./_helpers.ts";

describe("every(): fixed grid", () => {
  it("fires on a grid anchored at the Unix epoch by default", () => {
    assert.equal(iso(every("15m").next(ms("2026-01-01T00:07:00Z"))), "2026-01-01T00:15:00.000Z");
    assert.equal(iso(every("15m").next(ms("2026-01-01T00:15:00Z"))), "2026-01-01T00:30:00.000Z");
    assert.equal(iso(every("15m").prev(ms("2026-01-01T00:15:00Z"))), "2026-01-01T00:00:00.000Z");
    assert.equal(every(90_000).next(0), 90_000);
  });

  it("reads every duration form", () => {
    const t = ms("2026-01-01T00:00:01Z");
    assert.equal(iso(every("90s").next(t)), "2026-01-01T00:01:30.000Z");
    assert.equal(iso(every("1h30m").next(t)), "2026-01-01T01:30:00.000Z");
    assert.equal(iso(every("PT15M").next(t)), "2026-01-01T00:15:00.000Z");
    assert.equal(iso(every(" 2h ").next(t)), "2026-01-01T02:00:00.000Z");
  });

  it("anchors the grid at an instant, extending both ways", () => {
    const s = every("1h", { anchor: "2026-01-01T00:20:00Z" });
    assert.equal(iso(s.next(ms("2026-03-01T10:00:00Z"))), "2026-03-01T10:20:00.000Z");
    assert.equal(iso(s.prev(ms("2026-03-01T10:00:00Z"))), "2026-03-01T09:20:00.000Z");
    assert.equal(iso(s.next(ms("2025-12-31T23:00:00Z"))), "2025-12-31T23:20:00.000Z");
    assert.deepEqual(every("1h", { anchor: new Date(ms("2026-01-01T00:20:00Z")) }).toJSON(), s.toJSON());
    assert.deepEqual(every("1h", { anchor: ms("2026-01-01T00:20:00Z") }).toJSON(), s.toJSON());
  });

  it("slots do not depend on the instant asked from", () => {
    const s = every("7m");
    const a = s.nextRuns(ms("2026-01-01T00:00:00Z"), 50);
    const b = s.nextRuns(a[10]! - 1, 20);
    assert.deepEqual(b, a.slice(10, 30));
    for (const t of a) assert.equal(t % 420_000, 0);
  });
});

describe('every(): "HH:MM" anchor in a zone', () => {
  const s = every("6h", { anchor: "09:30", timezone: "Europe/Berlin" });

  it("fires at the anchor's local time and every interval after it (winter, CET)", () => {
    assert.deepEqual(s.nextRuns(ms("2026-01-10T00:00:00Z"), 4).map(iso), [
      "2026-01-10T02:30:00.000Z",
      "2026-01-10T08:30:00.000Z",
      "2026-01-10T14:30:00.000Z",
      "2026-01-10T20:30:00.000Z",
    ]);
  });

  it("follows the zone's summer offset (CEST)", () => {
    assert.deepEqual(s.nextRuns(ms("2026-07-10T00:00:00Z"), 2).map(iso), [
      "2026-07-10T01:30:00.000Z",
      "2026-07-10T07:30:00.000Z",
    ]);
  });

  it("re-anchors each local day across the spring-forward day", () => {
    assert.deepEqual(s.nextRuns(ms("2026-03-28T21:00:00Z"), 5).map(iso), [
      "2026-03-29T02:30:00.000Z",
      "2026-03-29T07:30:00.000Z",
      "2026-03-29T13:30:00.000Z",
      "2026-03-29T19:30:00.000Z",
      "2026-03-30T01:30:00.000Z",
    ]);
    assert.equal(iso(s.prev(ms("2026-03-29T07:30:00Z"))), "2026-03-29T02:30:00.000Z");
    assert.equal(iso(s.prev(ms("2026-03-29T02:30:00Z"))), "2026-03-28T20:30:00.000Z");
  });

  it("a 25-hour day (fall back) holds the day's slots with a longer last cell, not an extra slot", () => {
    // The grid ran on from the day before's anchor through the extra hour: "every 24h from
    // 09:30" fired at 08:30 and again at 09:30 EST, and "every 6h" at 08:30 and 09:30 CET.
    const daily = every("24h", { anchor: "09:30", timezone: "America/New_York" });
    const runs = [...daily.between(ms("2026-10-31T00:00:00Z"), ms("2026-11-03T00:00:00Z"))].map(iso);
    assert.deepEqual(runs, [
      iso(ms("2026-10-31T09:30:00-04:00")),
      iso(ms("2026-11-01T09:30:00-05:00")),
      iso(ms("2026-11-02T09:30:00-05:00")),
    ]);
    assert.equal(iso(daily.prev(ms("2026-11-01T14:30:00Z"))), iso(ms("2026-10-31T09:30:00-04:00")));
    assert.deepEqual([...s.between(ms("2026-10-24T22:00:00Z"), ms("2026-10-25T09:00:00Z"))].map(iso), [
      "2026-10-25T01:30:00.000Z", // 21:30 CEST + 6 h elapsed: 02:30 CET, the day's last cell runs to 09:30 CET
      "2026-10-25T08:30:00.000Z", // 09:30 CET
    ]);
    assert.equal(iso(s.prev(ms("2026-10-25T08:30:00Z"))), "2026-10-25T01:30:00.000Z");
    assert.equal(iso(s.next(ms("2026-10-25T01:30:00Z"))), "2026-10-25T08:30:00.000Z");
  });

  it("an anchor in a gap is shifted later by the gap", () => {
    const d = every("24h", { anchor: "02:30", timezone: "America/New_York" });
    assert.equal(iso(d.next(ms("2026-03-08T05:00:00Z"))), iso(ms("2026-03-08T03:30:00-04:00")));
    assert.equal(iso(d.next(ms("2026-03-08T07:30:00Z"))), iso(ms("2026-03-09T02:30:00-04:00")));
  });

  it("round-trips through toJSON and toString", () => {
    assert.deepEqual(s.toJSON(), { every: "6h", anchor: "09:30", timezone: "Europe/Berlin" });
    assert.equal(String(s), "CRON_TZ=Europe/Berlin @every 6h from 09:30");
    assert.deepEqual(schedule(String(s)).toJSON(), s.toJSON());
    assert.deepEqual(schedule(s.toJSON()).nextRuns(0, 3), s.nextRuns(0, 3));
  });
});

describe("every(): bad input", () => {
  it("refuses intervals under one second", () => {
    assertSchedulerError(
      () => every("500ms"),
      "invalid-interval",
      'invalid-interval: interval: must be at least 1s, got "500ms"',
    );
    assertSchedulerError(() => every(0), "invalid-interval");
    // Checked before rounding: these round to 1 000 ms.
    assertSchedulerError(() => every(999.6), "invalid-interval");
    assertSchedulerError(() => every("999.5ms"), "invalid-interval");
    assert.equal(String(every(1000.4)), "@every 1s");
  });

  it("refuses what is not a duration", () => {
    assertSchedulerError(
      () => every("soon"),
      "invalid-interval",
      'invalid-interval: interval: expected a duration like "30s", got "soon"',
    );
    assertSchedulerError(() => every(-5), "invalid-interval");
    assertSchedulerError(() => every(Number.NaN), "invalid-interval");
  });

  it('refuses an "HH:MM" anchor with an interval that does not divide 24h', () => {
    assertSchedulerError(
      () => every("7m", { anchor: "09:30" }),
      "invalid-interval",
      'invalid-interval: interval: "7m" does not divide 24h, which an "HH:MM" anchor needs',
    );
  });

  it("refuses bad anchors and zones", () => {
    assertSchedulerError(() => every("1h", { anchor: "25:00" }), "invalid-instant");
    assertSchedulerError(
      () => every("1m", { anchor: 0.5 }),
      "invalid-instant",
      'invalid-instant: anchor: expected whole epoch milliseconds, got "0.5"',
    );
    assertSchedulerError(() => every("1h", { anchor: "2026-01-01T00:00:00" }), "invalid-instant");
    assertSchedulerError(() => every("1h", { anchor: "09:30", timezone: "Nowhere/Land" }), "invalid-timezone");
  });
});

describe("every(): against an oracle", () => {
  const zones = [
    "UTC",
    "America/New_York",
    "Australia/Lord_Howe",
    "Antarctica/Troll",
    "America/Santiago",
    "Pacific/Chatham",
  ];
  const intervals = [60_000, 900_000, 3_600_000, 7_200_000, 21_600_000, 86_400_000];

  it("fixed grids: next is the first grid point after, prev the last before", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 10 ** 9 }),
        fc.integer({ min: -(10 ** 13), max: 10 ** 13 }),
        fc.integer({ min: -(10 ** 13), max: 10 ** 13 }),
        (interval, anchor, t) => {
          const s = every(interval, { anchor });
          const next = s.next(t)!;
          const prev = s.prev(t)!;
          assert.ok(next > t && next - t <= interval && (next - anchor) % interval === 0);
          assert.ok(prev < t && t - prev <= interval && (prev - anchor) % interval === 0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('"HH:MM" anchors: each local day\'s slots start at the anchor mapped like Temporal "compatible", a 24-hour day\'s worth', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(...intervals),
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: ms("2026-01-01T00:00:00Z"), max: ms("2027-01-01T00:00:00Z") }),
        (zone, interval, hour, minute, t) => {
          const anchorOf = (date: TemporalTypes.PlainDate): number =>
            date.toPlainDateTime({ hour, minute }).toZonedDateTime(zone, { disambiguation: "compatible" })
              .epochMilliseconds;
          const today = Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(zone).toPlainDate();
          const slots: number[] = [];
          for (let d = -2; d <= 2; d++) {
            const start = anchorOf(today.add({ days: d }));
            const end = anchorOf(today.add({ days: d + 1 }));
            // A 24-hour day's slots at most: a 25-hour day's last cell is an hour longer.
            for (let x = start, k = 0; x < end && k < 86_400_000 / interval; x += interval, k++) slots.push(x);
          }
          const s = every(interval, { anchor: `${hour}:${String(minute).padStart(2, "0")}`, timezone: zone });
          assert.equal(s.next(t), slots.find((x) => x > t));
          assert.equal(s.prev(t), slots.filter((x) => x < t).pop());
        },
      ),
      { numRuns: 200 },
    );
  });
});
