import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cron } from "../../../src/core/cron/mod.ts";
import type { CronOptions } from "../../../src/core/cron/mod.ts";
import { assertSchedulerError, iso, ms } from "../_helpers.ts";

// 2026-01-01 is a Thursday; Feb 1 and Mar 1 2026 are Sundays.
const AFTER = "2026-01-01T00:00:00Z";

const valid: Array<[string, CronOptions, string[]]> = [
  ["* * * * *", {}, ["2026-01-01T00:01:00Z", "2026-01-01T00:02:00Z"]],
  ["*/15 * * * *", {}, ["2026-01-01T00:15:00Z", "2026-01-01T00:30:00Z"]],
  ["5/20 * * * *", {}, [
    "2026-01-01T00:05:00Z",
    "2026-01-01T00:25:00Z",
    "2026-01-01T00:45:00Z",
    "2026-01-01T01:05:00Z",
  ]],
  ["10-20/5 3 * * *", {}, [
    "2026-01-01T03:10:00Z",
    "2026-01-01T03:15:00Z",
    "2026-01-01T03:20:00Z",
    "2026-01-02T03:10:00Z",
  ]],
  ["30 00 * * *", {}, ["2026-01-01T00:30:00Z", "2026-01-02T00:30:00Z"]],
  ["  0  9\t * *  MON-FRI  ", {}, ["2026-01-01T09:00:00Z", "2026-01-02T09:00:00Z", "2026-01-05T09:00:00Z"]],
  ["0 9 * * mon-fri", {}, ["2026-01-01T09:00:00Z", "2026-01-02T09:00:00Z", "2026-01-05T09:00:00Z"]],
  ["0 0 1 jan,JUL *", {}, ["2026-07-01T00:00:00Z", "2027-01-01T00:00:00Z"]],
  ["0 0 1 */3 *", {}, ["2026-04-01T00:00:00Z", "2026-07-01T00:00:00Z", "2026-10-01T00:00:00Z"]],
  ["@yearly", {}, ["2027-01-01T00:00:00Z", "2028-01-01T00:00:00Z"]],
  ["@ANNUALLY", {}, ["2027-01-01T00:00:00Z"]],
  ["@Monthly", {}, ["2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"]],
  ["@weekly", {}, ["2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"]],
  ["@daily", {}, ["2026-01-02T00:00:00Z"]],
  ["@midnight", {}, ["2026-01-02T00:00:00Z"]],
  [" @hourly ", {}, ["2026-01-01T01:00:00Z", "2026-01-01T02:00:00Z"]],
  ["0 0 L * *", {}, ["2026-01-31T00:00:00Z", "2026-02-28T00:00:00Z", "2026-03-31T00:00:00Z"]],
  ["0 0 L 2 *", {}, ["2026-02-28T00:00:00Z", "2027-02-28T00:00:00Z", "2028-02-29T00:00:00Z"]],
  ["0 0 LW * *", {}, ["2026-01-30T00:00:00Z", "2026-02-27T00:00:00Z", "2026-03-31T00:00:00Z"]],
  ["0 0 15W * *", {}, ["2026-01-15T00:00:00Z", "2026-02-16T00:00:00Z", "2026-03-16T00:00:00Z"]],
  ["0 0 1W * *", {}, ["2026-02-02T00:00:00Z", "2026-03-02T00:00:00Z", "2026-04-01T00:00:00Z"]],
  ["0 0 1W 8 *", {}, ["2026-08-03T00:00:00Z"]],
  ["0 0 31W * *", {}, ["2026-01-30T00:00:00Z", "2026-03-31T00:00:00Z"]],
  ["0 0 1,L * *", {}, ["2026-01-31T00:00:00Z", "2026-02-01T00:00:00Z", "2026-02-28T00:00:00Z"]],
  ["0 0 * * 5L", {}, ["2026-01-30T00:00:00Z", "2026-02-27T00:00:00Z", "2026-03-27T00:00:00Z"]],
  ["0 0 * * FRIL", {}, ["2026-01-30T00:00:00Z", "2026-02-27T00:00:00Z"]],
  // `L` alone in AWS's form is the week's last day, Saturday; it was refused as not a weekday.
  // (In cron's form croner and cron-parser refuse it, and so does cron(): peer_vectors_test.)
  ["0 12 ? * L *", { format: "aws" }, ["2026-01-03T12:00:00Z", "2026-01-10T12:00:00Z"]],
  ["0 0 * * 1#2", {}, ["2026-01-12T00:00:00Z", "2026-02-09T00:00:00Z", "2026-03-09T00:00:00Z"]],
  ["0 0 * * MON#1,fri#3", {}, [
    "2026-01-05T00:00:00Z",
    "2026-01-16T00:00:00Z",
    "2026-02-02T00:00:00Z",
    "2026-02-20T00:00:00Z",
  ]],
  ["0 0 * * 0#5", {}, ["2026-03-29T00:00:00Z", "2026-05-31T00:00:00Z"]],
  ["0 0 * * 7", {}, ["2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"]],
  ["0 12 * * 0,7", {}, ["2026-01-04T12:00:00Z", "2026-01-11T12:00:00Z"]],
  ["0 0 * * 5-7", {}, ["2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z", "2026-01-09T00:00:00Z"]],
  ["0 0 * * SUN-MON", {}, ["2026-01-04T00:00:00Z", "2026-01-05T00:00:00Z", "2026-01-11T00:00:00Z"]],
  ["0 0 * * */2", {}, ["2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z", "2026-01-06T00:00:00Z"]],
  ["0 0 * * MON-FRI/2", {}, ["2026-01-02T00:00:00Z", "2026-01-05T00:00:00Z", "2026-01-07T00:00:00Z"]],
  // N/S runs to the field's end as written, 7 in day-of-week (cronie, cron-parser): 1/2 is
  // Monday, Wednesday, Friday and Sunday, and 5/1 Friday to Sunday. It stopped at 6, without Sunday.
  ["0 0 * * 1/2", {}, ["2026-01-02T00:00:00Z", "2026-01-04T00:00:00Z", "2026-01-05T00:00:00Z"]],
  ["0 0 * * 5/1", {}, ["2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", "2026-01-04T00:00:00Z", "2026-01-09T00:00:00Z"]],
  ["0 0 * * TUE/5", {}, ["2026-01-04T00:00:00Z", "2026-01-06T00:00:00Z", "2026-01-11T00:00:00Z"]],
  // 7/S is Sunday (it was an empty range: "day-of-month * never occurs in month *"; with a day-of-month, no Sundays).
  ["0 0 * * 7/2", {}, ["2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"]],
  ["0 0 1 * 7/1", {}, ["2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z", "2026-01-18T00:00:00Z"]],
  ["0 0 1 * +7/2", {}, ["2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z"]],
  ["0 0 1 JAN-DEC/3 *", {}, ["2026-04-01T00:00:00Z", "2026-07-01T00:00:00Z"]],
  ["0\u00a09 1 1 *", {}, ["2026-01-01T09:00:00Z"]],
  ["*/10 * * * * *", {}, ["2026-01-01T00:00:10Z", "2026-01-01T00:00:20Z"]],
  ["30 0 12 ? * SUN", {}, ["2026-01-04T12:00:30Z", "2026-01-11T12:00:30Z"]],
  ["0 0 0 ? * ?", {}, ["2026-01-02T00:00:00Z"]],
  // Day-of-month OR day-of-week when both are restricted (classic cron).
  ["0 0 13 * FRI", {}, [
    "2026-01-02T00:00:00Z",
    "2026-01-09T00:00:00Z",
    "2026-01-13T00:00:00Z",
    "2026-01-16T00:00:00Z",
  ]],
  ["0 0 13 * FRI", { dayMatch: "and" }, ["2026-02-13T00:00:00Z", "2026-03-13T00:00:00Z", "2026-11-13T00:00:00Z"]],
  ["0 0 13 * +FRI", {}, ["2026-02-13T00:00:00Z", "2026-03-13T00:00:00Z"]],
  // `*/1` is not exactly `*`: the OR rule applies.
  ["0 0 */1 * MON", {}, ["2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"]],
  ["0 0 29 2 *", {}, ["2028-02-29T00:00:00Z", "2032-02-29T00:00:00Z"]],
  ["0 0 29 2 1", {}, [
    "2026-02-02T00:00:00Z",
    "2026-02-09T00:00:00Z",
    "2026-02-16T00:00:00Z",
    "2026-02-23T00:00:00Z",
    "2027-02-01T00:00:00Z",
  ]],
  ["0 0 29 2 1", { dayMatch: "and" }, ["2044-02-29T00:00:00Z", "2072-02-29T00:00:00Z"]],
  ["0 0 31 2,3 *", {}, ["2026-03-31T00:00:00Z", "2027-03-31T00:00:00Z"]],
  ["*/60 * * * * *", {}, ["2026-01-01T00:01:00Z"]],
  ["5 15-23/24 * * *", {}, ["2026-01-01T15:05:00Z", "2026-01-02T15:05:00Z"]],
  ["0 0 1 1 *", { timezone: "Asia/Tokyo" }, ["2026-12-31T15:00:00Z"]],
];

