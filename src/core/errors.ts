/**
 * Every `SchedulerError.code`, in one list (a test checks that each is thrown somewhere
 * under src/ and that src/ throws no other). `invalid-*` codes are bad input (HTTP 400).
 */
export const SCHEDULER_ERROR_CODES = [
  "invalid-cron",
  "invalid-timezone",
  "invalid-interval",
  "invalid-instant",
  "invalid-duration",
  "invalid-spec",
  "invalid-name",
  "unknown-job",
  "conflict",
  "store-error",
] as const;

/** A machine-readable `SchedulerError` code: one of `SCHEDULER_ERROR_CODES`. */
export type SchedulerErrorCode = typeof SCHEDULER_ERROR_CODES[number];

/**
 * The one error type edgecron throws for bad input and refused operations.
 *
 * `code` is a `SchedulerErrorCode` (`invalid-cron`, `invalid-timezone`, `invalid-interval`,
 * `invalid-instant`, `invalid-duration`, `invalid-spec`, `invalid-name`, `unknown-job`,
 * `conflict`, `store-error`); the message starts with it, names the field and quotes
 * the offending text. `path` is the dotted path of the offending field, when known.
 *
 * @example
 * ```ts
 * import { cron, SchedulerError } from "edgecron";
 *
 * try {
 *   cron("61 * * * *");
 * } catch (e) {
 *   if (e instanceof SchedulerError) console.log(e.code); // "invalid-cron"
 * }
 * ```
 */
export class SchedulerError extends Error {
  readonly code: SchedulerErrorCode;
  readonly path: string | undefined;

  constructor(code: SchedulerErrorCode, message: string, options: { path?: string; cause?: unknown } = {}) {
    super(`${code}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SchedulerError";
    this.code = code;
    this.path = options.path;
  }
}

/** The sentence of `e` without the `code: ` its constructor put in front. */
export function sentence(e: SchedulerError): string {
  return e.message.startsWith(`${e.code}: `) ? e.message.slice(e.code.length + 2) : e.message;
}

/**
 * A lone surrogate (half of a UTF-16 pair): a high one not followed by a low one, or a
 * low one not preceded by a high one. UTF-8 has no bytes for it: SQLite and Postgres
 * drivers write it as U+FFFD, so text that holds one is refused, never stored changed.
 */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** What a refusal of {@link LONE_SURROGATE} says after the field's name. */
export const LONE_SURROGATE_RULE = "must not contain a lone surrogate (half of a UTF-16 pair)";

/** What a refusal of a NUL character says after the field's name. */
export const NUL_RULE = "must not contain a NUL character (U+0000)";

/** A lone surrogate or a NUL character: text no store keeps as given in a name or text column. */
export const UNSTORABLE: RegExp = new RegExp(`${LONE_SURROGATE.source}|\\0`);
const EVERY_UNSTORABLE = new RegExp(UNSTORABLE.source, "g");

/**
 * `text` with each lone surrogate and NUL character replaced by U+FFFD: text every store
 * keeps as given (a handler's error message, which is reported, not refused).
 */
export function wellFormed(text: string): string {
  return text.replace(EVERY_UNSTORABLE, "\ufffd");
}

/**
 * @throws {SchedulerError} `invalid-spec` naming `field` when `text` holds a lone surrogate
 * or a NUL character: libSQL's driver cut a text at its NUL (`"a\0b"` was the row of
 * `"a"`) and wrote a lone surrogate as U+FFFD, and Postgres keeps neither in `text`.
 */
export function checkWellFormed(text: unknown, field: string): void {
  if (typeof text === "string" && UNSTORABLE.test(text)) {
    throw new SchedulerError(
      "invalid-spec",
      `${field}: ${text.includes("\0") ? NUL_RULE : LONE_SURROGATE_RULE}, got ${quote(text)}`,
      { path: field },
    );
  }
}

/** Quotes user text for an error message, cut to a readable length. */
export function quote(text: unknown): string {
  const s = typeof text === "string" ? text : String(text);
  const cut = s.length > 80 ? `${s.slice(0, 77)}...` : s;
  return JSON.stringify(cut);
}
