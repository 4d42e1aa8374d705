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

/**
 * When an error message names a cron field, returns the expression with a caret line
 * under that field; otherwise undefined.
 *
 * @example pointAtField("61 * * * *", "invalid-cron: minute must be 0-59, got \"61\"")
 * // '  61 * * * *\n  ^^ minute'
 */
export function pointAtField(expression: string, message: string): string | undefined {
  const spans = [...expression.matchAll(/\S+/g)].map((m) => ({ start: m.index ?? 0, text: m[0] }));
  const names = spans.length === 6 ? FIELDS_6 : spans.length === 5 ? FIELDS_5 : undefined;
  if (!names) return undefined;
  const lower = message.toLowerCase();
  // The longest name first: "day-of-month" must not be read as "month".
  const byLength = names.map((name, index) => ({ name, index })).sort((a, b) => b.name.length - a.name.length);
  let found: { name: string; index: number } | undefined;
  for (const candidate of byLength) {
    const re = new RegExp(`(^|[^a-z-])${candidate.name}([^a-z-]|$)`);
    if (re.test(lower.replace(/^[a-z-]+:\s*/, " "))) {
      found = candidate;
      break;
    }
  }
  if (!found) return undefined;
  const span = spans[found.index] as { start: number; text: string };
  return `  ${expression}\n  ${" ".repeat(span.start)}${"^".repeat(span.text.length)} ${found.name}`;
}
