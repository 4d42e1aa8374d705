import { wellFormed } from "../core/errors.ts";

// Text for log lines and errors: shared by every room of the engine.

/** Quotes a job name for a log line: `job "nightly"`. */
export function jobLabel(name: string): string {
  return `job ${JSON.stringify(name)}`;
}

/** The readable text of anything thrown; never throws itself. */
export function errorText(error: unknown): string {
  try {
    // Well-formed: SQLite stored a lone surrogate that came through JSON as bytes its
    // driver panicked on when reading, and Postgres refused it (and a NUL).
    if (error instanceof Error) return fit(String(error.message || error.name));
    if (typeof error === "string") return fit(error);
    return fit(safeJson(error));
  } catch {
    // A value whose getters or conversions throw must not turn a failed run into a crash.
    return "unprintable thrown value";
  }
}

/** The most characters of an error text a run's row keeps (the log record keeps the whole message). */
export const MAX_ERROR_TEXT = 2_000;

/** `text` cut to {@link MAX_ERROR_TEXT} characters (saying so) and made well-formed. */
function fit(text: string): string {
  if (text.length <= MAX_ERROR_TEXT) return wellFormed(text);
  return `${wellFormed(text.slice(0, MAX_ERROR_TEXT - 40))}… (cut from ${text.length} characters)`;
}

export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** What a log record carries about a thrown value: its class, message, stack and cause. */
export interface ErrorDetail {
  /** `TypeError`, a custom class's name, or `typeof` for a thrown non-Error. */
  class: string;
  message: string;
  stack?: string;
  cause?: ErrorDetail;
}

/**
 * A thrown value as plain data, so any logger (console, JSON, pino) shows its class,
 * stack and `cause` chain (at most 5 deep). Never throws.
 */
export function errorDetail(error: unknown, depth = 0): ErrorDetail {
  try {
    if (!(error instanceof Error)) return { class: error === null ? "null" : typeof error, message: errorText(error) };
    const ctor = (error as { constructor?: { name?: unknown } }).constructor?.name;
    const name = error.name !== "Error" || typeof ctor !== "string" || ctor === "" ? error.name : ctor;
    const detail: ErrorDetail = { class: String(name), message: String(error.message) };
    if (typeof error.stack === "string") detail.stack = error.stack;
    if (error.cause !== undefined && depth < 5) detail.cause = errorDetail(error.cause, depth + 1);
    return detail;
  } catch {
    return { class: "unknown", message: "unprintable thrown value" };
  }
}

/** An `ErrorDetail` as console text: the stack (or class and message), then each cause. */
export function errorDetailText(detail: ErrorDetail): string {
  const head = detail.stack !== undefined && detail.stack.includes(detail.message)
    ? detail.stack
    : `${detail.class}: ${detail.message}${detail.stack === undefined ? "" : `\n${detail.stack}`}`;
  return detail.cause === undefined ? head : `${head}\nCaused by: ${errorDetailText(detail.cause)}`;
}
