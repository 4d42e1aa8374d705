/**
 * Durations: `"90s"`, `"15m"`, `"1h30m"`, `"500ms"`, `"2d"`, `"1w"`, ISO-8601
 * (`"PT15M"`, `"P1DT2H"`, `"PT0.5S"`), or a number of milliseconds.
 */
import { quote, SchedulerError } from "./errors.ts";
import type { SchedulerErrorCode } from "./errors.ts";

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const COMPACT = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+$/;
const COMPACT_PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g;
const ISO =
  /^P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/**
 * The longest duration: the most whole milliseconds a JavaScript number holds exactly
 * (2^53 - 1, about 285 000 years). A longer one would not round-trip, and a schedule
 * `every` that long has no slot at all.
 */
export const MAX_DURATION_MS = Number.MAX_SAFE_INTEGER;

/**
 * Parses a duration to whole milliseconds, or returns `undefined` when the input is
 * not a duration or is longer than {@link MAX_DURATION_MS}. Numbers are milliseconds
 * and must be finite and non-negative.
 *
 * @example
 * ```ts
 * import { tryParseDuration } from "edgecron";
 *
 * console.log(tryParseDuration("1h30m")); // 5400000
 * console.log(tryParseDuration("soon")); // undefined
 * ```
 */
export function tryParseDuration(input: unknown): number | undefined {
  const ms = measure(input);
  return ms !== undefined && ms <= MAX_DURATION_MS ? ms : undefined;
}

/** Whether `input` is written as a duration but is longer than {@link MAX_DURATION_MS}. */
export function isTooLong(input: unknown): boolean {
  const ms = measure(input);
  return ms !== undefined && ms > MAX_DURATION_MS;
}

/** The whole milliseconds `input` is written as, however many, or `undefined` when it is not a duration. */
function measure(input: unknown): number | undefined {
  const exact = exactly(input);
  return exact === undefined ? undefined : Math.round(exact);
}

/** The milliseconds `input` is written as, fractions kept (`parseDuration`'s minimum is checked on these). */
function exactly(input: unknown): number | undefined {
  if (typeof input === "number") {
    return Number.isFinite(input) && input >= 0 ? input : undefined;
  }
  if (typeof input !== "string") return undefined;
  const text = input.trim();
  if (text.length === 0 || text.length > 64) return undefined;
  if (COMPACT.test(text)) {
    let total = 0;
    for (const [, amount, unit] of text.matchAll(COMPACT_PART)) {
      total += Number(amount) * (UNIT_MS[unit as string] as number);
    }
    return Number.isFinite(total) ? total : undefined;
  }
  const iso = ISO.exec(text.toUpperCase());
  if (iso && text.length > 1 && !text.toUpperCase().endsWith("T")) {
    const [, w, d, h, m, s] = iso;
    const total = Number(w ?? 0) * UNIT_MS.w! + Number(d ?? 0) * UNIT_MS.d! +
      Number(h ?? 0) * UNIT_MS.h! + Number(m ?? 0) * UNIT_MS.m! + Number(s ?? 0) * 1_000;
    return Number.isFinite(total) ? total : undefined;
  }
  return undefined;
}

/**
 * Parses a duration to milliseconds or throws a `SchedulerError`.
 *
 * Options: `code` (default `"invalid-duration"`), `field` (named in the message,
 * default `"duration"`), `path` (the field path), `min` (ms, inclusive).
 *
 * @throws {SchedulerError} `${code}: ${field}: expected a duration like "30s", got "soon"`, or
 *   `… is longer than the longest duration` past {@link MAX_DURATION_MS}
 */
export function parseDuration(
  input: unknown,
  options: { code?: SchedulerErrorCode; field?: string; path?: string; min?: number | undefined } = {},
): number {
  const { code = "invalid-duration", field = "duration", path, min } = options;
  const exact = exactly(input);
  const ms = exact === undefined ? undefined : Math.round(exact);
  const at = path === undefined ? {} : { path };
  if (ms !== undefined && ms > MAX_DURATION_MS) {
    throw new SchedulerError(code, `${field}: ${quote(input)} ${TOO_LONG}`, at);
  }
  if (ms === undefined) {
    throw new SchedulerError(code, `${field}: expected a duration like "30s", got ${quote(input)}`, at);
  }
  // Before rounding: 999.6 ms is under a minimum of 1 s, though it rounds to 1 000.
  if (min !== undefined && (exact as number) < min) {
    throw new SchedulerError(code, `${field}: must be at least ${formatDuration(min)}, got ${quote(input)}`, at);
  }
  return ms;
}

/** The end of the error for a duration longer than {@link MAX_DURATION_MS}. */
export const TOO_LONG = `is longer than the longest duration, ${formatDuration(MAX_DURATION_MS)} (2^53 - 1 ms)`;

/**
 * Formats milliseconds as the shortest compact duration (`5400000` → `"1h30m"`).
 * `parseDuration(formatDuration(ms)) === ms` for every whole number of ms from 0 to
 * {@link MAX_DURATION_MS}.
 *
 * @throws {SchedulerError} `invalid-duration` for anything else (a fraction, a negative, NaN, a string)
 */
export function formatDuration(ms: number): string {
  // -1 and NaN gave "", 1.5 gave "1ms" and Infinity "Infinityd".
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_DURATION_MS) {
    throw new SchedulerError(
      "invalid-duration",
      `duration: expected whole milliseconds 0 to 2^53 - 1, got ${quote(ms)}`,
    );
  }
  if (ms === 0) return "0s";
  let rest = ms;
  let out = "";
  for (const unit of ["d", "h", "m", "s", "ms"] as const) {
    const size = UNIT_MS[unit] as number;
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}
