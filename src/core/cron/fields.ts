/**
 * The numeric cron fields: names, ranges and the parser of one term
 * (`*`, `N`, `A-B`, `*\/S`, `A-B/S`, `N/S`, `H`, `H(A-B)`, `H/S`, `H(A-B)/S`). Terms are
 * read in place, by index into the field's text, so a valid expression is parsed
 * without slicing or regexes.
 */
import { quote, SchedulerError } from "../errors.ts";
import { DIGIT_0, H, OPEN_PAREN, SLASH, STAR } from "./chars.ts";
import { fieldHash } from "./hash.ts";

/** Static description of one cron field. */
export interface FieldDef {
  readonly name: string;
  readonly min: number;
  /** Largest value `*` stands for. */
  readonly max: number;
  /** Largest value a user may write (7 for day-of-week, which also means Sunday). */
  readonly maxWritten: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTH_NAMES = {
  JAN: 1,
  FEB: 2,
  MAR: 3,
  APR: 4,
  MAY: 5,
  JUN: 6,
  JUL: 7,
  AUG: 8,
  SEP: 9,
  OCT: 10,
  NOV: 11,
  DEC: 12,
};
const DAY_NAMES = { SUN: 0, MON: 1, TUE: 2, WED: 3, THU: 4, FRI: 5, SAT: 6 };
const AWS_DAY_NAMES = { SUN: 1, MON: 2, TUE: 3, WED: 4, THU: 5, FRI: 6, SAT: 7 };

/** The six fields, in expression order (`second` only in 6-field expressions). */
export const SECOND: FieldDef = { name: "second", min: 0, max: 59, maxWritten: 59 };
export const MINUTE: FieldDef = { name: "minute", min: 0, max: 59, maxWritten: 59 };
export const HOUR: FieldDef = { name: "hour", min: 0, max: 23, maxWritten: 23 };
export const DAY_OF_MONTH: FieldDef = { name: "day-of-month", min: 1, max: 31, maxWritten: 31 };
export const MONTH: FieldDef = { name: "month", min: 1, max: 12, maxWritten: 12, names: MONTH_NAMES };
export const DAY_OF_WEEK: FieldDef = { name: "day-of-week", min: 0, max: 6, maxWritten: 7, names: DAY_NAMES };
/** Day-of-week of the AWS form: 1-7, 1 is Sunday. */
export const AWS_DAY_OF_WEEK: FieldDef = { name: "day-of-week", min: 1, max: 7, maxWritten: 7, names: AWS_DAY_NAMES };
/** The optional 7th field (the 6th of the AWS form). */
export const YEAR: FieldDef = { name: "year", min: 1970, max: 2099, maxWritten: 2099 };

// `H` in day-of-month stays within 1-28 (as Jenkins does), so it fires in every month.
const HASH_DOM_MAX = 28;

/** Throws the one error type of the grammar. */
export function fail(message: string): never {
  throw new SchedulerError("invalid-cron", message);
}

function rangeText(def: FieldDef): string {
  const numbers = `${def.min}-${def.maxWritten}`;
  if (def.names === undefined) return numbers;
  const names = Object.keys(def.names);
  return `${numbers} or ${names[0]}-${names[names.length - 1]}`;
}

/**
 * The number written in `text[start, end)`: one or more ASCII digits (leading zeros
 * allowed), else -1.
 *
 * @example digitsAt("*\/15", 2, 4) // 15
 */
export function digitsAt(text: string, start: number, end: number): number {
  if (start >= end) return -1;
  let value = 0;
  for (let i = start; i < end; i++) {
    const d = text.charCodeAt(i) - DIGIT_0;
    if (d < 0 || d > 9) return -1;
    value = value * 10 + d;
  }
  return value;
}

/**
 * Parses the value `text[start, end)` of a term `text[termStart, termEnd)`: digits or a
 * name, any case.
 *
 * @throws {SchedulerError} `invalid-cron: minute must be 0-59, got "61"`
 */
export function valueAt(
  def: FieldDef,
  text: string,
  start: number,
  end: number,
  termStart: number,
  termEnd: number,
): number {
  let value: number | undefined = digitsAt(text, start, end);
  if (value < 0) {
    value = def.names !== undefined && end - start === 3 ? def.names[text.slice(start, end).toUpperCase()] : undefined;
  }
  if (value === undefined || value < def.min || value > def.maxWritten) {
    const shown = start === termStart && end === termEnd
      ? quote(text.slice(start, end))
      : `${quote(text.slice(start, end))} in ${quote(text.slice(termStart, termEnd))}`;
    fail(`${def.name} must be ${rangeText(def)}, got ${shown}`);
  }
  return value;
}

/**
 * Packs a term's range into one 32-bit integer (values below 4096, so years fit; step
 * below 256); read back with {@link rangeFrom}, {@link rangeTo}, {@link rangeStep}.
 */
function packRange(from: number, to: number, step: number): number {
  return from | (to << 12) | (step << 24);
}

/** First value of a packed term range. */
export function rangeFrom(range: number): number {
  return range & 4095;
}

/** Last value (inclusive) of a packed term range. */
export function rangeTo(range: number): number {
  return (range >>> 12) & 4095;
}

/** Step of a packed term range. */
export function rangeStep(range: number): number {
  return range >>> 24;
}

function stepAt(def: FieldDef, text: string, slash: number, start: number, end: number, limit: number): number {
  const step = digitsAt(text, slash + 1, end);
  if (step < 0) fail(`${def.name} step must be a number 1-${limit}, got ${quote(text.slice(start, end))}`);
  if (step < 1 || step > limit) {
    fail(
      `${def.name} step must be 1-${limit}, got ${quote(text.slice(slash + 1, end))} in ${
        quote(text.slice(start, end))
      }`,
    );
  }
  return step;
}

/**
 * The range of a hashed term `H`, `H(A-B)`, `H/S` or `H(A-B)/S` at `text[start, end)`:
 * with `h = fieldHash(key, def.name)`, `H` is `lo + h % (hi - lo + 1)`, `H/S` is every
 * S-th value of `lo..hi` from `lo + h % S`, where `lo..hi` is `A..B` or the whole field
 * (`1..28` for day-of-month).
 */
function hashedRangeAt(def: FieldDef, text: string, start: number, end: number, key: string | undefined): number {
  const term = text.slice(start, end);
  if (key === undefined) fail(`H needs a hashKey (the job's name), got ${quote(term)} in ${def.name}`);
  let lo = def.min, hi = def === DAY_OF_MONTH ? HASH_DOM_MAX : def.max;
  let i = start + 1;
  if (text.charCodeAt(i) === OPEN_PAREN) {
    const close = text.indexOf(")", i);
    const dash = text.indexOf("-", i);
    if (close < 0 || close >= end || dash < 0 || dash > close) fail(`${def.name} expected H(A-B), got ${quote(term)}`);
    lo = valueAt(def, text, i + 1, dash, start, end);
    hi = valueAt(def, text, dash + 1, close, start, end);
    if (lo > hi) fail(`${def.name} range ${quote(text.slice(i + 1, close))} in ${quote(term)} is reversed`);
    i = close + 1;
  }
  const hash = fieldHash(key, def.name);
  if (i === end) {
    const value = lo + (hash % (hi - lo + 1));
    return packRange(value, value, 1);
  }
  if (text.charCodeAt(i) !== SLASH) fail(`${def.name} expected H, H/S, H(A-B) or H(A-B)/S, got ${quote(term)}`);
  const step = stepAt(def, text, i, start, end, hi - lo + 1);
  return packRange(lo + (hash % step), hi, step);
}

/**
 * The range the term `text[start, end)` stands for, packed into one integer (no
 * allocation per term): `from..to` by `step`; day-of-week may say 7 for Sunday.
 *
 * @throws {SchedulerError} `invalid-cron` for malformed terms, reversed ranges, bad steps
 * @example rangeStep(termRangeAt(MINUTE, "*\/15", 0, 4)) // 15
 */
export function termRangeAt(def: FieldDef, text: string, start: number, end: number, key?: string): number {
  if (start === end) fail(`${def.name} has an empty term`);
  if (text.charCodeAt(start) === H) return hashedRangeAt(def, text, start, end, key);
  let slash = text.indexOf("/", start);
  if (slash >= end) slash = -1;
  const baseEnd = slash < 0 ? end : slash;
  const step = slash < 0 ? 1 : stepAt(def, text, slash, start, end, def.max - def.min + 1);
  if (baseEnd - start === 1 && text.charCodeAt(start) === STAR) return packRange(def.min, def.max, step);
  let dash = text.indexOf("-", start);
  if (dash >= baseEnd) dash = -1;
  if (dash < 0) {
    const from = valueAt(def, text, start, baseEnd, start, end);
    // N to the field's end as written: day-of-week's is 7 (Sunday again), as cronie and
    // cron-parser read it (`5/1` is Friday to Sunday; `7/S` Sunday). To 6, `5/1` left out Sunday.
    return packRange(from, slash < 0 ? from : def.maxWritten, step);
  }
  const from = valueAt(def, text, start, dash, start, end);
  const to = valueAt(def, text, dash + 1, baseEnd, start, end);
  if (from > to) fail(`${def.name} range ${quote(text.slice(start, baseEnd))} is reversed`);
  return packRange(from, to, step);
}