describe("cron() grammar: valid expressions", () => {
  for (const [expression, options, fires] of valid) {
    it(`${JSON.stringify(expression)} ${JSON.stringify(options)} fires at ${fires[0]}, ...`, () => {
      const s = cron(expression, options);
      assert.deepEqual(s.nextRuns(ms(AFTER), fires.length).map(iso), fires.map((f) => iso(ms(f))));
      assert.equal(iso(s.next(ms(AFTER))), iso(ms(fires[0]!)));
    });
  }
});

const invalid: Array<[string, CronOptions, string, string]> = [
  ["61 * * * *", {}, "invalid-cron", 'invalid-cron: minute must be 0-59, got "61"'],
  ["* 24 * * *", {}, "invalid-cron", 'invalid-cron: hour must be 0-23, got "24"'],
  ["* * 0 * *", {}, "invalid-cron", 'invalid-cron: day-of-month must be 1-31, got "0"'],
  ["* * 32 * *", {}, "invalid-cron", 'invalid-cron: day-of-month must be 1-31, got "32"'],
  ["* * * 13 *", {}, "invalid-cron", 'invalid-cron: month must be 1-12 or JAN-DEC, got "13"'],
  ["* * * FOO *", {}, "invalid-cron", 'invalid-cron: month must be 1-12 or JAN-DEC, got "FOO"'],
  ["* * * * 8", {}, "invalid-cron", 'invalid-cron: day-of-week must be 0-7 or SUN-SAT, got "8"'],
  ["* * * * MONDAY", {}, "invalid-cron", 'invalid-cron: day-of-week must be 0-7 or SUN-SAT, got "MONDAY"'],
  ["60 * * * * *", {}, "invalid-cron", 'invalid-cron: second must be 0-59, got "60"'],
  ["-1 * * * *", {}, "invalid-cron", 'invalid-cron: minute must be 0-59, got "" in "-1"'],
  ["1-2-3 * * * *", {}, "invalid-cron", 'invalid-cron: minute must be 0-59, got "2-3" in "1-2-3"'],
  [
    "* * *",
    {},
    "invalid-cron",
    'invalid-cron: expected 5, 6 or 7 fields (second? minute hour day-of-month month day-of-week year?), got 3 in "* * *"',
  ],
  [
    "0 0 0 1 1 * 2030 1",
    {},
    "invalid-cron",
    'invalid-cron: expected 5, 6 or 7 fields (second? minute hour day-of-month month day-of-week year?), got 8 in "0 0 0 1 1 * 2030 1"',
  ],
  [
    "",
    {},
    "invalid-cron",
    'invalid-cron: expected 5, 6 or 7 fields (second? minute hour day-of-month month day-of-week year?), got 0 in ""',
  ],
  ["5-2 * * * *", {}, "invalid-cron", 'invalid-cron: minute range "5-2" is reversed'],
  ["* * * * FRI-MON", {}, "invalid-cron", 'invalid-cron: day-of-week range "FRI-MON" is reversed'],
  ["*/0 * * * *", {}, "invalid-cron", 'invalid-cron: minute step must be 1-60, got "0" in "*/0"'],
  ["*/61 * * * *", {}, "invalid-cron", 'invalid-cron: minute step must be 1-60, got "61" in "*/61"'],
  ["0 */48 * * *", {}, "invalid-cron", 'invalid-cron: hour step must be 1-24, got "48" in "*/48"'],
  ["*/a * * * *", {}, "invalid-cron", 'invalid-cron: minute step must be a number 1-60, got "*/a"'],
  ["1,,2 * * * *", {}, "invalid-cron", 'invalid-cron: minute has an empty term in "1,,2"'],
  ["0 0 1, * *", {}, "invalid-cron", 'invalid-cron: day-of-month has an empty term in "1,"'],
  ["? * * * *", {}, "invalid-cron", 'invalid-cron: minute cannot be "?" (only day-of-month and day-of-week can)'],
  ["0 0 * * 1#6", {}, "invalid-cron", 'invalid-cron: day-of-week "#" must be followed by 1-5, got "1#6"'],
  ["0 0 * * 1#0", {}, "invalid-cron", 'invalid-cron: day-of-week "#" must be followed by 1-5, got "1#0"'],
  ["0 0 l * *", {}, "invalid-cron", 'invalid-cron: day-of-month must be 1-31, got "l"'],
  ["0 0 32W * *", {}, "invalid-cron", 'invalid-cron: day-of-month must be 1-31, got "32" in "32W"'],
  ["H * * * *", {}, "invalid-cron", 'invalid-cron: H needs a hashKey (the job\'s name), got "H" in minute'],
  ["0 0 30 2 *", {}, "invalid-cron", "invalid-cron: day-of-month 30 never occurs in month 2"],
  ["0 0 31 4,6,9,11 *", {}, "invalid-cron", "invalid-cron: day-of-month 31 never occurs in month 4,6,9,11"],
  ["0 0 30W 2 *", {}, "invalid-cron", "invalid-cron: day-of-month 30W never occurs in month 2"],
  [
    "0 0 31 2 1-5",
    { dayMatch: "and" },
    "invalid-cron",
    'invalid-cron: day-of-month 31 and day-of-week 1-5 never meet in month 2 (dayMatch "and")',
  ],
  [
    "0 0 1-7 * 1#2",
    { dayMatch: "and" },
    "invalid-cron",
    'invalid-cron: day-of-month 1-7 and day-of-week 1#2 never meet in month * (dayMatch "and")',
  ],
  [
    "@every 30s",
    {},
    "invalid-cron",
    'invalid-cron: unknown nickname "@every 30s", expected one of @yearly @annually @monthly @weekly @daily @midnight @hourly; for intervals use every() or schedule("@every 30s")',
  ],
  [
    "@reboot",
    {},
    "invalid-cron",
    'invalid-cron: unknown nickname "@reboot", expected one of @yearly @annually @monthly @weekly @daily @midnight @hourly',
  ],
  ["* * * * *", { dayMatch: "xor" as "or" }, "invalid-cron", 'invalid-cron: dayMatch must be "or" or "and", got "xor"'],
  [
    "* * * * *",
    { timezone: "Mars/Olympus" },
    "invalid-timezone",
    'invalid-timezone: timezone: unknown time zone "Mars/Olympus"',
  ],
  [
    "* * * * *",
    { timezone: "" },
    "invalid-timezone",
    'invalid-timezone: timezone: expected an IANA time zone name, got ""',
  ],
];

