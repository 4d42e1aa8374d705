/**
 * Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01),
 * integer-only so the schedule hot path never builds a `Date` or Temporal object.
 */

/** Seconds in a civil day. */
export const DAY_SECONDS = 86_400;

/**
 * Day number of a civil date (days since 1970-01-01; negative before).
 *
 * @example daysFromCivil(2026, 3, 8) // 20520
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = month > 2 ? month - 3 : month + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/**
 * Civil date of a day number, packed as `year * 512 + month * 32 + day` so that the
 * hot path needs no allocation; unpack with {@link civilYear}, {@link civilMonth},
 * {@link civilDay}.
 *
 * @example civilFromDays(0) // packs 1970-01-01
 */
export function civilFromDays(days: number): number {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return year * 512 + month * 32 + day;
}

/** Year of a packed civil date. */
export function civilYear(packed: number): number {
  return Math.floor(packed / 512);
}

/** Month (1–12) of a packed civil date. */
export function civilMonth(packed: number): number {
  return (packed >> 5) & 15;
}

/** Day of month (1–31) of a packed civil date. */
export function civilDay(packed: number): number {
  return packed & 31;
}

/** Day of week of a day number: 0 = Sunday … 6 = Saturday. */
export function weekday(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

/** True in Gregorian leap years. */
export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** Number of days in a month (1–12) of a year. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
