// Nothing a string can contain makes cron() hang or throw anything but a SchedulerError;
// accepted expressions also answer next() and prev(), in the future and the past. No
// wall-clock bound here (speed is `npm run bench`'s business): a loop shows as a hang.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { cron } from "../../../src/core/cron/mod.ts";
import { SchedulerError } from "../../../src/core/errors.ts";

const TOKENS = [
  "*",
  "?",
  "L",
  "W",
  "LW",
  "#",
  "/",
  "-",
  ",",
  " ",
  "  ",
  "\t",
  "\n",
  "0",
  "1",
  "5",
  "7",
  "12",
  "15",
  "23",
  "29",
  "30",
  "31",
  "59",
  "60",
  "61",
  "99999999999999999999",
  "1e3",
  "-1",
  "MON",
  "fri",
  "jan",
  "DEC",
  "@daily",
  "@every",
  "@",
  "+",
  "5L",
  "1#5",
  "0#1",
  "1-5/2",
  "*/0",
  "*/1",
  "*/61",
  "15W",
  "H",
  "\u0000",
  "\u00e9",
  "０",
  "٣",
  "NaN",
  "Infinity",
  "__proto__",
  "H(",
  ")",
  "H(1-5)",
  "H/7",
  "1969",
  "1970",
  "2027",
  "2099",
  "2100",
];
const token = fc.constantFrom(...TOKENS);
const soup = fc.array(token, { maxLength: 40 }).map((t) => t.join(""));
const fieldsSoup = fc.array(fc.array(token, { minLength: 1, maxLength: 5 }).map((t) => t.join("")), {
  minLength: 1,
  maxLength: 7,
})
  .map((f) => f.join(" "));

function check(expression: string, timezone: string, hashKey?: string): void {
  let accepted = false;
  try {
    const s = cron(expression, hashKey === undefined ? { timezone } : { timezone, hashKey });
    accepted = true;
    const next = s.next(Date.UTC(2026, 0, 1));
    const prev = s.prev(Date.UTC(2026, 0, 1));
    assert.ok(next === null || next > Date.UTC(2026, 0, 1));
    assert.ok(prev === null || prev < Date.UTC(2026, 0, 1));
  } catch (e) {
    if (accepted || !(e instanceof SchedulerError)) throw e;
    assert.match(e.code, /^invalid-/);
  }
}

describe("cron() fuzz", () => {
  it("random strings return a schedule or throw SchedulerError", () => {
    fc.assert(fc.property(fc.string({ maxLength: 60, unit: "binary" }), (s) => check(s, "UTC")), { numRuns: 500 });
  });

  it("token soups return a schedule or throw SchedulerError", () => {
    fc.assert(fc.property(soup, (s) => check(s, "UTC")), { numRuns: 500 });
  });

  it("field-shaped soups in a DST zone return a schedule or throw SchedulerError", () => {
    fc.assert(fc.property(fieldsSoup, (s) => check(s, "America/New_York")), { numRuns: 1000 });
  });

  it("field-shaped soups with a hash key, in a DST zone, return a schedule or throw SchedulerError", () => {
    fc.assert(fc.property(fieldsSoup, (s) => check(s, "Europe/Berlin", "job-7")), { numRuns: 1000 });
  });

  it("pathological inputs are refused or answered", () => {
    const cases = [
      "0,".repeat(340) + "0 * * * *",
      `${"1-59/1,".repeat(100)}1 * * * *`,
      "* ".repeat(600),
      "x".repeat(100_000),
      `0 0 ${"L,".repeat(200)}L * *`,
      "0 0 29 2 1#5",
      "59 23 31 12 0#5",
    ];
    for (const c of cases) check(c, "Pacific/Chatham");
  });
});
