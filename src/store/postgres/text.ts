/**
 * What Postgres cannot store: a NUL character in `text`, or its `\u0000` escape in
 * `jsonb`; a lone surrogate (half of a UTF-16 pair), which UTF-8 has no bytes for, or
 * its `\udXXX` escape in `jsonb`. Refused up front as bad input (`invalid-spec`), not
 * sent to the server to come back as a `store-error` that would mark the store unhealthy
 * (jsonb refuses both escapes), nor stored changed: the driver writes a lone surrogate as
 * U+FFFD, so a claimed job's row came back under another name and its slot read as lost.
 */
import { LONE_SURROGATE, quote, SchedulerError } from "../../core/errors.ts";

// An escaped NUL in JSON text: `\u0000` after an even number of backslashes.
const JSON_NUL = /(?<!\\)(?:\\\\)*\\u0000/;
// The same in JSON escapes (JSON.stringify writes a lone surrogate so), after an even number of backslashes.
const JSON_LONE =
  /(?<!\\)(?:\\\\)*(?:\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})/;

/**
 * @throws {SchedulerError} `invalid-spec` when a text holds a NUL character or a lone
 * surrogate (with `json`, also their escapes).
 */
export function checkStorable(texts: readonly string[], field: string, json = false): void {
  for (const text of texts) {
    if (text.includes("\u0000") || JSON_NUL.test(text)) {
      throw new SchedulerError("invalid-spec", `${field}: Postgres cannot store a NUL character, got ${quote(text)}`, {
        path: field,
      });
    }
    if (LONE_SURROGATE.test(text) || (json && JSON_LONE.test(text))) {
      throw new SchedulerError(
        "invalid-spec",
        `${field}: Postgres cannot store a lone surrogate (half of a UTF-16 pair), got ${quote(text)}`,
        { path: field },
      );
    }
  }
}

/** @throws {SchedulerError} `invalid-spec` when a setting's value is not a string. */
export function checkSettingValue(value: unknown): asserts value is string {
  if (typeof value !== "string") {
    throw new SchedulerError("invalid-spec", "putSetting.value: expected a string", { path: "putSetting.value" });
  }
}
