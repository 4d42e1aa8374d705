/**
 * Steps wall-clock time (seconds since 1970-01-01T00:00 local) to the next or previous
 * matching second, whole fields at a time: months, days and the time of day by bit
 * masks (lowest or highest set bit at or past a value); a year field skips whole years.
 * The cost is bounded by the 400-year Gregorian cycle, never by the distance in minutes.
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
import { highestBit, lowestBit, monthDays, next60, prev60 } from "./compile.ts";
import type { CompiledCron } from "./compile.ts";

/** Years outside 1..9999 are not searched. */
export const MIN_YEAR = 1;
export const MAX_YEAR = 9999;
// The calendar repeats every 400 years: 4 800 months bound any search.
const MAX_MONTHS = 4_812;

// Smallest allowed year >= y, or -1.
function nextYear(years: readonly number[], y: number): number {
  for (const v of years) if (v >= y) return v;
  return -1;
}

// Largest allowed year <= y, or -1.
function prevYear(years: readonly number[], y: number): number {
  for (let i = years.length - 1; i >= 0; i--) if (years[i]! <= y) return years[i]!;
  return -1;
}

// Smallest allowed hour >= h (0 <= h <= 24), or -1.
function nextHour(c: CompiledCron, h: number): number {
  const m = c.hours & (-1 << h);
  return m === 0 ? -1 : lowestBit(m);
}

// Largest allowed hour <= h (-1 <= h <= 23), or -1.
function prevHour(c: CompiledCron, h: number): number {
  const m = h < 0 ? 0 : c.hours & ((2 << h) - 1);
  return m === 0 ? -1 : highestBit(m);
}

// Smallest allowed month >= m (1 <= m <= 12), or -1.
function nextMonth(c: CompiledCron, m: number): number {
  const bits = c.months & (-1 << m);
  return bits === 0 ? -1 : lowestBit(bits);
}

// Largest allowed month <= m (1 <= m <= 12), or -1.
function prevMonth(c: CompiledCron, m: number): number {
  const bits = c.months & ((2 << m) - 1);
  return bits === 0 ? -1 : highestBit(bits);
}

function timeAtOrAfter(c: CompiledCron, sod: number): number {
  const h = Math.floor(sod / 3600);
  const mi = Math.floor((sod % 3600) / 60);
  const s = sod % 60;
  let H = nextHour(c, h);
  if (H < 0) return -1;
  if (H > h) return H * 3600 + c.firstMinute * 60 + c.firstSecond;
  let M = next60(c.minuteLo, c.minuteHi, mi);
  if (M > mi) return H * 3600 + M * 60 + c.firstSecond;
  if (M === mi) {
    const S = next60(c.secondLo, c.secondHi, s);
    if (S >= 0) return H * 3600 + M * 60 + S;
    M = next60(c.minuteLo, c.minuteHi, mi + 1);
    if (M >= 0) return H * 3600 + M * 60 + c.firstSecond;
  }
  H = nextHour(c, h + 1);
  return H < 0 ? -1 : H * 3600 + c.firstMinute * 60 + c.firstSecond;
}

function timeAtOrBefore(c: CompiledCron, sod: number): number {
  const h = Math.floor(sod / 3600);
  const mi = Math.floor((sod % 3600) / 60);
  const s = sod % 60;
  let H = prevHour(c, h);
  if (H < 0) return -1;
  if (H < h) return H * 3600 + c.lastMinute * 60 + c.lastSecond;
  let M = prev60(c.minuteLo, c.minuteHi, mi);
  if (M >= 0 && M < mi) return H * 3600 + M * 60 + c.lastSecond;
  if (M === mi) {
    const S = prev60(c.secondLo, c.secondHi, s);
    if (S >= 0) return H * 3600 + M * 60 + S;
    M = prev60(c.minuteLo, c.minuteHi, mi - 1);
    if (M >= 0) return H * 3600 + M * 60 + c.lastSecond;
  }
  H = prevHour(c, h - 1);
  return H < 0 ? -1 : H * 3600 + c.lastMinute * 60 + c.lastSecond;
}

