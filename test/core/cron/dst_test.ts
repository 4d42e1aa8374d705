// The daylight-saving rules (docs/architecture.md) in ten zones: a gap shifts a wall time later by the gap's length (once,
// if that lands on a fire); an overlap fires once at the first instant, except for
// all-hours schedules, which fire in both copies. Transition instants are in comments.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cron } from "../../../src/core/cron/mod.ts";
import { iso, ms } from "../_helpers.ts";

type Case = [title: string, zone: string, expression: string, after: string, fires: string[]];

const cases: Case[] = [
  // New York: gap 2026-03-08 02:00 EST -> 03:00 EDT (07:00Z); overlap 2026-11-01 02:00 EDT -> 01:00 EST (06:00Z).
  ["gap shifts 02:30 to 03:30 EDT", "America/New_York", "30 2 * * *", "2026-03-07T12:00:00Z", [
    "2026-03-08T03:30:00-04:00",
    "2026-03-09T02:30:00-04:00",
  ]],
  ["gap times landing on fires fire once", "America/New_York", "0,30 2,3 * * *", "2026-03-08T05:00:00Z", [
    "2026-03-08T03:00:00-04:00",
    "2026-03-08T03:30:00-04:00",
    "2026-03-09T02:00:00-04:00",
  ]],
  ["all-hours schedule across the gap", "America/New_York", "*/30 * * * *", "2026-03-08T06:00:00Z", [
    "2026-03-08T01:30:00-05:00",
    "2026-03-08T03:00:00-04:00",
    "2026-03-08T03:30:00-04:00",
  ]],
  ["6-field second in the gap", "America/New_York", "15 0 2 * * *", "2026-03-08T05:00:00Z", [
    "2026-03-08T03:00:15-04:00",
    "2026-03-09T02:00:15-04:00",
  ]],
  ["overlap fires once, first instant", "America/New_York", "30 1 * * *", "2026-11-01T04:00:00Z", [
    "2026-11-01T01:30:00-04:00",
    "2026-11-02T01:30:00-05:00",
  ]],
  ["overlap: hourly fires in both copies", "America/New_York", "0 * * * *", "2026-11-01T04:30:00Z", [
    "2026-11-01T01:00:00-04:00",
    "2026-11-01T01:00:00-05:00",
    "2026-11-01T02:00:00-05:00",
  ]],
  ["overlap: one hour only fires in the first copy", "America/New_York", "*/20 1 * * *", "2026-11-01T04:30:00Z", [
    "2026-11-01T01:00:00-04:00",
    "2026-11-01T01:20:00-04:00",
    "2026-11-01T01:40:00-04:00",
    "2026-11-02T01:00:00-05:00",
  ]],
  ["after inside the second copy skips to the next day", "America/New_York", "30 1 * * *", "2026-11-01T06:10:00Z", [
    "2026-11-02T01:30:00-05:00",
  ]],
  // London: gap 2026-03-29 01:00Z (01:00 -> 02:00); overlap 2026-10-25 01:00Z (02:00 -> 01:00).
  ["London gap", "Europe/London", "30 1 * * *", "2026-03-28T12:00:00Z", [
    "2026-03-29T02:30:00+01:00",
    "2026-03-30T01:30:00+01:00",
  ]],
  ["London overlap once", "Europe/London", "0 1 * * *", "2026-10-24T12:00:00Z", [
    "2026-10-25T01:00:00+01:00",
    "2026-10-26T01:00:00+00:00",
  ]],
  ["London overlap all hours", "Europe/London", "*/30 * * * *", "2026-10-24T23:45:00Z", [
    "2026-10-25T01:00:00+01:00",
    "2026-10-25T01:30:00+01:00",
    "2026-10-25T01:00:00+00:00",
    "2026-10-25T01:30:00+00:00",
  ]],
  // Sydney: overlap 2026-04-04T16:00Z (03:00 -> 02:00); gap 2026-10-03T16:00Z (02:00 -> 03:00).
  ["Sydney overlap once", "Australia/Sydney", "30 2 * * *", "2026-04-04T12:00:00Z", [
    "2026-04-05T02:30:00+11:00",
    "2026-04-06T02:30:00+10:00",
  ]],
  ["Sydney gap", "Australia/Sydney", "30 2 * * *", "2026-10-03T12:00:00Z", [
    "2026-10-04T03:30:00+11:00",
    "2026-10-05T02:30:00+11:00",
  ]],
  ["Sydney overlap hourly", "Australia/Sydney", "0 * * * *", "2026-04-04T14:30:00Z", [
    "2026-04-05T02:00:00+11:00",
    "2026-04-05T02:00:00+10:00",
    "2026-04-05T03:00:00+10:00",
  ]],
  // Lord Howe, 30-minute shifts: overlap 2026-04-04T15:00Z (02:00 -> 01:30); gap 2026-10-03T15:30Z (02:00 -> 02:30).
  ["Lord Howe overlap once", "Australia/Lord_Howe", "45 1 * * *", "2026-04-04T13:00:00Z", [
    "2026-04-05T01:45:00+11:00",
    "2026-04-06T01:45:00+10:30",
  ]],
  ["Lord Howe overlap all hours", "Australia/Lord_Howe", "*/15 * * * *", "2026-04-04T14:20:00Z", [
    "2026-04-05T01:30:00+11:00",
    "2026-04-05T01:45:00+11:00",
    "2026-04-05T01:30:00+10:30",
    "2026-04-05T01:45:00+10:30",
    "2026-04-05T02:00:00+10:30",
  ]],
  ["Lord Howe gap shifts by 30 minutes", "Australia/Lord_Howe", "15 2 * * *", "2026-10-03T12:00:00Z", [
    "2026-10-04T02:45:00+11:00",
    "2026-10-05T02:15:00+11:00",
  ]],
  ["Lord Howe gap all hours", "Australia/Lord_Howe", "*/15 * * * *", "2026-10-03T15:20:00Z", [
    "2026-10-04T02:30:00+11:00",
    "2026-10-04T02:45:00+11:00",
    "2026-10-04T03:00:00+11:00",
  ]],
  // Kathmandu: 1986-01-01 00:00 +05:30 -> 00:15 +05:45 (1985-12-31T18:30Z), a 15-minute gap.
  ["Kathmandu 15-minute gap", "Asia/Kathmandu", "5 0 * * *", "1985-12-31T12:00:00Z", [
    "1986-01-01T00:20:00+05:45",
    "1986-01-02T00:05:00+05:45",
  ]],
  ["Kathmandu gap: shifted fires interleave", "Asia/Kathmandu", "*/10 * * * *", "1985-12-31T18:15:00Z", [
    "1985-12-31T18:20:00Z",
    "1985-12-31T18:30:00Z",
    "1985-12-31T18:35:00Z",
    "1985-12-31T18:40:00Z",
    "1985-12-31T18:45:00Z",
  ]],
  ["Kathmandu +05:45 today", "Asia/Kathmandu", "0 9 * * *", "2026-06-01T00:00:00Z", ["2026-06-01T09:00:00+05:45"]],
  // Santiago, midnight transitions: overlap 2026-04-05T03:00Z (24:00 -> 23:00 on Apr 4); gap 2026-09-06T04:00Z (00:00 -> 01:00).
  ["Santiago overlap before midnight", "America/Santiago", "30 23 * * *", "2026-04-04T12:00:00Z", [
    "2026-04-04T23:30:00-03:00",
    "2026-04-05T23:30:00-04:00",
  ]],
  ["Santiago daily after the overlap", "America/Santiago", "@daily", "2026-04-04T12:00:00Z", [
    "2026-04-05T00:00:00-04:00",
  ]],
  ["Santiago overlap all hours", "America/Santiago", "30 * * * *", "2026-04-05T01:00:00Z", [
    "2026-04-04T22:30:00-03:00",
    "2026-04-04T23:30:00-03:00",
    "2026-04-04T23:30:00-04:00",
    "2026-04-05T00:30:00-04:00",
  ]],
  ["Santiago midnight gap", "America/Santiago", "0 0 * * *", "2026-09-05T12:00:00Z", [
    "2026-09-06T01:00:00-03:00",
    "2026-09-07T00:00:00-03:00",
  ]],
  // Havana: gap 2026-03-08T05:00Z (00:00 -> 01:00); overlap 2026-11-01T05:00Z (01:00 -> 00:00).
  ["Havana midnight gap", "America/Havana", "0 0 * * *", "2026-03-07T12:00:00Z", [
    "2026-03-08T01:00:00-04:00",
    "2026-03-09T00:00:00-04:00",
  ]],
  ["Havana Sunday midnight in the gap", "America/Havana", "0 0 * * 0", "2026-03-01T12:00:00Z", [
    "2026-03-08T01:00:00-04:00",
    "2026-03-15T00:00:00-04:00",
  ]],
  ["Havana overlap after midnight", "America/Havana", "30 0 * * *", "2026-10-31T12:00:00Z", [
    "2026-11-01T00:30:00-04:00",
    "2026-11-02T00:30:00-05:00",
  ]],
  // Dublin, negative DST (IST is standard, GMT the "saving"): same instants as London.
  ["Dublin gap", "Europe/Dublin", "30 1 * * *", "2026-03-28T12:00:00Z", [
    "2026-03-29T02:30:00+01:00",
    "2026-03-30T01:30:00+01:00",
  ]],
  ["Dublin overlap once", "Europe/Dublin", "30 1 * * *", "2026-10-24T12:00:00Z", [
    "2026-10-25T01:30:00+01:00",
    "2026-10-26T01:30:00+00:00",
  ]],
  ["Dublin overlap hourly", "Europe/Dublin", "0 * * * *", "2026-10-24T23:30:00Z", [
    "2026-10-25T01:00:00+01:00",
    "2026-10-25T01:00:00+00:00",
    "2026-10-25T02:00:00+00:00",
  ]],
  // Chatham +12:45/+13:45: overlap 2026-04-04T14:00Z (03:45 -> 02:45); gap 2026-09-26T14:00Z (02:45 -> 03:45).
  ["Chatham overlap once", "Pacific/Chatham", "0 3 * * *", "2026-04-04T12:00:00Z", [
    "2026-04-05T03:00:00+13:45",
    "2026-04-06T03:00:00+12:45",
  ]],
  ["Chatham gap", "Pacific/Chatham", "0 3 * * *", "2026-09-26T12:00:00Z", [
    "2026-09-27T04:00:00+13:45",
    "2026-09-28T03:00:00+13:45",
  ]],
  ["Chatham overlap all hours", "Pacific/Chatham", "*/30 * * * *", "2026-04-04T13:00:00Z", [
    "2026-04-05T03:00:00+13:45",
    "2026-04-05T03:30:00+13:45",
    "2026-04-05T03:00:00+12:45",
    "2026-04-05T03:30:00+12:45",
    "2026-04-05T04:00:00+12:45",
  ]],
  // Troll, 2-hour shifts: gap 2026-03-29T01:00Z (01:00 -> 03:00); overlap 2026-10-25T01:00Z (03:00 -> 01:00).
  ["Troll gap shifts by 2 hours", "Antarctica/Troll", "30 1 * * *", "2026-03-28T12:00:00Z", [
    "2026-03-29T03:30:00+02:00",
    "2026-03-30T01:30:00+02:00",
  ]],
  ["Troll gap hourly keeps elapsed time", "Antarctica/Troll", "0 * * * *", "2026-03-29T00:30:00Z", [
    "2026-03-29T01:00:00Z",
    "2026-03-29T02:00:00Z",
    "2026-03-29T03:00:00Z",
  ]],
  ["Troll overlap once", "Antarctica/Troll", "30 2 * * *", "2026-10-24T12:00:00Z", [
    "2026-10-25T02:30:00+02:00",
    "2026-10-26T02:30:00+00:00",
  ]],
  // Kiritimati skipped 1994-12-31 (-10 -> +14 at 1994-12-31T10:00Z): the gap straddles New Year in UTC.
  ["Kiritimati: a skipped day across New Year", "Pacific/Kiritimati", "0 23 31 12 *", "1994-12-01T00:00:00Z", [
    "1995-01-01T09:00:00Z",
    "1995-12-31T09:00:00Z",
  ]],
  ["Troll overlap hourly", "Antarctica/Troll", "0 * * * *", "2026-10-24T22:30:00Z", [
    "2026-10-25T01:00:00+02:00",
    "2026-10-25T02:00:00+02:00",
    "2026-10-25T01:00:00+00:00",
    "2026-10-25T02:00:00+00:00",
    "2026-10-25T03:00:00+00:00",
  ]],
];

