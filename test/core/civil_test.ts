import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  civilDay,
  civilFromDays,
  civilMonth,
  civilYear,
  daysFromCivil,
  daysInMonth,
  weekday,
} from "../../src/core/civil.ts";

describe("civil calendar arithmetic", () => {
  it("agrees with Date.UTC on random days from year 1 to 9999", () => {
    fc.assert(
      fc.property(fc.integer({ min: -719_162, max: 2_932_896 }), (days) => {
        const d = new Date(days * 86_400_000);
        const packed = civilFromDays(days);
        assert.deepEqual([civilYear(packed), civilMonth(packed), civilDay(packed)], [
          d.getUTCFullYear(),
          d.getUTCMonth() + 1,
          d.getUTCDate(),
        ]);
        assert.equal(daysFromCivil(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()), days);
        assert.equal(weekday(days), d.getUTCDay());
      }),
      { numRuns: 2000 },
    );
  });

  it("knows month lengths and the Gregorian leap rule", () => {
    assert.deepEqual([2024, 2025, 1900, 2000].map((y) => daysInMonth(y, 2)), [29, 28, 28, 29]);
    assert.deepEqual([1, 4, 6, 9, 11, 12].map((m) => daysInMonth(2026, m)), [31, 30, 30, 30, 30, 31]);
    assert.equal(daysFromCivil(1970, 1, 1), 0);
    assert.equal(weekday(daysFromCivil(2026, 1, 1)), 4);
  });
});
