/**
 * Turns parsed fields into what stepping reads: the time fields as bit masks with
 * their first and last values, the months as bits, and the fire days of each month
 * shape, computed on first use (most schedules only ever see a few shapes).
 */
import { daysFromCivil, daysInMonth, weekday } from "../civil.ts";
import { assertFires, dayMask, fullMask, maskIndex } from "./days.ts";
import { fail } from "./fields.ts";
import type { DayMatch } from "../types.ts";
import type { CronFields } from "./parse.ts";
import type { DomSet, DowSet } from "./sets.ts";

/** What stepping needs of one schedule. */
export interface CompiledCron {
  /** Seconds and minutes as two 30-bit words each (bit v, then bit v - 30). */
  readonly secondLo: number;
  readonly secondHi: number;
  readonly minuteLo: number;
  readonly minuteHi: number;
  /** Hours as bits (`1 << hour`). */
  readonly hours: number;
  /** Months as bits (`1 << month`). */
  readonly months: number;
  readonly firstMinute: number;
  readonly firstSecond: number;
  readonly lastMinute: number;
  readonly lastSecond: number;
  /** Seconds of day of the first and last allowed time. */
  readonly firstTime: number;
  readonly lastTime: number;
  /** The hour field allows all 24 hours: a repeated hour fires twice (elapsed time). */
  readonly allHours: boolean;
  readonly dom: DomSet;
  readonly dow: DowSet;
  readonly dayMatch: DayMatch;
  /** Allowed years, ascending, or null for every year. */
  readonly years: readonly number[] | null;
  /**
   * Memo of fire days per month shape at `maskIndex(length, firstWeekday)`, -1 until
   * computed; null when every day fires. A plain array: allocating a typed array costs
   * more than the rest of parsing.
   */
  readonly dayMemo: number[] | null;
}

/** Lowest set bit of a non-zero 32-bit mask. */
export function lowestBit(mask: number): number {
  return 31 - Math.clz32(mask & -mask);
}

/** Highest set bit of a non-zero 32-bit mask. */
export function highestBit(mask: number): number {
  return 31 - Math.clz32(mask);
}

/** Smallest value >= v (0 <= v <= 60) in a 0..59 set held as two 30-bit words, or -1. */
export function next60(lo: number, hi: number, v: number): number {
  if (v < 30) {
    const m = lo & (-1 << v);
    if (m !== 0) return lowestBit(m);
    v = 30;
  }
  const m = hi & (-1 << (v - 30));
  return m === 0 ? -1 : 30 + lowestBit(m);
}

/** Largest value <= v (-1 <= v <= 59) in a 0..59 set held as two 30-bit words, or -1. */
export function prev60(lo: number, hi: number, v: number): number {
  if (v >= 30) {
    const m = hi & ((2 << (v - 30)) - 1);
    if (m !== 0) return 30 + highestBit(m);
    v = 29;
  }
  if (v < 0) return -1;
  const m = lo & ((2 << v) - 1);
  return m === 0 ? -1 : highestBit(m);
}

/**
 * The fire days of a month of `length` days starting on weekday `first`, as bits
 * (`1 << (day - 1)`).
 */
export function monthDays(c: CompiledCron, length: number, first: number): number {
  const memo = c.dayMemo;
  if (memo === null) return fullMask(length);
  const i = maskIndex(length, first);
  const known = memo[i]!;
  if (known >= 0) return known;
  const mask = dayMask(c.dom, c.dow, c.dayMatch, length, first);
  // The memo belongs to this compiled schedule and caches a pure function of it.
  memo[i] = mask;
  return mask;
}

/**
 * Compiles parsed fields.
 *
 * @throws {SchedulerError} `invalid-cron` when the day fields can never fire in the months
 */
export function compileCron(fields: CronFields, dayMatch: DayMatch): CompiledCron {
  const { second, minute, hours, dom, dow } = fields;
  // Second, minute and hour sets are never empty: every term names at least one value.
  const firstSecond = next60(second.lo, second.hi, 0), firstMinute = next60(minute.lo, minute.hi, 0);
  const lastSecond = prev60(second.lo, second.hi, 59), lastMinute = prev60(minute.lo, minute.hi, 59);
  const compiled: CompiledCron = {
    secondLo: second.lo,
    secondHi: second.hi,
    minuteLo: minute.lo,
    minuteHi: minute.hi,
    hours,
    months: fields.month,
    firstMinute,
    firstSecond,
    lastMinute,
    lastSecond,
    firstTime: lowestBit(hours) * 3600 + firstMinute * 60 + firstSecond,
    lastTime: highestBit(hours) * 3600 + lastMinute * 60 + lastSecond,
    allHours: hours === 0xffffff,
    dom,
    dow,
    dayMatch,
    years: fields.years,
    dayMemo: dom.any && dow.any ? null : new Array<number>(28).fill(-1),
  };
  if (compiled.dayMemo !== null) {
    assertFires((length, first) => monthDays(compiled, length, first), fields.month, dow.any, dayMatch, fields.texts);
  }
  if (fields.years !== null) assertFiresInYears(compiled, fields.years, fields.texts);
  return compiled;
}

// With a year field, some allowed year must hold a fire day: "0 0 29 2 * 2027" never fires.
function assertFiresInYears(c: CompiledCron, years: readonly number[], texts: CronFields["texts"]): void {
  for (const y of years) {
    for (let m = 1; m <= 12; m++) {
      if (((c.months >> m) & 1) !== 0 && monthDays(c, daysInMonth(y, m), weekday(daysFromCivil(y, m, 1))) !== 0) return;
    }
  }
  fail(
    `never fires: day-of-month ${texts.dom}, month ${texts.month} and day-of-week ${texts.dow} meet in no year of ${texts.year}`,
  );
}