describe("DST: next()", () => {
  for (const [title, zone, expression, after, fires] of cases) {
    it(`${zone}: ${title} (${expression})`, () => {
      const s = cron(expression, { timezone: zone });
      assert.deepEqual(s.nextRuns(ms(after), fires.length).map(iso), fires.map((f) => iso(ms(f))));
    });
  }
});

describe("DST: prev() and between() agree with next()", () => {
  for (const [title, zone, expression, after, fires] of cases) {
    it(`${zone}: ${title} (${expression})`, () => {
      const s = cron(expression, { timezone: zone });
      const want = fires.map(ms);
      for (let i = want.length - 1; i > 0; i--) assert.equal(iso(s.prev(want[i]!)), iso(want[i - 1]!));
      assert.ok(s.prev(want[0]!)! <= ms(after), "prev of the first fire is not after `after`");
      assert.deepEqual([...s.between(ms(after), want[want.length - 1]!)].map(iso), want.map(iso));
      assert.deepEqual([...s.between(ms(after), want[want.length - 1]! - 1)].map(iso), want.slice(0, -1).map(iso));
    });
  }
});

describe("DST: prev() across transitions", () => {
  it("prev() skips the second copy of a repeated 01:30 in New York", () => {
    const s = cron("30 1 * * *", { timezone: "America/New_York" });
    assert.equal(iso(s.prev(ms("2026-11-01T07:00:00Z"))), iso(ms("2026-11-01T01:30:00-04:00")));
  });

  it("prev() walks both copies of the repeated hour for an hourly schedule", () => {
    const s = cron("30 * * * *", { timezone: "America/New_York" });
    const got = [s.prev(ms("2026-11-01T07:00:00Z"))!];
    got.push(s.prev(got[0]!)!, s.prev(s.prev(got[0]!)!)!);
    assert.deepEqual(got.map(iso), [
      "2026-11-01T06:30:00.000Z",
      "2026-11-01T05:30:00.000Z",
      "2026-11-01T04:30:00.000Z",
    ]);
  });

  it("prev() finds the gap-shifted fire", () => {
    const s = cron("30 2 * * *", { timezone: "America/New_York" });
    assert.equal(iso(s.prev(ms("2026-03-08T08:00:00Z"))), "2026-03-08T07:30:00.000Z");
    assert.equal(iso(s.prev(ms("2026-03-08T07:30:00Z"))), "2026-03-07T07:30:00.000Z");
  });
});
