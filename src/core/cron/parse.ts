/**
 * Parses a cron expression into field sets: 5 fields (`minute hour day-of-month month
 * day-of-week`) or 6 (leading `second`), nicknames, `?`, `L`, `LW`, `nW`, `nL`, `n#k`.
 */
import { quote } from "../errors.ts";
import { fail, HOUR, MINUTE, MONTH, SECOND } from "./fields.ts";
import { domSet, dowSet, set60, smallSet } from "./sets.ts";
import type { Bits60, DomSet, DowSet } from "./sets.ts";

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

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 127) return false;
  return true;
}

// The ASCII characters `\s` matches: tab, line feed, vertical tab, form feed, return, space.
function isAsciiSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
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
 * @throws {SchedulerError} `invalid-cron` naming the field and quoting the text
 * @example parseCron("*\/15 9-17 * * MON-FRI").hours // bits 9..17
 */
export function parseCron(expression: unknown): CronFields {
  if (typeof expression !== "string") fail(`expression must be a string, got ${quote(expression)}`);
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    fail(`expression is too long (${expression.length} characters, at most ${MAX_EXPRESSION_LENGTH}): ${quote(expression)}`);
  }
  const trimmed = expression.trim();
  const nickname = trimmed.charCodeAt(0) === 64 ? trimmed.toLowerCase() : undefined;
  const text = nickname === undefined ? trimmed : expandNickname(trimmed, nickname);
  const parts = splitFields(text);
  const count = parts.length;
  if (count !== 5 && count !== 6) {
    fail(`expected 5 or 6 fields (second? minute hour day-of-month month day-of-week), got ${count} in ${quote(expression)}`);
  }
  const at = count - 5;
  const dowText = parts[at + 4]!;
  const plusAnd = dowText.charCodeAt(0) === 43;
  const dow = plusAnd ? dowText.slice(1) : dowText;
  return {
    normalized: nickname ?? normalize(text, parts, dow),
    second: set60(SECOND, at === 1 ? parts[0]! : "0"),
    minute: set60(MINUTE, parts[at]!),
    hours: smallSet(HOUR, parts[at + 1]!),
    month: smallSet(MONTH, parts[at + 3]!),
    dom: domSet(parts[at + 2]!),
    dow: dowSet(dow),
    plusAnd,
    texts: { dom: parts[at + 2]!, month: parts[at + 3]!, dow },
  };
}

// Fields joined by single spaces, `+` dropped; the text itself when it is already so.
function normalize(text: string, parts: readonly string[], dow: string): string {
  if (dow === parts[parts.length - 1] && isSingleSpaced(text, parts)) return text;
  return [...parts.slice(0, -1), dow].join(" ");
}

function isSingleSpaced(text: string, parts: readonly string[]): boolean {
  let length = parts.length - 1;
  for (const part of parts) length += part.length;
  if (length !== text.length) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 127 || (code >= 9 && code <= 13)) return false;
  }
  return true;
}