describe("cron() grammar: invalid expressions", () => {
  for (const [expression, options, code, message] of invalid) {
    it(`rejects ${JSON.stringify(expression)} ${JSON.stringify(options)}`, () => {
      assertSchedulerError(() => cron(expression, options), code, message);
    });
  }

  it("rejects a non-string expression and an over-long one", () => {
    assertSchedulerError(
      () => cron(42 as unknown as string),
      "invalid-cron",
      'invalid-cron: expression must be a string, got "42"',
    );
    assertSchedulerError(() => cron(`0 0 * * ${"1,".repeat(600)}1`), "invalid-cron");
  });
});

describe("cron() normalisation", () => {
  it("keeps the expression trimmed with whitespace collapsed, nicknames in lower case", () => {
    assert.deepEqual(cron("  0   9 *\t* MON ").toJSON(), { cron: "0 9 * * MON", timezone: "UTC" });
    assert.deepEqual(cron("@Daily").toJSON(), { cron: "@daily", timezone: "UTC" });
  });

  it("reads the OCPS + prefix as dayMatch and", () => {
    assert.deepEqual(cron("0 0 13 * +5").toJSON(), { cron: "0 0 13 * 5", timezone: "UTC", dayMatch: "and" });
  });

  it("canonicalises the zone name", () => {
    assert.equal(cron("* * * * *", { timezone: "america/new_york" }).timezone, "America/New_York");
  });
});

