// Nothing a string can contain makes cron() hang or throw anything but a SchedulerError;
// accepted expressions also answer next() and prev(). Each call is timed: the bound is
// generous on purpose, the point is to catch loops, not to benchmark.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { cron } from "../../../src/core/cron/mod.ts";
import { SchedulerError } from "../../../src/core/errors.ts";

const BOUND_MS = 50;
const TOKENS = [
  "*", "?", "L", "W", "LW", "#", "/", "-", ",", " ", "  ", "\t", "\n", "0", "1", "5", "7", "12", "15", "23", "29", "30", "31",
  "59", "60", "61", "99999999999999999999", "1e3", "-1", "MON", "fri", "jan", "DEC", "@daily", "@every", "@", "+", "5L",
  "1#5", "0#1", "1-5/2", "*/0", "*/1", "*/61", "15W", "H", "\u0000", "\u00e9", "０", "٣", "NaN", "Infinity", "__proto__",
];
const token = fc.constantFrom(...TOKENS);
const soup = fc.array(token, { maxLength: 40 }).map((t) => t.join(""));
const fieldsSoup = fc.array(fc.array(token, { minLength: 1, maxLength: 5 }).map((t) => t.join("")), { minLength: 1, maxLength: 7 })
  .map((f) => f.join(" "));

function check(expression: string, timezone: string): void {
  const started = performance.now();
  let accepted = false;
  try {
    const s = cron(expression, { timezone });
    accepted = true;
    const next = s.next(Date.UTC(2026, 0, 1));
    const prev = s.prev(Date.UTC(2026, 0, 1));
    assert.ok(next === null || next > Date.UTC(2026, 0, 1));
    assert.ok(prev === null || prev < Date.UTC(2026, 0, 1));
  } catch (e) {
    if (accepted || !(e instanceof SchedulerError)) throw e;
    assert.match(e.code, /^invalid-/);
  }
  const elapsed = performance.now() - started;
  assert.ok(elapsed < BOUND_MS, `${JSON.stringify(expression)} took ${elapsed.toFixed(1)} ms`);
}

describe("cron() fuzz", () => {
  it("random strings return a schedule or throw SchedulerError, quickly", () => {
    fc.assert(fc.property(fc.string({ maxLength: 60, unit: "binary" }), (s) => check(s, "UTC")), { numRuns: 500 });
  });

  it("token soups return a schedule or throw SchedulerError, quickly", () => {
    fc.assert(fc.property(soup, (s) => check(s, "UTC")), { numRuns: 500 });
  });

  it("field-shaped soups in a DST zone return a schedule or throw SchedulerError, quickly", () => {
    fc.assert(fc.property(fieldsSoup, (s) => check(s, "America/New_York")), { numRuns: 1000 });
  });

  it("pathological inputs are refused or answered quickly", () => {
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
