import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { at, cron, every, schedule, SchedulerError } from "../../../src/core/mod.ts";

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

describe("schedule modifiers", () => {
  it("a DST-shifted slot is judged at the wall time it actually fires at", () => {
    // 02:30 does not exist in New York on 2026-03-08: the slot fires at 03:30, which "30 2" does not match.
    const s = cron("30 2 * * *", { timezone: "America/New_York", except: ["30 2 * 3 *"] });
    assert.equal(iso(s.next(Date.UTC(2026, 2, 1))), "2026-03-08T07:30:00.000Z");
    assert.equal(iso(s.next(Date.UTC(2026, 2, 8, 8))), "2026-04-01T06:30:00.000Z");
    // Excluding 03:30 instead removes exactly the shifted slot.
    const t = cron("30 2 * * *", { timezone: "America/New_York", except: "30 3 * * *" });
    assert.equal(iso(t.next(Date.UTC(2026, 2, 7, 8))), "2026-03-09T06:30:00.000Z");
  });

  it("an hourly schedule keeps the repeated hour's second copy when only the first wall hour is excluded by time", () => {
    // 2026-11-01 01:00-01:59 happens twice in New York; "0 * * * *" fires in both copies.
    const plain = cron("0 * * * *", { timezone: "America/New_York" });
    const s = cron("0 * * * *", { timezone: "America/New_York", except: "* 0 1 11 *" });
    const from = Date.UTC(2026, 10, 1, 3, 30);
    assert.deepEqual(s.nextRuns(from, 3).map(iso), plain.nextRuns(from, 4).slice(1).map(iso));
  });

  it("a 5-field exclusion covers every second of its minutes; a 6-field one only its seconds", () => {
    const s = cron("*/20 * * * * *", { except: "0 12 * * *" });
    assert.equal(iso(s.next(Date.UTC(2027, 0, 1, 11, 59, 50))), "2027-01-01T12:01:00.000Z");
    const t = cron("*/20 * * * * *", { except: "0 0 12 * * *" });
    assert.equal(iso(t.next(Date.UTC(2027, 0, 1, 11, 59, 50))), "2027-01-01T12:00:20.000Z");
  });

  it("every() and at() take the same modifiers, judged in their zone", () => {
    const e = every("6h", { anchor: "00:00", timezone: "Asia/Tokyo", except: ["* 0-5 * * *"] });
    assert.equal(iso(e.next(Date.UTC(2027, 0, 1, 14))), "2027-01-01T21:00:00.000Z");
    assert.throws(
      () => schedule({ at: Date.UTC(2027, 0, 1, 9) }, { except: "2027-01-01" }),
      /every fire time is excluded/,
    );
    const once = schedule({ at: Date.UTC(2027, 0, 1, 9) }, { endAt: Date.UTC(2027, 0, 1, 9) });
    assert.equal(once.next(0), null, "endAt is exclusive");
  });

  it("toJSON() carries the modifiers and schedule() reads them back", () => {
    const s = cron("H 9 * * 1-5", {
      timezone: "Europe/Berlin",
      hashKey: "job",
      except: ["H 9 24 12 *", "2027-04-02"],
      startAt: "2027-01-01T00:00:00Z",
      endAt: new Date("2028-01-01T00:00:00Z"),
    });
    const spec = s.toJSON();
    assert.deepEqual(spec, {
      cron: "H 9 * * 1-5",
      timezone: "Europe/Berlin",
      hashKey: "job",
      except: ["H 9 24 12 *", "2027-04-02"],
      startAt: Date.UTC(2027, 0, 1),
      endAt: Date.UTC(2028, 0, 1),
    });
    const back = schedule(JSON.parse(JSON.stringify(spec)) as typeof spec);
    assert.deepEqual(back.nextRuns(0, 300), s.nextRuns(0, 300));
    // 2027 has 261 weekdays; two are excluded; endAt ends the year.
    assert.equal(back.nextRuns(0, 300).length, 259);
    assert.equal(s.toString(), "CRON_TZ=Europe/Berlin H 9 * * 1-5");
    // H in an exclusion alone also keeps the key.
    const e = every("1h", { except: "H * * * *", hashKey: "k" });
    assert.equal(e.toJSON().hashKey, "k");
  });

  it("prev() mirrors next() across excluded stretches", () => {
    const s = cron("*/30 * * * *", { timezone: "Europe/London", except: ["* * * * 0,6", "* 0-7 * * *", "2027-03-29"] });
    const fires = s.nextRuns(Date.UTC(2027, 2, 20), 200);
    for (let i = 1; i < fires.length; i++) assert.equal(s.prev(fires[i]!), fires[i - 1]);
  });

  it("refuses bad modifiers by name", () => {
    const code = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        assert.ok(e instanceof SchedulerError);
        return `${e.code} ${e.path} ${e.message}`;
      }
      return "no error";
    };
    assert.match(
      code(() => cron("* * * * *", { except: [5 as unknown as string] })),
      /^invalid-spec except\[0\] .*got "5"/,
    );
    assert.match(code(() => cron("* * * * *", { except: { a: 1 } as unknown as string })), /^invalid-spec except /);
    assert.match(code(() => cron("* * * * *", { except: "2027-13-01" })), /"2027-13-01" is not a calendar date/);
    assert.match(code(() => cron("* * * * *", { startAt: NaN })), /^invalid-instant startAt/);
    // A fractional bound let the slot at its whole millisecond through.
    assert.match(
      code(() => cron("* * * * *", { startAt: 1000.5 })),
      /^invalid-instant startAt .*startAt: expected whole epoch milliseconds, got "1000.5"/,
    );
    assert.match(
      code(() => cron("* * * * *", { endAt: 0.5 })),
      /^invalid-instant endAt .*endAt: expected whole epoch milliseconds, got "0.5"/,
    );
    assert.match(
      code(() => cron("* * * * *", { startAt: 10, endAt: 5 })),
      /^invalid-spec endAt .*must be after startAt/,
    );
    assert.match(
      code(() => cron("* * * * *", { except: Array.from({ length: 1001 }, () => "2027-01-01") })),
      /at most 1000/,
    );
    assert.match(code(() => cron("H * * * *", { hashKey: "a", except: "H * * * *" })), /every fire time is excluded/);
  });

  it("schedule() applies its modifier options to a Schedule it is given (they were dropped)", () => {
    const s = schedule(cron("0 0 * * *"), { except: ["2026-01-02"], endAt: "2026-01-05T00:00:00Z" });
    assert.deepEqual(s.nextRuns(Date.UTC(2026, 0, 1), 5).map(iso), [
      "2026-01-03T00:00:00.000Z",
      "2026-01-04T00:00:00.000Z",
    ]);
    assert.deepEqual(s.toJSON(), {
      cron: "0 0 * * *",
      timezone: "UTC",
      except: ["2026-01-02"],
      endAt: Date.UTC(2026, 0, 5),
    });
    const plain = cron("0 0 * * *");
    assert.equal(schedule(plain, { timezone: "Europe/Berlin" }), plain);
  });

  it("modifiers added to a schedule that has some keep both in toJSON(), which round-trips", () => {
    const inner = cron("0 0 * * *", {
      except: ["2026-01-02"],
      startAt: "2026-01-01T00:00:00Z",
      endAt: Date.UTC(2026, 1),
    });
    const s = schedule(inner, { except: ["2026-01-03"], startAt: 0, endAt: "2026-01-10T00:00:00Z" });
    const from = Date.UTC(2025, 11, 30);
    assert.deepEqual(s.nextRuns(from, 2).map(iso), ["2026-01-01T00:00:00.000Z", "2026-01-04T00:00:00.000Z"]);
    assert.deepEqual(s.toJSON(), {
      cron: "0 0 * * *",
      timezone: "UTC",
      except: ["2026-01-02", "2026-01-03"],
      startAt: Date.UTC(2026, 0, 1),
      endAt: Date.UTC(2026, 0, 10),
    });
    const back = schedule(s.toJSON());
    assert.deepEqual(back.nextRuns(from, 20), s.nextRuns(from, 20));
  });

  it("an at() or a first slot decades away takes a cron exclusion that misses it (it was refused: every fire time is excluded)", () => {
    const once = schedule({ at: Date.UTC(2026, 0, 1, 5, 10), except: ["0 0 2 1 *"] });
    assert.equal(once.next(0), Date.UTC(2026, 0, 1, 5, 10));
    const later = at("2070-06-01T00:00:00Z");
    assert.equal(schedule(later, { except: "* * 2 6 *", startAt: Date.UTC(2026, 0, 1) }).next(0), later.next(0));
    assert.throws(() => schedule(later, { except: "* * 1 6 *" }), /every fire time is excluded/);
  });

  it("an { at } spec's own hashKey is what H in its exclusions hashes, so its toJSON() comes back", () => {
    // FNV-1a("backup\u0000minute") % 60 = 9: the exclusion covers 05:09, not the slot at 05:10.
    const once = schedule("2026-01-01T05:10:00Z", { except: ["H 5 * * *"], hashKey: "backup" });
    const spec = once.toJSON();
    assert.deepEqual(spec, { at: Date.UTC(2026, 0, 1, 5, 10), except: ["H 5 * * *"], hashKey: "backup" });
    assert.deepEqual(schedule(spec).toJSON(), spec);
    assert.equal(schedule(spec).next(0), Date.UTC(2026, 0, 1, 5, 10));
    // With the key read, the exclusion is judged: the same slot at 05:09 is refused.
    assert.throws(() => schedule({ ...spec, at: Date.UTC(2026, 0, 1, 5, 9) }), /every fire time is excluded/);
  });

  it("refuses a zone prefix on an exclusion, saying exclusions take the schedule's zone", () => {
    // It said `except[0]: invalid-cron: second step must be a number 1-60, got "CRON_TZ=Asia/Tokyo"`.
    assert.throws(
      () => cron("0 9 * * *", { timezone: "Europe/Berlin", except: ["2027-01-01", "CRON_TZ=Asia/Tokyo * * 1 1 *"] }),
      (e: unknown) =>
        e instanceof SchedulerError && e.path === "except[1]" &&
        e.message ===
          "invalid-spec: except[1]: an exclusion is read in the schedule's zone and takes no zone prefix, " +
            'got "CRON_TZ=Asia/Tokyo * * 1 1 *"',
    );
    assert.throws(() => every("1h", { except: "tz=UTC 0 * * * *" }), /takes no zone prefix/);
  });
});
