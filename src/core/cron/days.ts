/**
 * Which days of a month fire: a month's day mask depends only on its length (28–31)
 * and the weekday of its first day, so a schedule needs at most 28 masks.
 */
import { fail } from "./fields.ts";
import type { DayMatch } from "../types.ts";
import type { DomSet, DowSet } from "./sets.ts";

/** Index into a day-mask table: `(daysInMonth - 28) * 7 + weekdayOfFirst`. */
export function maskIndex(monthLength: number, firstWeekday: number): number {
  return (monthLength - 28) * 7 + firstWeekday;
}

function bit(day: number): number {
  return 1 << (day - 1);
}

/** Every day of a month of `length` days. */
export function fullMask(length: number): number {
  return length === 31 ? 0x7fffffff : bit(length + 1) - 1;
}

function domMask(dom: DomSet, length: number, first: number): number {
  let mask = dom.days & fullMask(length);
  if (dom.last) mask |= bit(length);
  if (dom.lastWeekday) {
    const wd = (first + length - 1) % 7;
    mask |= bit(wd === 6 ? length - 1 : wd === 0 ? length - 2 : length);
  }
  for (let n = 1; n <= length && dom.nearest !== 0; n++) {
    if ((dom.nearest & bit(n)) === 0) continue;
    // Nearest weekday that stays inside the month (Quartz `nW`): 1W on a Saturday is Monday the 3rd.
    const wd = (first + n - 1) % 7;
    if (wd === 6) mask |= bit(n > 1 ? n - 1 : n + 2);
    else if (wd === 0) mask |= bit(n < length ? n + 1 : n - 2);
    else mask |= bit(n);
  }
  return mask;
}

function hasNth(dow: DowSet): boolean {
  for (let k = 0; k < 5; k++) if ((dow.nth[k] ?? 0) !== 0) return true;
  return false;
}

function dowMask(dow: DowSet, length: number, first: number): number {
  // Weekday set rotated so that bit j is the weekday of day j+1, then repeated weekly.
  const rotated = ((dow.days >> first) | (dow.days << (7 - first))) & 0x7f;
  let mask = (rotated | (rotated << 7) | (rotated << 14) | (rotated << 21) | (rotated << 28)) & fullMask(length);
  if (dow.last === 0 && !hasNth(dow)) return mask;
  const lastWeekday = (first + length - 1) % 7;
  for (let wd = 0; wd < 7; wd++) {
    if ((dow.last & (1 << wd)) !== 0) mask |= bit(length - ((lastWeekday - wd + 7) % 7));
    for (let k = 0; k < 5; k++) {
      if (((dow.nth[k] ?? 0) & (1 << wd)) === 0) continue;
      const day = 1 + ((wd - first + 7) % 7) + 7 * k;
      if (day <= length) mask |= bit(day);
    }
  }
  return mask;
}

/** The fire days of a month as bits (`1 << (day - 1)`). */
export function dayMask(dom: DomSet, dow: DowSet, dayMatch: DayMatch, length: number, first: number): number {
  if (dom.any && dow.any) return fullMask(length);
  if (dow.any) return domMask(dom, length, first);
  if (dom.any) return dowMask(dow, length, first);
  const a = domMask(dom, length, first);
  const b = dowMask(dow, length, first);
  return dayMatch === "and" ? a & b : a | b;
}

const LENGTHS: readonly (readonly number[])[] = [[], [31], [28, 29], [31], [30], [31], [30], [31], [31], [30], [31], [
  30,
], [31]];

/**
 * Checks that some selected month has a fire day; `monthDays(length, firstWeekday)`
 * gives a month shape's fire days.
 *
 * @throws {SchedulerError} `invalid-cron: day-of-month 30 never occurs in month 2`
 */
export function assertFires(
  monthDays: (length: number, first: number) => number,
  months: number,
  anyDow: boolean,
  dayMatch: DayMatch,
  texts: { readonly dom: string; readonly month: string; readonly dow: string },
): void {
  for (let m = 1; m <= 12; m++) {
    if ((months & (1 << m)) === 0) continue;
    for (const length of LENGTHS[m]!) {
      for (let first = 0; first < 7; first++) if (monthDays(length, first) !== 0) return;
    }
  }
  if (anyDow || dayMatch === "or") fail(`day-of-month ${texts.dom} never occurs in month ${texts.month}`);
  fail(`day-of-month ${texts.dom} and day-of-week ${texts.dow} never meet in month ${texts.month} (dayMatch "and")`);
}
