/**
 * Day and time-of-day stepping for exclusions: whether a local day is one of a cron
 * expression's days, the next or previous day that is not (month by month), and the
 * first or last second of a day outside its time sets.
 */
import {
  civilDay,
  civilFromDays,
  civilMonth,
  civilYear,
  DAY_SECONDS,
  daysFromCivil,
  daysInMonth,
  weekday,
} from "../civil.ts";
import { lowestBit, monthDays, next60, prev60 } from "../cron/compile.ts";
import type { CompiledCron } from "../cron/compile.ts";
import { fullMask } from "../cron/days.ts";

/** Both 30-bit words of a full 0..59 set. */
export const ALL30 = 0x3fffffff;
/** Day numbers past which no search goes (year 10000), and before which (year 1). */
export const END_DAYS = daysFromCivil(10_000, 1, 1);
export const START_DAYS = daysFromCivil(1, 1, 1);

/** Whether `v` is in a 0..59 set held as two 30-bit words. */
export function bit60(lo: number, hi: number, v: number): boolean {
  return v < 30 ? ((lo >>> v) & 1) === 1 : ((hi >>> (v - 30)) & 1) === 1;
}

/** Whether local day `day` (days since 1970-01-01) is one of the expression's days. */
export function dayMatches(c: CompiledCron, day: number): boolean {
  const p = civilFromDays(day);
  const y = civilYear(p), m = civilMonth(p), d = civilDay(p);
  if (((c.months >>> m) & 1) === 0 || (c.years !== null && !c.years.includes(y))) return false;
  const first = day - d + 1;
  return ((monthDays(c, daysInMonth(y, m), weekday(first)) >>> (d - 1)) & 1) === 1;
}

/** Every day of every month matches: only the year field can end a run of days. */
export function everyDay(c: CompiledCron): boolean {
  return c.dayMemo === null && (c.months & 0x1ffe) === 0x1ffe;
}

/** First day >= `day` that is not one of the expression's days, month by month. */
export function nextOtherDay(c: CompiledCron, day: number): number {
  if (everyDay(c)) {
    if (c.years === null) return END_DAYS;
    let y = civilYear(civilFromDays(day));
    while (c.years.includes(y)) y++;
    return Math.max(day, daysFromCivil(y, 1, 1));
  }
  while (day < END_DAYS) {
    const p = civilFromDays(day);
    const y = civilYear(p), m = civilMonth(p), d = civilDay(p);
    if (((c.months >>> m) & 1) === 0 || (c.years !== null && !c.years.includes(y))) return day;
    const first = day - d + 1, length = daysInMonth(y, m);
    const off = ~monthDays(c, length, weekday(first)) & fullMask(length) & (-1 << (d - 1));
    if (off !== 0) return first + lowestBit(off);
    day = first + length;
  }
  return END_DAYS;
}

/** Last day <= `day` that is not one of the expression's days, month by month. */
export function prevOtherDay(c: CompiledCron, day: number): number {
  if (everyDay(c)) {
    if (c.years === null) return START_DAYS - 1;
    let y = civilYear(civilFromDays(day));
    while (c.years.includes(y)) y--;
    return Math.min(day, daysFromCivil(y + 1, 1, 1) - 1);
  }
  while (day >= START_DAYS) {
    const p = civilFromDays(day);
    const y = civilYear(p), m = civilMonth(p), d = civilDay(p);
    if (((c.months >>> m) & 1) === 0 || (c.years !== null && !c.years.includes(y))) return day;
    const first = day - d + 1, length = daysInMonth(y, m);
    const off = ~monthDays(c, length, weekday(first)) & (d >= 31 ? 0x7fffffff : (1 << d) - 1);
    if (off !== 0) return first + 31 - Math.clz32(off);
    day = first - 1;
  }
  return START_DAYS - 1;
}

/** First second of day >= `sod` outside the expression's time sets, or a day's length. */
export function firstOff(c: CompiledCron, sod: number): number {
  let h = Math.floor(sod / 3600), mi = Math.floor((sod % 3600) / 60), s = sod % 60;
  for (; h < 24; h++, mi = 0, s = 0) {
    if (((c.hours >>> h) & 1) === 0) return h * 3600 + mi * 60 + s;
    for (; mi < 60; mi++, s = 0) {
      if (!bit60(c.minuteLo, c.minuteHi, mi)) return h * 3600 + mi * 60 + s;
      const free = next60(~c.secondLo & ALL30, ~c.secondHi & ALL30, s);
      if (free >= 0) return h * 3600 + mi * 60 + free;
    }
  }
  return DAY_SECONDS;
}

/** Last second of day <= `sod` outside the expression's time sets, or -1. */
export function lastOff(c: CompiledCron, sod: number): number {
  let h = Math.floor(sod / 3600), mi = Math.floor((sod % 3600) / 60), s = sod % 60;
  for (; h >= 0; h--, mi = 59, s = 59) {
    if (((c.hours >>> h) & 1) === 0) return h * 3600 + mi * 60 + s;
    for (; mi >= 0; mi--, s = 59) {
      if (!bit60(c.minuteLo, c.minuteHi, mi)) return h * 3600 + mi * 60 + s;
      const free = prev60(~c.secondLo & ALL30, ~c.secondHi & ALL30, s);
      if (free >= 0) return h * 3600 + mi * 60 + free;
    }
  }
  return -1;
}
