/**
 * Parses a cron expression into field sets: 5 fields (`minute hour day-of-month month
 * day-of-week`) or 6 (leading `second`), nicknames, `?`, `L`, `LW`, `nW`, `nL`, `n#k`.
 */
import { quote } from "../errors.ts";
import { DAY_OF_MONTH, DAY_OF_WEEK, fail, HOUR, MINUTE, MONTH, parseValue, SECOND, termRange } from "./fields.ts";
import type { FieldDef } from "./fields.ts";

/** Longest expression accepted; guards against pathological input. */
export const MAX_EXPRESSION_LENGTH = 1024;

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

/** The parsed form of a cron expression. */
export interface CronFields {
  /** The expression trimmed, whitespace collapsed, a nickname in lower case, no `+`. */
  readonly normalized: string;
  /** Flags: `second[v] === 1` when v is allowed. */
  readonly second: readonly number[];
  readonly minute: readonly number[];
  readonly hour: readonly number[];
  /** Months as bits (`1 << month`). */
  readonly month: number;
  readonly dom: DomSet;
  readonly dow: DowSet;
  /** Day-of-week carried the OCPS `+` prefix, which asks for `dayMatch: "and"`. */
  readonly plusAnd: boolean;
  /** Field texts as written, for messages: day-of-month, month, day-of-week. */
  readonly texts: { readonly dom: string; readonly month: string; readonly dow: string };
}

const NICKNAMES: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

function terms(def: FieldDef, text: string): string[] {
  const list = text.split(",");
  if (list.includes("")) fail(`${def.name} has an empty term in ${quote(text)}`);
  return list;
}

function flags(def: FieldDef, text: string, size: number): number[] {
  const set = new Array<number>(size).fill(0);
  if (text === "?") fail(`${def.name} cannot be "?" (only day-of-month and day-of-week can)`);
  for (const term of terms(def, text)) {
    const { from, to, step } = termRange(def, term);
    for (let v = from; v <= to; v += step) set[v] = 1;
  }
  return set;
}

function monthBits(text: string): number {
  let bits = 0;
  const set = flags(MONTH, text, 13);
  for (let m = 1; m <= 12; m++) if (set[m] === 1) bits |= 1 << m;
  return bits;
}

const NEAREST = /^(\d+)W$/;

function parseDom(text: string): DomSet {
  if (text === "*" || text === "?") return { days: 0x7fffffff, last: false, lastWeekday: false, nearest: 0, any: true };
  let days = 0, nearest = 0, last = false, lastWeekday = false;
  for (const term of terms(DAY_OF_MONTH, text)) {
    if (term === "L") last = true;
    else if (term === "LW") lastWeekday = true;
    else if (NEAREST.test(term)) nearest |= 1 << (parseValue(DAY_OF_MONTH, term.slice(0, -1), term) - 1);
    else {
      const { from, to, step } = termRange(DAY_OF_MONTH, term);
      for (let v = from; v <= to; v += step) days |= 1 << (v - 1);
    }
  }
  return { days, last, lastWeekday, nearest, any: false };
}

function parseDow(text: string): DowSet {
  if (text === "*" || text === "?") return { days: 0x7f, last: 0, nth: [0, 0, 0, 0, 0], any: true };
  let days = 0, last = 0;
  const nth = [0, 0, 0, 0, 0];
  for (const term of terms(DAY_OF_WEEK, text)) {
    const hash = term.indexOf("#");
    if (hash >= 0) {
      const day = parseValue(DAY_OF_WEEK, term.slice(0, hash), term) % 7;
      const k = term.slice(hash + 1);
      if (!/^[1-5]$/.test(k)) fail(`day-of-week "#" must be followed by 1-5, got ${quote(term)}`);
      nth[Number(k) - 1]! |= 1 << day;
    } else if (term.length > 1 && term.endsWith("L")) {
      last |= 1 << (parseValue(DAY_OF_WEEK, term.slice(0, -1), term) % 7);
    } else {
      const { from, to, step } = termRange(DAY_OF_WEEK, term);
      for (let v = from; v <= to; v += step) days |= 1 << (v % 7);
    }
  }
  return { days, last, nth, any: false };
}

/**
 * Parses a cron expression. Pure; never loops on input size beyond its length.
 *
 * @throws {SchedulerError} `invalid-cron` naming the field and quoting the text
 * @example parseCron("*\/15 9-17 * * MON-FRI").minute[15] // 1
 */
export function parseCron(expression: unknown): CronFields {
  if (typeof expression !== "string") fail(`expression must be a string, got ${quote(expression)}`);
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    fail(`expression is too long (${expression.length} characters, at most ${MAX_EXPRESSION_LENGTH}): ${quote(expression)}`);
  }
  let text = expression.trim();
  let nickname: string | undefined;
  if (text.startsWith("@")) {
    const nick = NICKNAMES[text.toLowerCase()];
    if (nick === undefined) {
      const hint = /^@every\s/i.test(text) ? `; for intervals use every() or schedule(${quote(text)})` : "";
      fail(`unknown nickname ${quote(text)}, expected one of ${Object.keys(NICKNAMES).join(" ")}${hint}`);
    }
    nickname = text.toLowerCase();
    text = nick;
  }
  const parts = text === "" ? [] : text.split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) {
    fail(`expected 5 or 6 fields (second? minute hour day-of-month month day-of-week), got ${parts.length} in ${quote(expression)}`);
  }
  const [sec, min, hour, dom, month, dowText] = parts.length === 6 ? parts as string[] : ["0", ...parts as string[]];
  const plusAnd = dowText!.startsWith("+");
  const dow = plusAnd ? dowText!.slice(1) : dowText!;
  return {
    normalized: nickname ?? [...parts.slice(0, -1), dow].join(" "),
    second: flags(SECOND, sec!, 60),
    minute: flags(MINUTE, min!, 60),
    hour: flags(HOUR, hour!, 24),
    month: monthBits(month!),
    dom: parseDom(dom!),
    dow: parseDow(dow),
    plusAnd,
    texts: { dom: dom!, month: month!, dow },
  };
}
