/**
 * The value sets of the cron fields as bit masks: one field's text (a comma list of
 * terms) becomes integers, read term by term in place.
 */
import { quote } from "../errors.ts";
import { COMMA, DIGIT_0, L, W } from "./chars.ts";
import {
  DAY_OF_MONTH,
  DAY_OF_WEEK,
  digitsAt,
  fail,
  rangeFrom,
  rangeStep,
  rangeTo,
  termRangeAt,
  valueAt,
  YEAR,
} from "./fields.ts";
import type { FieldDef } from "./fields.ts";

/** A set of 0..59 as two 30-bit words: bit v of `lo` for v < 30, bit v - 30 of `hi`. */
export interface Bits60 {
  readonly lo: number;
  readonly hi: number;
}

/** Day-of-month set: plain days as bits (`1 << (day - 1)`) plus the `L`/`W` forms. */
export interface DomSet {
  readonly days: number;
  readonly last: boolean;
  readonly lastWeekday: boolean;
  /** `nW` days as bits (`1 << (n - 1)`). */
  readonly nearest: number;
  /** The field is exactly `*` or `?`. */
  readonly any: boolean;
}

/** Day-of-week set: weekdays as bits (`1 << weekday`, 0 = Sunday) plus `nL` and `n#k`. */
export interface DowSet {
  readonly days: number;
  /** `nL`: last such weekday of the month, as bits. */
  readonly last: number;
  /** `n#k`: index k-1 holds the weekdays wanted as the k-th of the month. */
  readonly nth: readonly number[];
  readonly any: boolean;
}

const ANY_DOM: DomSet = Object.freeze({ days: 0x7fffffff, last: false, lastWeekday: false, nearest: 0, any: true });
const NO_NTH: readonly number[] = Object.freeze([0, 0, 0, 0, 0]);
const ANY_DOW: DowSet = Object.freeze({ days: 0x7f, last: 0, nth: NO_NTH, any: true });

// Rejects empty terms before any term is read, so "61,,2" is reported as the empty term.
function checkTerms(def: FieldDef, text: string): void {
  const n = text.length;
  if (n === 0 || text.charCodeAt(0) === COMMA || text.charCodeAt(n - 1) === COMMA || text.includes(",,")) {
    fail(`${def.name} has an empty term in ${quote(text)}`);
  }
}

function termEnd(text: string, start: number): number {
  const comma = text.indexOf(",", start);
  return comma < 0 ? text.length : comma;
}

function checkNotAny(def: FieldDef, text: string): void {
  if (text === "?") fail(`${def.name} cannot be "?" (only day-of-month and day-of-week can)`);
}

/** Bits `v - shift` for v in `from..to` by `step`; every bit must fall in 0..31. */
function rangeBits(range: number, shift: number): number {
  const from = rangeFrom(range), to = rangeTo(range), step = rangeStep(range);
  if (from > to) return 0;
  if (step === 1) return ((2 << (to - shift)) - 1) & -(1 << (from - shift));
  let bits = 0;
  for (let v = from; v <= to; v += step) bits |= 1 << (v - shift);
  return bits;
}

/**
 * A field of at most 32 values (hour, month) as bits `1 << value`.
 *
 * @throws {SchedulerError} `invalid-cron` for a bad term
 */
export function smallSet(def: FieldDef, text: string, key: string | undefined): number {
  checkNotAny(def, text);
  checkTerms(def, text);
  let bits = 0;
  for (let start = 0; start < text.length;) {
    const end = termEnd(text, start);
    bits |= rangeBits(termRangeAt(def, text, start, end, key), 0);
    start = end + 1;
  }
  return bits;
}

/**
 * A second or minute field as two 30-bit words.
 *
 * @throws {SchedulerError} `invalid-cron` for a bad term
 */
export function set60(def: FieldDef, text: string, key: string | undefined): Bits60 {
  checkNotAny(def, text);
  checkTerms(def, text);
  let lo = 0, hi = 0;
  for (let start = 0; start < text.length;) {
    const end = termEnd(text, start);
    const range = termRangeAt(def, text, start, end, key);
    const from = rangeFrom(range), to = rangeTo(range), step = rangeStep(range);
    for (let v = from; v <= to; v += step) {
      if (v < 30) lo |= 1 << v;
      else hi |= 1 << (v - 30);
    }
    start = end + 1;
  }
  return { lo, hi };
}

