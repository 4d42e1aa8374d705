import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { at } from "../../src/core/at.ts";
import { cron } from "../../src/core/cron/mod.ts";
import { every } from "../../src/core/every.ts";
import { schedule } from "../../src/core/schedule.ts";
import type { Schedule, ScheduleSpec } from "../../src/core/types.ts";
import { assertSchedulerError, ms } from "./_helpers.ts";

const T = ms("2026-03-07T12:00:00Z");

describe("schedule(): inputs", () => {
  it("reads a cron string, with an optional CRON_TZ= or TZ= prefix", () => {
    assert.equal(schedule("0 9 * * *").kind, "cron");
    assert.equal(schedule("CRON_TZ=Europe/Berlin 0 9 * * MON-FRI").timezone, "Europe/Berlin");
    assert.equal(schedule("TZ=Asia/Tokyo 0 9 * * *").timezone, "Asia/Tokyo");
  });

  it("refuses a CRON_TZ= or TZ= prefix with no zone by name, saying what to write", () => {
    // It said `invalid-cron: second must be 0-59, got "CRON_TZ="`.
    assertSchedulerError(
      () => schedule("CRON_TZ= 0 9 * * *"),
      "invalid-timezone",
      'invalid-timezone: timezone: CRON_TZ= names no zone in "CRON_TZ= 0 9 * * *": write an IANA zone right ' +
        "after the = (CRON_TZ=Europe/Berlin 0 9 * * *), or drop the prefix for UTC",
    );
    assertSchedulerError(
      () => schedule("TZ=\t0 9 * * *", { timezone: "Asia/Tokyo" }),
      "invalid-timezone",
      'invalid-timezone: timezone: TZ= names no zone in "TZ=\\t0 9 * * *": write an IANA zone right ' +
        "after the = (TZ=Europe/Berlin 0 9 * * *), or drop the prefix for Asia/Tokyo",
    );
    for (const text of ["CRON_TZ=", "  TZ=  @every 1m", "CRON_TZ= 0 0 9 * * * 2027"]) {
      assertSchedulerError(() => schedule(text), "invalid-timezone");
    }
    // In lower case the prefix was read as the seconds field ("second step must be a number 1-60").
    for (const text of ["cron_tz=Europe/Berlin 0 9 * * *", "tz=UTC @every 1m", "Cron_Tz=UTC 0 9 * * *"]) {
      assert.throws(() => schedule(text), /invalid-timezone: timezone: the prefix is written (CRON_)?TZ= in capitals/);
    }
  });

  it("refuses two zone prefixes (the second won over the first without a word)", () => {
    assertSchedulerError(
      () => schedule("CRON_TZ=Europe/Berlin CRON_TZ=UTC 0 9 * * *"),
      "invalid-timezone",
      'invalid-timezone: timezone: one CRON_TZ= or TZ= prefix, got two in "CRON_TZ=Europe/Berlin CRON_TZ=UTC 0 9 * * *"',
    );
    for (const text of ["TZ=Asia/Tokyo CRON_TZ=Europe/Berlin 0 9 * * *", "TZ=UTC TZ=UTC @every 1m"]) {
      assertSchedulerError(() => schedule(text), "invalid-timezone");
    }
  });

  it("refuses an option cron(), every() or schedule() does not take (it was ignored: { tz } ran in UTC)", () => {
    assertSchedulerError(
      () => cron("0 9 * * *", { tz: "Europe/Berlin" } as never),
      "invalid-spec",
      'invalid-spec: options: unknown option "tz" of cron() (it takes timezone, dayMatch, hashKey, format, except, ' +
        "startAt, endAt)",
    );
    assert.throws(
      () => every("1h", { timeZone: "Europe/Berlin" } as never),
      /unknown option "timeZone" of every\(\) .*; did you mean "timezone"\?/,
    );
    assertSchedulerError(() => schedule("0 0 13 * 5", { dayMatch: "and" } as never), "invalid-spec");
    // Options that are not an object were read as none (every, a string) or threw a TypeError (null).
    for (const options of [null, "Europe/Berlin"]) {
      assertSchedulerError(() => every("1h", options as never), "invalid-spec");
      assertSchedulerError(() => schedule("0 9 * * *", options as never), "invalid-spec");
    }
    // A key set to undefined (an options object built by spreading) is no option.
    assert.equal(cron("0 9 * * *", { tz: undefined } as never).timezone, "UTC");
  });

  it("uses options.timezone for inputs that name no zone; a prefix or spec zone wins", () => {
    assert.equal(schedule("0 9 * * *", { timezone: "Asia/Tokyo" }).timezone, "Asia/Tokyo");
    assert.equal(schedule("CRON_TZ=Europe/Paris 0 9 * * *", { timezone: "Asia/Tokyo" }).timezone, "Europe/Paris");
    assert.equal(schedule({ cron: "0 9 * * *" }, { timezone: "Asia/Tokyo" }).timezone, "Asia/Tokyo");
    assert.equal(schedule({ cron: "0 9 * * *", timezone: "UTC" }, { timezone: "Asia/Tokyo" }).timezone, "UTC");
  });

  it("reads @every text, which cron() refuses", () => {
    assert.equal(schedule("@every 30s").next(0), 30_000);
    assert.equal(
      schedule("@EVERY 1h from 2026-01-01T00:20:00Z").next(ms("2026-01-01T05:00:00Z")),
      ms("2026-01-01T05:20:00Z"),
    );
    assertSchedulerError(() => cron("@every 30s"), "invalid-cron");
  });

  it("reads an ISO instant as a one-shot", () => {
    assert.equal(schedule("2026-12-24T17:00:00Z").kind, "at");
  });

  it("reads every spec shape", () => {
    assert.equal(schedule({ cron: "0 0 13 * 5", dayMatch: "and" }).next(T), ms("2026-03-13T00:00:00Z"));
    assert.equal(schedule({ every: "15m", anchor: 60_000 }).next(0), 60_000);
    assert.equal(schedule({ at: 5_000 }).next(0), 5_000);
  });

  it("returns a Schedule as is", () => {
    const s = cron("* * * * *");
    assert.equal(schedule(s), s);
  });

  it("refuses unknown shapes with the code of the failing part", () => {
    assertSchedulerError(() => schedule(42 as unknown as string), "invalid-spec");
    assertSchedulerError(() => schedule(null as unknown as string), "invalid-spec");
    assertSchedulerError(() => schedule({ when: "daily" } as unknown as ScheduleSpec), "invalid-spec");
    assertSchedulerError(() => schedule("@every"), "invalid-interval");
    assertSchedulerError(() => schedule("@every 10s from"), "invalid-interval");
    assertSchedulerError(() => schedule({ cron: "61 * * * *" }), "invalid-cron");
    assertSchedulerError(() => schedule({ cron: 5 } as unknown as ScheduleSpec), "invalid-cron");
    assertSchedulerError(() => schedule("CRON_TZ=Mars/Base 0 9 * * *"), "invalid-timezone");
    assertSchedulerError(() => schedule("2026-13-45T00:00:00Z"), "invalid-instant");
  });

  it("refuses a spec field its kind does not take, and two kinds at once (they ran on defaults without a word)", () => {
    assertSchedulerError(
      () => schedule({ cron: "0 9 * * *", tz: "Europe/Berlin" } as unknown as ScheduleSpec),
      "invalid-spec",
      "invalid-spec: schedule.tz: unknown field of a { cron } schedule " +
        "(it takes cron, timezone, dayMatch, hashKey, format, except, startAt, endAt)",
    );
    assertSchedulerError(
      () => schedule({ cron: "0 * * * *", every: "1h" } as unknown as ScheduleSpec),
      "invalid-spec",
      'invalid-spec: schedule: one of "cron", "every" or "at", got cron and every',
    );
    assertSchedulerError(() => schedule({ at: 0, timezone: "UTC" } as unknown as ScheduleSpec), "invalid-spec");
    assertSchedulerError(() => schedule({ every: "1h", dayMatch: "and" } as unknown as ScheduleSpec), "invalid-spec");
  });
});

