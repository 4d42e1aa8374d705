import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileCron, highestBit, lowestBit, monthDays, next60, prev60 } from "../../../src/core/cron/compile.ts";
import { dayMask } from "../../../src/core/cron/days.ts";
import { parseCron } from "../../../src/core/cron/parse.ts";

// A 0..59 set from a predicate, as the two 30-bit words the stepper reads.
function words(has: (v: number) => boolean): { lo: number; hi: number } {
  let lo = 0, hi = 0;
  for (let v = 0; v < 60; v++) {
    if (!has(v)) continue;
    if (v < 30) lo |= 1 << v;
    else hi |= 1 << (v - 30);
  }
  return { lo, hi };
}

const SETS: Array<[string, (v: number) => boolean]> = [
  ["empty", () => false],
  ["all", () => true],
  ["only 0", (v) => v === 0],
  ["only 29", (v) => v === 29],
  ["only 30", (v) => v === 30],
  ["only 59", (v) => v === 59],
  ["every 7th", (v) => v % 7 === 0],
  ["29 and 30", (v) => v === 29 || v === 30],
  ["upper half", (v) => v >= 30],
];

describe("next60() and prev60()", () => {
  for (const [name, has] of SETS) {
    it(`agree with a linear scan over ${name}`, () => {
      const { lo, hi } = words(has);
      for (let v = 0; v <= 60; v++) {
        let want = -1;
        for (let u = v; u < 60; u++) {
          if (has(u)) {
            want = u;
            break;
          }
        }
        assert.equal(next60(lo, hi, v), want, `next60 at ${v}`);
      }
      for (let v = -1; v < 60; v++) {
        let want = -1;
        for (let u = v; u >= 0; u--) {
          if (has(u)) {
            want = u;
            break;
          }
        }
        assert.equal(prev60(lo, hi, v), want, `prev60 at ${v}`);
      }
    });
  }

  it("lowestBit() and highestBit() find bit 0, bit 30 and bit 31", () => {
    assert.deepEqual([lowestBit(1), highestBit(1)], [0, 0]);
    assert.deepEqual([lowestBit(0x40000001), highestBit(0x40000001)], [0, 30]);
    assert.deepEqual([lowestBit(-0x80000000), highestBit(-1)], [31, 31]);
  });
});

describe("compileCron()", () => {
  it("keeps the first and last time of day", () => {
    const c = compileCron(parseCron("10-20/5 5,45 3,22 * * *"), "or");
    assert.equal(c.firstTime, 3 * 3600 + 5 * 60 + 10);
    assert.equal(c.lastTime, 22 * 3600 + 45 * 60 + 20);
    assert.equal(c.allHours, false);
    assert.equal(compileCron(parseCron("0 * * * *"), "or").allHours, true);
  });

  it("monthDays() answers every month shape like dayMask(), computed or remembered", () => {
    for (
      const [expr, dayMatch] of [["0 0 15W,L * 5L,1#2", "or"], ["0 0 1-7 * MON", "and"], ["0 0 LW * *", "or"]] as const
    ) {
      const fields = parseCron(expr);
      const c = compileCron(fields, dayMatch);
      for (let pass = 0; pass < 2; pass++) {
        for (let length = 28; length <= 31; length++) {
          for (let first = 0; first < 7; first++) {
            assert.equal(
              monthDays(c, length, first),
              dayMask(fields.dom, fields.dow, dayMatch, length, first),
              `${expr} ${length}/${first}`,
            );
          }
        }
      }
    }
  });

  it("needs no memo when every day fires", () => {
    const c = compileCron(parseCron("0 0 * * *"), "or");
    assert.equal(c.dayMemo, null);
    assert.equal(monthDays(c, 30, 3), 0x3fffffff);
    assert.equal(monthDays(c, 31, 3), 0x7fffffff);
  });
});