/**
 * The day-of-month field: days, `L`, `LW`, `nW`.
 *
 * @throws {SchedulerError} `invalid-cron` for a bad term
 */
export function domSet(text: string, key: string | undefined): DomSet {
  if (text === "*" || text === "?") return ANY_DOM;
  checkTerms(DAY_OF_MONTH, text);
  let days = 0, nearest = 0, last = false, lastWeekday = false;
  for (let start = 0; start < text.length;) {
    const end = termEnd(text, start);
    const length = end - start;
    const c0 = text.charCodeAt(start);
    if (length === 1 && c0 === L) last = true;
    else if (length === 2 && c0 === L && text.charCodeAt(start + 1) === W) lastWeekday = true;
    else if (length > 1 && text.charCodeAt(end - 1) === W && digitsAt(text, start, end - 1) >= 0) {
      nearest |= 1 << (valueAt(DAY_OF_MONTH, text, start, end - 1, start, end) - 1);
    } else days |= rangeBits(termRangeAt(DAY_OF_MONTH, text, start, end, key), 1);
    start = end + 1;
  }
  return { days, last, lastWeekday, nearest, any: false };
}

/**
 * The day-of-week field: weekdays (7 is Sunday too), `nL`, `n#k`. `def` is
 * `DAY_OF_WEEK` (0-7, 0 is Sunday) or `AWS_DAY_OF_WEEK` (1-7, 1 is Sunday).
 *
 * @throws {SchedulerError} `invalid-cron` for a bad term
 */
export function dowSet(text: string, key: string | undefined, def: FieldDef = DAY_OF_WEEK): DowSet {
  if (text === "*" || text === "?") return ANY_DOW;
  checkTerms(def, text);
  // Weekday number as written minus `shift` is 0-6 from Sunday (7 wraps to Sunday).
  const shift = def.min;
  let days = 0, last = 0;
  let nth: number[] | null = null;
  for (let start = 0; start < text.length;) {
    const end = termEnd(text, start);
    let hash = text.indexOf("#", start);
    if (hash >= end) hash = -1;
    if (hash >= 0) {
      const day = (valueAt(def, text, start, hash, start, end) - shift) % 7;
      const k = end - hash === 2 ? text.charCodeAt(hash + 1) - DIGIT_0 : -1;
      if (k < 1 || k > 5) fail(`day-of-week "#" must be followed by 1-5, got ${quote(text.slice(start, end))}`);
      nth ??= [0, 0, 0, 0, 0];
      nth[k - 1]! |= 1 << day;
    } else if (end - start === 1 && text.charCodeAt(start) === L && def !== DAY_OF_WEEK) {
      days |= 1 << 6; // `L` alone in AWS's form: the week's last day, Saturday (croner and cron-parser refuse it in cron's)
    } else if (end - start > 1 && text.charCodeAt(end - 1) === L) {
      last |= 1 << ((valueAt(def, text, start, end - 1, start, end) - shift) % 7);
    } else {
      const range = termRangeAt(def, text, start, end, key);
      const from = rangeFrom(range), to = rangeTo(range), step = rangeStep(range);
      for (let v = from; v <= to; v += step) days |= 1 << ((v - shift) % 7);
    }
    start = end + 1;
  }
  return { days, last, nth: nth ?? NO_NTH, any: false };
}

/**
 * The year field (1970-2099) as the sorted years it allows, or null for `*`: every
 * year, with no end.
 *
 * @throws {SchedulerError} `invalid-cron` for a bad term
 */
export function yearSet(text: string, key: string | undefined): readonly number[] | null {
  checkNotAny(YEAR, text);
  if (text === "*") return null;
  checkTerms(YEAR, text);
  const allowed = new Array<boolean>(YEAR.max - YEAR.min + 1).fill(false);
  for (let start = 0; start < text.length;) {
    const end = termEnd(text, start);
    const range = termRangeAt(YEAR, text, start, end, key);
    const from = rangeFrom(range), to = rangeTo(range), step = rangeStep(range);
    for (let v = from; v <= to; v += step) allowed[v - YEAR.min] = true;
    start = end + 1;
  }
  const years: number[] = [];
  allowed.forEach((on, i) => on && years.push(YEAR.min + i));
  return years;
}
