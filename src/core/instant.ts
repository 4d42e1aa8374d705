/** Normalises the instants accepted at the public boundary to epoch milliseconds. */
import { daysInMonth } from "./civil.ts";
import { quote, SchedulerError } from "./errors.ts";

/** What the core accepts as an instant: epoch ms, a `Date`, a `Temporal.Instant`, or an ISO string with offset. */
export type InstantInput = number | Date | { readonly epochMilliseconds: number } | string;

/** What a refused instant was expected to be, in the words of a library caller (the HTTP API says its own). */
export const INSTANT_EXPECTED = "epoch ms, a Date or an ISO instant with offset";

/** Largest |epoch ms| a Date or Temporal.Instant can hold. */
export const INSTANT_LIMIT = 8.64e15;
/** What an out-of-range instant is told, after its field's name. */
const INSTANT_RANGE = `expected an instant from ${-INSTANT_LIMIT} to ${INSTANT_LIMIT} ms (years -271821 to 275760)`;
// The year: four digits, or six with a sign (what `toISOString()` writes outside 0000–9999).
const ISO_INSTANT =
  /^(\d{4}|[+-]\d{6})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/i;

/**
 * Whether the fields of an `ISO_INSTANT` match are a real date and time: `Date.parse`
 * rolls February 30 over into March and hour 24 into the next day.
 */
function isCalendarTime(m: RegExpExecArray): boolean {
  const [y, mo, d, h, mi, s, oh, om] = m.slice(1).map((f) => Number(f ?? 0));
  return mo! >= 1 && mo! <= 12 && d! >= 1 && d! <= daysInMonth(y!, mo!) && h! <= 23 && mi! <= 59 && s! <= 59 &&
    oh! <= 23 && om! <= 59;
}

/**
 * Epoch milliseconds of an instant: a finite number, a valid `Date`, anything with
 * `epochMilliseconds` (Temporal.Instant, ZonedDateTime), or an ISO-8601 string with
 * `Z` or an offset (`"2026-03-08T07:00:00Z"`).
 *
 * Options: `field` (named in the message, default `"instant"`), `allowString` (default true).
 *
 * @throws {SchedulerError} `invalid-instant: instant: expected epoch ms, a Date or an ISO instant, got "soon"`
 * @example
 * ```ts
 * import { toEpochMs } from "edgecron";
 *
 * toEpochMs(new Date("2026-01-01T00:00:00Z")); // 1767225600000
 * ```
 */
export function toEpochMs(input: unknown, options: { field?: string; allowString?: boolean } = {}): number {
  const { field = "instant", allowString = true } = options;
  let ms: number = NaN;
  if (typeof input === "number") ms = input;
  else if (input instanceof Date) ms = input.getTime();
  else if (typeof input === "object" && input !== null && "epochMilliseconds" in input) {
    // A number only: Number() read null, "", [] and false as 0, true as 1.
    const v = (input as { epochMilliseconds: unknown }).epochMilliseconds;
    if (typeof v === "number") ms = v;
  } else if (typeof input === "string" && allowString && input.length <= 40) {
    const m = ISO_INSTANT.exec(input.trim());
    if (m !== null && isCalendarTime(m)) {
      ms = Date.parse(input.trim().toUpperCase().replace(/(\.\d{3})\d+/, "$1"));
      // NaN past what a Date holds (-000000 is NaN too): an instant of such a year is out of range, not malformed.
      if (Number.isNaN(ms) && Math.abs(Number(m[1])) > 271_820) ms = Number(m[1]) * Infinity;
    }
  }
  // An instant past what a Date holds is a real one too far out, not a malformed one: said as such.
  if (Math.abs(ms) > INSTANT_LIMIT && (Number.isFinite(ms) || typeof input === "string")) {
    const message = `${field}: ${INSTANT_RANGE}, got ${quote(describe(input))} (out of range)`;
    throw new SchedulerError("invalid-instant", message, { path: field });
  }
  if (!Number.isFinite(ms)) {
    const what = allowString ? INSTANT_EXPECTED : "epoch ms or a Date";
    throw new SchedulerError("invalid-instant", `${field}: expected ${what}, got ${quote(describe(input))}`, {
      path: field,
    });
  }
  return ms;
}

/**
 * {@link toEpochMs}, then whole milliseconds only (a `Date` holds no fraction; a number may).
 *
 * @throws {SchedulerError} `invalid-instant: ${field}: expected whole epoch milliseconds, got "0.5"`
 */
export function toWholeEpochMs(input: unknown, options: { field: string; allowString?: boolean }): number {
  const ms = toEpochMs(input, options);
  if (!Number.isInteger(ms)) {
    throw new SchedulerError(
      "invalid-instant",
      `${options.field}: expected whole epoch milliseconds, got ${quote(ms)}`,
      {
        path: options.field,
      },
    );
  }
  return ms;
}

function describe(input: unknown): string {
  if (input instanceof Date) return "Invalid Date";
  if (typeof input === "object" && input !== null) return Object.prototype.toString.call(input);
  return String(input);
}
