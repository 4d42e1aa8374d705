/** The options of `pause(name, { note, by })`, checked once. */
import { quote, SchedulerError } from "../../core/errors.ts";
import type { PauseOptions } from "../types.ts";

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** Longest pause note. */
export const MAX_PAUSE_NOTE = 500;

/**
 * The store's pause info from `pause()`'s options (undefined: none given).
 *
 * @throws {SchedulerError} `invalid-spec` naming `note` or `by`.
 */
export function pauseInfo(options: PauseOptions | undefined): { note?: string; by?: string } | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== "object") {
    throw new SchedulerError("invalid-spec", `pause: expected { note?, by? }, got ${quote(String(options))}`, {
      path: "options",
    });
  }
  const { note, by } = options;
  if (note !== undefined && (typeof note !== "string" || note.length > MAX_PAUSE_NOTE || CONTROL.test(note))) {
    throw new SchedulerError(
      "invalid-spec",
      `note: expected text of at most ${MAX_PAUSE_NOTE} characters without control characters, got ${
        quote(String(note))
      }`,
      { path: "note" },
    );
  }
  if (by !== undefined && (typeof by !== "string" || by.length === 0 || by.length > 128 || CONTROL.test(by))) {
    throw new SchedulerError(
      "invalid-spec",
      `by: expected 1-128 characters without control characters, got ${quote(String(by))}`,
      { path: "by" },
    );
  }
  return { ...(note === undefined ? {} : { note }), ...(by === undefined ? {} : { by }) };
}