describe("between(): its iterator", () => {
  it("answers each step with a result of its own, so one kept keeps its value", () => {
    // One result object served every step: three kept results all read the last slot.
    const it = every("1h").between(0, 3 * 3_600_000)[Symbol.iterator]();
    const kept = [it.next(), it.next(), it.next(), it.next()];
    assert.deepEqual(kept.map((r) => r.value), [3_600_000, 7_200_000, 10_800_000, undefined]);
    assert.deepEqual(kept.map((r) => r.done), [false, false, false, true]);
    // Each pass starts over.
    const range = cron("0 * * * *").between(0, 7_200_000);
    assert.deepEqual([...range], [3_600_000, 7_200_000]);
    assert.deepEqual([...range], [3_600_000, 7_200_000]);
  });
});

describe("schedule(): round trips", () => {
  const samples: Schedule[] = [
    cron("*/15 9-17 * * MON-FRI"),
    cron("0 0 13 * FRI", { dayMatch: "and", timezone: "America/New_York" }),
    cron("0 0 13 * +FRI"),
    cron("@daily", { timezone: "Australia/Lord_Howe" }),
    cron("30 0 12 ? * SUN", { timezone: "Europe/Dublin" }),
    cron("0 0 L * *", { timezone: "Asia/Kathmandu" }),
    every("15m"),
    every("90s", { anchor: "2026-01-01T00:00:07Z" }),
    every("1h", { anchor: "09:30", timezone: "Pacific/Chatham" }),
    every("6h", { timezone: "Europe/Berlin" }),
    at("2026-12-24T17:00:00Z"),
    // Outside years 0000–9999 toISOString() writes a signed six-digit year, which
    // schedule() refused: the text of an accepted schedule did not come back.
    at(Date.UTC(10_000, 0, 1)),
    at(-1e14),
    every("1h", { anchor: 8.64e15 }),
    every("1h", { anchor: -8.64e15 }),
  ];

  for (const s of samples) {
    it(`${String(s)} comes back equal from toJSON() and toString()`, () => {
      const fromJson = schedule(JSON.parse(JSON.stringify(s)) as ScheduleSpec);
      const fromText = schedule(String(s));
      assert.deepEqual(fromJson.toJSON(), s.toJSON());
      assert.deepEqual(fromText.toJSON(), s.toJSON());
      assert.equal(String(fromText), String(s));
      assert.deepEqual(fromJson.nextRuns(T, 5), s.nextRuns(T, 5));
      assert.deepEqual(fromText.nextRuns(T, 5), s.nextRuns(T, 5));
    });
  }

  it("writes cron text as cronie/Kubernetes do", () => {
    assert.equal(String(cron("0 9 * * *")), "0 9 * * *");
    assert.equal(String(cron("0 9 * * *", { timezone: "Europe/Berlin" })), "CRON_TZ=Europe/Berlin 0 9 * * *");
    assert.equal(String(cron("0 0 13 * 5", { dayMatch: "and" })), "0 0 13 * +5");
  });
});
