/**
 * Parses a cron expression into field sets: 5 fields (`minute hour day-of-month month
 * day-of-week`), 6 (leading `second`) or 7 (trailing `year`), nicknames, `?`, `L`,
 * `LW`, `nW`, `nL`, `n#k`, `H`; or the AWS form (`minute hour day-of-month month
 * day-of-week year`) when asked for.
 */
import { quote } from "../errors.ts";
import { ASCII_MAX, AT, PLUS, RETURN, SPACE, TAB } from "./chars.ts";
import { AWS_DAY_OF_WEEK, fail, HOUR, MINUTE, MONTH, SECOND } from "./fields.ts";
import { domSet, dowSet, set60, smallSet, yearSet } from "./sets.ts";
import type { Bits60, DomSet, DowSet } from "./sets.ts";

/**
 * `CRON_TZ=<zone> ` or `TZ=<zone> ` before the fields, in any case (only upper case is
 * read): `zonePrefix()` in cron.ts reads it, and an exclusion, which takes none, refuses it.
 */
export const ZONE_PREFIX = /^(CRON_TZ|TZ)=(\S*)(?:\s+|$)/i;

/** Options of {@link parseCron}. */
export interface ParseOptions {
  /** The key `H` hashes (the job's name); an expression with `H` and no key is refused. */
  readonly hashKey?: string | undefined;
  /** `"cron"` (default): 5, 6 or 7 fields; `"aws"`: EventBridge's 6 fields ending in a year. */
  readonly format?: "cron" | "aws" | undefined;
}

/** Longest expression accepted; guards against pathological input. */
export const MAX_EXPRESSION_LENGTH = 1024;

/** The parsed form of a cron expression. */
export interface CronFields {
  /** The expression trimmed, whitespace collapsed, a nickname in lower case, no `+`. */
  readonly normalized: string;
  readonly second: Bits60;
  readonly minute: Bits60;
  /** Hours as bits (`1 << hour`). */
  readonly hours: number;
  /** Months as bits (`1 << month`). */
  readonly month: number;
  readonly dom: DomSet;
  readonly dow: DowSet;
  /** Day-of-week carried the OCPS `+` prefix, which asks for `dayMatch: "and"`. */
  readonly plusAnd: boolean;
  /** The years allowed (1970-2099, ascending), or null for any year (no year field, or `*`). */
  readonly years: readonly number[] | null;
  /** Field texts as written, for messages: day-of-month, month, day-of-week, year. */
  readonly texts: { readonly dom: string; readonly month: string; readonly dow: string; readonly year: string };
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

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > ASCII_MAX) return false;
  return true;
}

// The ASCII characters `\s` matches: tab, line feed, vertical tab, form feed, return, space.
function isAsciiSpace(code: number): boolean {
  return code === SPACE || (code >= TAB && code <= RETURN);
}

/** `text.split(/\s+/)` of a trimmed text; by hand for ASCII, where `\s` is six characters. */
function splitFields(text: string): string[] {
  if (text === "") return [];
  if (!isAscii(text)) return text.split(/\s+/);
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (!isAsciiSpace(text.charCodeAt(i))) continue;
    if (i > start) parts.push(text.slice(start, i));
    start = i + 1;
  }
  parts.push(text.slice(start));
  return parts;
}

function expandNickname(text: string, lower: string): string {
  const nick = NICKNAMES[lower];
  if (nick === undefined) {
    const hint = /^@every\s/i.test(text) ? `; for intervals use every() or schedule(${quote(text)})` : "";
    fail(`unknown nickname ${quote(text)}, expected one of ${Object.keys(NICKNAMES).join(" ")}${hint}`);
  }
  return nick;
}

/**
 * Parses a cron expression. Pure; never loops on input size beyond its length.
 *
 * Options: `hashKey` (what `H` hashes, no default), `format` (`"cron"` default, `"aws"`).
 *
 * @throws {SchedulerError} `invalid-cron` naming the field and quoting the text
 * @example parseCron("*\/15 9-17 * * MON-FRI").hours // bits 9..17
 */