describe("cron() field splitting", () => {
  const cases: Array<[string, string]> = [
    ["0\t9 * * MON", "0 9 * * MON"],
    ["0 9 * *\nMON", "0 9 * * MON"],
    ["0\u00a09 * * MON", "0 9 * * MON"],
    ["0\u30009\u2003* * MON", "0 9 * * MON"],
    ["\ufeff0 9 * * MON\u2028", "0 9 * * MON"],
    ["0 9 * * +MON", "0 9 * * +MON"],
    ["0 0 9 * * MON", "0 0 9 * * MON"],
  ];
  for (const [expression, text] of cases) {
    it(`splits ${JSON.stringify(expression)} on whitespace`, () => {
      assert.equal(cron(expression).toString(), text);
      assert.equal(iso(cron(expression).next(ms(AFTER))), "2026-01-05T09:00:00.000Z");
    });
  }

  it("keeps characters that are not whitespace inside a field", () => {
    assertSchedulerError(
      () => cron("0 9 * * MON\u180e"),
      "invalid-cron",
      'invalid-cron: day-of-week must be 0-7 or SUN-SAT, got "MON\u180e"',
    );
    assertSchedulerError(
      () => cron("0 9 * * \u0000"),
      "invalid-cron",
      'invalid-cron: day-of-week must be 0-7 or SUN-SAT, got "\\u0000"',
    );
  });
});
