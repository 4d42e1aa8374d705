/**
 * What Postgres cannot store: a NUL character in `text`, or its `\u0000` escape in
 * `jsonb`. Refused up front as bad input (`invalid-spec`), not sent to the server to
 * come back as a `store-error` that would mark the store unhealthy.
 */
import { quote, SchedulerError } from "../../core/errors.ts";

// An escaped NUL in JSON text: `\u0000` after an even number of backslashes.
const JSON_NUL = /(?<!\\)(?:\\\\)*\\u0000/;

/** @throws {SchedulerError} `invalid-spec` when a text holds a NUL character (or, in JSON, its escape). */
export function checkStorable(texts: readonly string[], field: string): void {
  for (const text of texts) {
    if (text.includes("\u0000") || JSON_NUL.test(text)) {
      throw new SchedulerError("invalid-spec", `${field}: Postgres cannot store a NUL character, got ${quote(text)}`, {
        path: field,
      });
    }
  }
}

/** @throws {SchedulerError} `invalid-spec` when a setting's value is not a string. */
export function checkSettingValue(value: unknown): asserts value is string {
  if (typeof value !== "string") {
    throw new SchedulerError("invalid-spec", "putSetting.value: expected a string", { path: "putSetting.value" });
  }
}