/** Smallest matching wall second >= `wall`, or `Infinity`. */
export function nextWall(c: CompiledCron, wall: number): number {
  const days = Math.floor(wall / DAY_SECONDS);
  let sod = wall - days * DAY_SECONDS;
  const packed = civilFromDays(days);
  let y = civilYear(packed), m = civilMonth(packed), d = civilDay(packed);
  // Day number of the 1st of month m while the search is still in the starting month.
  let first = y < MIN_YEAR ? daysFromCivil(MIN_YEAR, 1, 1) : days - d + 1;
  if (y < MIN_YEAR) {
    y = MIN_YEAR, m = 1, d = 1, sod = 0;
  }
  for (let i = 0; i < MAX_MONTHS; i++) {
    if (i > 0 || ((c.months >> m) & 1) === 0) {
      const nm = nextMonth(c, m);
      if (nm !== m) {
        if (nm < 0) {
          y++;
          m = lowestBit(c.months);
        } else m = nm;
        d = 1;
        sod = 0;
      }
      first = daysFromCivil(y, m, 1);
    }
    if (y > MAX_YEAR) return Infinity;
    if (c.years !== null) {
      const ny = nextYear(c.years, y);
      if (ny < 0) return Infinity;
      if (ny !== y) {
        y = ny, m = lowestBit(c.months), d = 1, sod = 0;
        first = daysFromCivil(y, m, 1);
      }
    }
    let mask = monthDays(c, daysInMonth(y, m), weekday(first)) & (-1 << (d - 1));
    if (mask !== 0) {
      let day = 32 - Math.clz32(mask & -mask);
      if (day !== d) return (first + day - 1) * DAY_SECONDS + c.firstTime;
      const time = timeAtOrAfter(c, sod);
      if (time >= 0) return (first + day - 1) * DAY_SECONDS + time;
      mask &= mask - 1;
      if (mask !== 0) {
        day = 32 - Math.clz32(mask & -mask);
        return (first + day - 1) * DAY_SECONDS + c.firstTime;
      }
    }
    if (++m > 12) {
      m = 1;
      y++;
    }
    d = 1;
    sod = 0;
  }
  return Infinity;
}

/** Largest matching wall second <= `wall`, or `-Infinity`. */
export function prevWall(c: CompiledCron, wall: number): number {
  const days = Math.floor(wall / DAY_SECONDS);
  let sod = wall - days * DAY_SECONDS;
  const packed = civilFromDays(days);
  let y = civilYear(packed), m = civilMonth(packed), d = civilDay(packed);
  if (y > MAX_YEAR) {
    y = MAX_YEAR, m = 12, d = 31, sod = DAY_SECONDS - 1;
  }
  for (let i = 0; i < MAX_MONTHS; i++) {
    const pm = prevMonth(c, m);
    if (pm !== m) {
      if (pm < 0) {
        y--;
        m = highestBit(c.months);
      } else m = pm;
      d = daysInMonth(y, m);
      sod = DAY_SECONDS - 1;
    }
    if (y < MIN_YEAR) return -Infinity;
    if (c.years !== null) {
      const py = prevYear(c.years, y);
      if (py < 0) return -Infinity;
      if (py !== y) y = py, m = highestBit(c.months), d = daysInMonth(y, m), sod = DAY_SECONDS - 1;
    }
    const first = daysFromCivil(y, m, 1);
    let mask = monthDays(c, daysInMonth(y, m), weekday(first)) & (d >= 31 ? -1 : (1 << d) - 1);
    if (mask !== 0) {
      let day = 32 - Math.clz32(mask);
      if (day !== d) return (first + day - 1) * DAY_SECONDS + c.lastTime;
      const time = timeAtOrBefore(c, sod);
      if (time >= 0) return (first + day - 1) * DAY_SECONDS + time;
      mask &= ~(1 << (d - 1));
      if (mask !== 0) {
        day = 32 - Math.clz32(mask);
        return (first + day - 1) * DAY_SECONDS + c.lastTime;
      }
    }
    if (--m < 1) {
      m = 12;
      y--;
    }
    d = daysInMonth(y, m);
    sod = DAY_SECONDS - 1;
  }
  return -Infinity;
}
