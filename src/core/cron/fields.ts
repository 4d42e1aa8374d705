/**
 * The numeric cron fields: names, ranges and the parser of one term
 * (`*`, `N`, `A-B`, `*\/S`, `A-B/S`, `N/S`).
 */
import { quote, SchedulerError } from "../errors.ts";

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

const MONTH_NAMES = { JAN: 1, FEB: 2, MAR: 3, APR: 4, MAY: 5, JUN: 6, JUL: 7, AUG: 8, SEP: 9, OCT: 10, NOV: 11, DEC: 12 };
const DAY_NAMES = { SUN: 0, MON: 1, TUE: 2, WED: 3, THU: 4, FRI: 5, SAT: 6 };

/** The six fields, in expression order (`second` only in 6-field expressions). */
export const SECOND: FieldDef = { name: "second", min: 0, max: 59, maxWritten: 59 };
export const MINUTE: FieldDef = { name: "minute", min: 0, max: 59, maxWritten: 59 };
export const HOUR: FieldDef = { name: "hour", min: 0, max: 23, maxWritten: 23 };
export const DAY_OF_MONTH: FieldDef = { name: "day-of-month", min: 1, max: 31, maxWritten: 31 };
export const MONTH: FieldDef = { name: "month", min: 1, max: 12, maxWritten: 12, names: MONTH_NAMES };
export const DAY_OF_WEEK: FieldDef = { name: "day-of-week", min: 0, max: 6, maxWritten: 7, names: DAY_NAMES };

const DIGITS = /^\d+$/;

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
 * Parses one value of a field: digits (leading zeros allowed) or a name, any case.
 *
 * @throws {SchedulerError} `invalid-cron: minute must be 0-59, got "61"`
 */
export function parseValue(def: FieldDef, text: string, term: string): number {
  let value: number | undefined;
  if (DIGITS.test(text)) value = Number(text);
  else if (def.names !== undefined && text.length === 3) value = def.names[text.toUpperCase()];
  if (value === undefined || value < def.min || value > def.maxWritten) {
    const shown = text === term ? quote(text) : `${quote(text)} in ${quote(term)}`;
    fail(`${def.name} must be ${rangeText(def)}, got ${shown}`);
  }
  return value;
}

/** A term as `from..to` by `step` (inclusive); day-of-week may say 7 for Sunday. */
export interface TermRange {
  readonly from: number;
  readonly to: number;
  readonly step: number;
}

/**
 * The range one term stands for.
 *
 * @throws {SchedulerError} `invalid-cron` for malformed terms, reversed ranges, bad steps
 */
export function termRange(def: FieldDef, term: string): TermRange {
  if (term === "") fail(`${def.name} has an empty term`);
  const slash = term.indexOf("/");
  const base = slash < 0 ? term : term.slice(0, slash);
  let step = 1;
  if (slash >= 0) {
    const stepText = term.slice(slash + 1);
    const limit = def.max - def.min + 1;
    if (!DIGITS.test(stepText)) fail(`${def.name} step must be a number 1-${limit}, got ${quote(term)}`);
    step = Number(stepText);
    if (step < 1 || step > limit) fail(`${def.name} step must be 1-${limit}, got ${quote(stepText)} in ${quote(term)}`);
  }
  let from: number;
  let to: number;
  if (base === "*") {
    from = def.min;
    to = def.max;
  } else {
    const dash = base.indexOf("-");
    if (dash < 0) {
      from = parseValue(def, base, term);
      to = slash < 0 ? from : def.max;
    } else {
      from = parseValue(def, base.slice(0, dash), term);
      to = parseValue(def, base.slice(dash + 1), term);
      if (from > to) fail(`${def.name} range ${quote(base)} is reversed`);
    }
  }
  return { from, to, step };
}