export function parseCron(expression: unknown, options: ParseOptions = {}): CronFields {
  if (typeof expression !== "string") fail(`expression must be a string, got ${quote(expression)}`);
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    fail(
      `expression is too long (${expression.length} characters, at most ${MAX_EXPRESSION_LENGTH}): ${
        quote(expression)
      }`,
    );
  }
  const { hashKey, format } = options;
  const aws = format === "aws";
  if (!aws && format !== undefined && format !== "cron") fail(`format must be "cron" or "aws", got ${quote(format)}`);
  if (hashKey !== undefined && typeof hashKey !== "string") fail(`hashKey must be a string, got ${quote(hashKey)}`);
  const trimmed = expression.trim();
  const nickname = !aws && trimmed.charCodeAt(0) === AT ? trimmed.toLowerCase() : undefined;
  const text = nickname === undefined ? trimmed : expandNickname(trimmed, nickname);
  const parts = splitFields(text);
  const count = parts.length;
  if (aws) return parseAws(expression, parts, hashKey);
  if (count < 5 || count > 7) {
    fail(
      `expected 5, 6 or 7 fields (second? minute hour day-of-month month day-of-week year?), got ${count} in ${
        quote(expression)
      }`,
    );
  }
  const at = count === 5 ? 0 : 1;
  const dowText = parts[at + 4]!;
  const plusAnd = dowText.charCodeAt(0) === PLUS;
  const dow = plusAnd ? dowText.slice(1) : dowText;
  const year = count === 7 ? parts[6]! : "*";
  return {
    normalized: nickname ?? normalize(text, parts, at + 4, dow),
    second: set60(SECOND, at === 1 ? parts[0]! : "0", hashKey),
    minute: set60(MINUTE, parts[at]!, hashKey),
    hours: smallSet(HOUR, parts[at + 1]!, hashKey),
    month: smallSet(MONTH, parts[at + 3]!, hashKey),
    dom: domSet(parts[at + 2]!, hashKey),
    dow: dowSet(dow, hashKey),
    plusAnd,
    years: count === 7 ? yearSet(year, hashKey) : null,
    texts: { dom: parts[at + 2]!, month: parts[at + 3]!, dow, year },
  };
}

// EventBridge: minute hour day-of-month month day-of-week(1-7, 1 = Sunday) year, and
// exactly one of the two day fields is "?".
function parseAws(expression: string, parts: readonly string[], hashKey: string | undefined): CronFields {
  if (parts.length !== 6) {
    fail(
      `format "aws" expects 6 fields (minute hour day-of-month month day-of-week year), got ${parts.length} in ${
        quote(expression)
      }`,
    );
  }
  const [minute, hour, dom, month, dow, year] = parts as [string, string, string, string, string, string];
  if ((dom === "?") === (dow === "?")) {
    fail(`format "aws" needs "?" in exactly one of day-of-month and day-of-week, got ${quote(dom)} and ${quote(dow)}`);
  }
  return {
    normalized: parts.join(" "),
    second: set60(SECOND, "0", hashKey),
    minute: set60(MINUTE, minute, hashKey),
    hours: smallSet(HOUR, hour, hashKey),
    month: smallSet(MONTH, month, hashKey),
    dom: domSet(dom, hashKey),
    dow: dowSet(dow, hashKey, AWS_DAY_OF_WEEK),
    plusAnd: false,
    years: yearSet(year, hashKey),
    texts: { dom, month, dow, year },
  };
}

// Fields joined by single spaces, `+` dropped from day-of-week (at `dowAt`); the text
// itself when it is already so.
function normalize(text: string, parts: readonly string[], dowAt: number, dow: string): string {
  if (dow === parts[dowAt] && isSingleSpaced(text, parts)) return text;
  const out = parts.slice();
  out[dowAt] = dow;
  return out.join(" ");
}

function isSingleSpaced(text: string, parts: readonly string[]): boolean {
  let length = parts.length - 1;
  for (const part of parts) length += part.length;
  if (length !== text.length) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > ASCII_MAX || (code >= TAB && code <= RETURN)) return false;
  }
  return true;
}
