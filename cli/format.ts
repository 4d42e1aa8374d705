/** Text helpers of the `edgecron` CLI: fire times in a zone and in UTC, error pointers. */
import { Temporal } from "../src/core/temporal.ts";

/** One fire time as the CLI prints it. */
export interface FireText {
  epochMs: number;
  /** RFC 9557 text with offset and zone: `2026-03-08T03:30:00-04:00[America/New_York]`. */
  local: string;
  /** `2026-03-08T07:30:00Z`. */
  utc: string;
  /** Human line: `Sun 2026-03-08 03:30:00 -04:00`. */
  text: string;
}

const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/**
 * Formats an instant in `timezone` and in UTC.
 *
 * @example formatFire(0, "Asia/Tokyo").text // "Thu 1970-01-01 09:00:00 +09:00"
 */
export function formatFire(epochMs: number, timezone: string): FireText {
  const instant = Temporal.Instant.fromEpochMilliseconds(epochMs);
  const zoned = instant.toZonedDateTimeISO(timezone);
  const wall = zoned.toPlainDateTime().toString({ smallestUnit: epochMs % 1000 === 0 ? "second" : "millisecond" });
  return {
    epochMs,
    local: zoned.toString({ smallestUnit: epochMs % 1000 === 0 ? "second" : "millisecond" }),
    utc: instant.toString({ smallestUnit: epochMs % 1000 === 0 ? "second" : "millisecond" }),
    text: `${WEEKDAYS[zoned.dayOfWeek - 1]} ${wall.replace("T", " ")} ${zoned.offset}`,
  };
}

const FIELDS_5 = ["minute", "hour", "day-of-month", "month", "day-of-week"];
const FIELDS_6 = ["second", ...FIELDS_5];
const FIELDS_7 = [...FIELDS_6, "year"];
const FIELDS_AWS = [...FIELDS_5, "year"];

/** A leading zone prefix (`CRON_TZ=Europe/Berlin`, `TZ=`), as `schedule()` reads one. */
export const ZONE_PREFIX = /^(CRON_TZ|TZ)=/;

/** The field names of an expression of `count` fields, read as cron or as AWS's form. */
export function fieldNames(count: number, format: "cron" | "aws" = "cron"): readonly string[] | undefined {
  if (format === "aws") return count === 6 ? FIELDS_AWS : undefined;
  return count === 7 ? FIELDS_7 : count === 6 ? FIELDS_6 : count === 5 ? FIELDS_5 : undefined;
}

/**
 * When an error message names a cron field, returns the expression with a caret line
 * under that field; otherwise undefined. The field is the one the message is about
 * (named first), not one it mentions in passing ("(only day-of-month and day-of-week can)").
 *
 * @example pointAtField("61 * * * *", "invalid-cron: minute must be 0-59, got \"61\"")
 * // '  61 * * * *\n  ^^ minute'
 */
export function pointAtField(expression: string, message: string, format: "cron" | "aws" = "cron"): string | undefined {
  const spans = [...expression.matchAll(/\S+/g)].map((m) => ({ start: m.index ?? 0, text: m[0] }));
  // A `CRON_TZ=`/`TZ=` prefix is not a field: the caret goes under the field after it.
  if (ZONE_PREFIX.test(spans[0]?.text ?? "")) spans.shift();
  const names = fieldNames(spans.length, format);
  if (!names) return undefined;
  const body = message.toLowerCase().replace(/^[a-z-]+:\s*/, " ");
  // The name appearing first in the message; at one position the longest ("day-of-month", not "month").
  let found: { name: string; index: number; at: number } | undefined;
  names.forEach((name, index) => {
    const at = body.search(new RegExp(`(^|[^a-z-])${name}([^a-z-]|$)`));
    if (at >= 0 && (found === undefined || at < found.at || (at === found.at && name.length > found.name.length))) {
      found = { name, index, at };
    }
  });
  if (!found) return undefined;
  const span = spans[found.index] as { start: number; text: string };
  return `  ${expression}\n  ${" ".repeat(span.start)}${"^".repeat(span.text.length)} ${found.name}`;
}
