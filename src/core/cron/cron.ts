/**
 * `cron()`: a cron expression read in an IANA zone, as a `Schedule` (the DST rules are
 * in `dst.ts`).
 */
import { quote, SchedulerError } from "../errors.ts";
import { toEpochMs } from "../instant.ts";
import type { DayMatch, Schedule, ScheduleSpec } from "../types.ts";
import { zoneOffsets } from "../zone/offsets.ts";
import type { ZoneOffsets } from "../zone/offsets.ts";
import { compileCron } from "./compile.ts";
import { nextIn, prevIn } from "./dst.ts";
import { parseCron, ZONE_PREFIX } from "./parse.ts";
import { scheduleMethods } from "../iterate.ts";
import { withModifiers } from "../modifiers/modify.ts";
import { checkOptionKeys } from "../suggest.ts";
import type { ModifierOptions } from "../modifiers/modify.ts";

// A term starting with H (no field name or keyword starts with H).
const HASHED_TERM = /(?:^|[\s,])H/;

/**
 * Splits a `CRON_TZ=<zone> ` or `TZ=<zone> ` prefix off `text` (trimmed): the zone, or
 * undefined without a prefix, and the rest. Kubernetes writes the names in upper case;
 * only those are read.
 *
 * @throws {SchedulerError} `invalid-timezone` for a prefix with no zone or in lower case
 *   (left to the cron parser, either was read as the second field: "second step must be
 *   a number 1-60"); `fallback` names the zone dropping the prefix gives. `invalid-cron`
 *   for a prefix with nothing after it.
 */
export function zonePrefix(text: string, fallback: string): { zone: string | undefined; rest: string } {
  const m = ZONE_PREFIX.exec(text.trim());
  if (m === null) return { zone: undefined, rest: text.trim() };
  const [whole, name, zone] = m as unknown as [string, string, string];
  const upper = name.toUpperCase();
  const example = `${upper}=${zone === "" ? "Europe/Berlin" : zone} 0 9 * * *`;
  if (name !== upper) {
    throw new SchedulerError(
      "invalid-timezone",
      `timezone: the prefix is written ${upper}= in capitals, got ${quote(text)} (${example})`,
      { path: "timezone" },
    );
  }
  if (zone === "") {
    throw new SchedulerError(
      "invalid-timezone",
      `timezone: ${name}= names no zone in ${quote(text)}: write an IANA zone right after the = ` +
        `(${example}), or drop the prefix for ${fallback}`,
      { path: "timezone" },
    );
  }
  const rest = text.trim().slice(whole.length);
  // A second prefix was read by cron() after schedule() took the first: it won without a word.
  if (ZONE_PREFIX.test(rest)) {
    throw new SchedulerError("invalid-timezone", `timezone: one CRON_TZ= or TZ= prefix, got two in ${quote(text)}`, {
      path: "timezone",
    });
  }
  if (rest === "") {
    throw new SchedulerError(
      "invalid-cron",
      `expected a schedule after ${name}=${zone}, got ${quote(text)} (${example})`,
    );
  }
  return { zone, rest };
}

/** Options of {@link cron}. */
export interface CronOptions extends ModifierOptions {
  /** IANA zone the expression is read in; default `"UTC"`. */
  timezone?: string;
  /** `"or"` (default, classic cron) or `"and"`: how day-of-month and day-of-week combine when both are restricted. */
  dayMatch?: DayMatch;
  /** The key `H` hashes, normally the job's name (the engine passes it); required when the expression has `H`. */
  hashKey?: string;
  /** `"cron"` (default) or `"aws"`: EventBridge's `minute hour day-of-month month day-of-week year`. Never guessed. */
  format?: "cron" | "aws";
}

/**
 * A schedule from a cron expression: 5 fields (`minute hour day-of-month month
 * day-of-week`), 6 (leading `second`) or 7 (trailing `year`, 1970-2099); names, `?`,
 * `L`, `LW`, `nW`, `nL`, `n#k`, `H` and `@daily`-style nicknames. Read in `timezone`
 * with the daylight-saving rules (docs/architecture.md, "Schedules"). A `+` before day-of-week (OCPS) is the same as
 * `dayMatch: "and"`. After the last year of a year field, `next()` returns null.
 * A `CRON_TZ=<zone> ` or `TZ=<zone> ` prefix (what `toString()` writes for a zone other
 * than UTC) sets the zone and wins over `timezone`.
 *
 * Options: `timezone` (default `"UTC"`), `dayMatch` (default `"or"`), `hashKey` (no
 * default; what `H` hashes), `format` (default `"cron"`; `"aws"` for EventBridge);
 * modifiers, none by default: `except` (cron expressions, `H` hashing the same key, and
 * `YYYY-MM-DD` dates, matched against the wall time a slot actually fires at in
 * `timezone`; a 5-field exclusion covers every second of its minutes), `startAt` (no
 * slot before it) and `endAt` (no slot at or after it). `toJSON()` keeps the modifiers;
 * `toString()` is the expression alone.
 *
 * @throws {SchedulerError} `invalid-cron` (bad grammar, `H` without `hashKey`, or an
 *   expression that never fires), `invalid-timezone`, `invalid-spec` (a bad exclusion,
 *   `endAt` not after `startAt`, "every fire time is excluded"), `invalid-instant`
 * @example
 * ```ts
 * import { cron } from "edgecron";
 *
 * const s = cron("30 2 * * *", { timezone: "America/New_York" });
 * s.next(Date.parse("2026-03-08T05:00:00Z")); // 03:30 EDT: the gap shifts 02:30 by an hour
 * cron("H 3 * * *", { hashKey: "nightly-report" }).toString(); // "H 3 * * *"
 * cron("0 12 * * ? *", { format: "aws" }).toString(); // "cron(0 12 * * ? *)"
 * cron("0 9 * * 1-5", { timezone: "Europe/Berlin", except: ["* * 24-26 12 *", "2027-04-02"] }).next(0);
 * ```
 */
export function cron(expression: string, options: CronOptions = {}): Schedule {
  if (typeof options !== "object" || options === null) {
    throw new SchedulerError("invalid-cron", `options: expected an object, got ${quote(options)}`);
  }
  checkOptionKeys(options, ["timezone", "dayMatch", "hashKey", "format", "except", "startAt", "endAt"], "cron");
  // The text toString() gives for a zone other than UTC: its prefix wins over the option, as in schedule().
  const prefixed = typeof expression === "string" ? zonePrefix(expression, options.timezone ?? "UTC") : undefined;
  if (prefixed?.zone !== undefined) {
    expression = prefixed.rest;
    options = { ...options, timezone: prefixed.zone };
  }
  const fields = parseCron(expression, options);
  const { hashKey, format } = options;
  const given = options.dayMatch ?? "or";
  if (given !== "or" && given !== "and") {
    throw new SchedulerError("invalid-cron", `dayMatch must be "or" or "and", got ${quote(given)}`, {
      path: "dayMatch",
    });
  }
  const dayMatch: DayMatch = fields.plusAnd ? "and" : given;
  const compiled = compileCron(fields, dayMatch);
  const zone = zoneOffsets(options.timezone ?? "UTC");
  const stepZone = isUtc(zone) ? null : zone;
  const timezone = zone.id;
  const spec: ScheduleSpec & { cron: string } = dayMatch === "and"
    ? { cron: fields.normalized, timezone, dayMatch }
    : { cron: fields.normalized, timezone };
  // Only a key the expression used is kept: it is part of what the schedule means.
  if (hashKey !== undefined && HASHED_TERM.test(fields.normalized)) spec.hashKey = hashKey;
  if (format === "aws") spec.format = "aws";
  const plain = scheduleMethods({
    kind: "cron",
    timezone,
    next(afterMs: number): number | null {
      const after = toEpochMs(afterMs, { field: "after" });
      const t = nextIn(compiled, stepZone, Math.floor(after / 1000) + 1);
      return t === Infinity ? null : t * 1000;
    },
    prev(beforeMs: number): number | null {
      const before = toEpochMs(beforeMs, { field: "before" });
      const t = prevIn(compiled, stepZone, Math.ceil(before / 1000) - 1);
      return t === -Infinity ? null : t * 1000;
    },
    // Method syntax: bundlers that keep function names (esbuild keepNames, as tsx runs it)
    // wrap arrow properties in a per-object defineProperty call, which costs more than parsing.
    toString(): string {
      return cronText(spec);
    },
    toJSON(): ScheduleSpec {
      return { ...spec };
    },
  });
  return withModifiers(plain, options, { hashKey, main: compiled });
}

function isUtc(zone: ZoneOffsets): boolean {
  const seg = zone.segmentAt(0);
  return seg.start === -Infinity && seg.end === Infinity && seg.offset === 0;
}

/**
 * Text form of a cron spec: `CRON_TZ=<zone> ` when not UTC, a `+` on day-of-week for
 * `dayMatch: "and"`, the AWS form wrapped as `cron(...)`, as EventBridge writes it.
 * The hash key is not part of the text: `schedule(text, { hashKey })` reads it back.
 */
export function cronText(
  spec: { cron: string; timezone?: string; dayMatch?: DayMatch; format?: "cron" | "aws" },
): string {
  let text = spec.cron;
  if (spec.format === "aws") text = `cron(${text})`;
  else if (spec.dayMatch === "and" && !text.startsWith("@")) {
    const parts = text.split(" ");
    // Day-of-week is the last field, or the one before the year of a 7-field expression.
    const dow = parts.length === 7 ? 5 : parts.length - 1;
    if (!parts[dow]!.startsWith("+")) parts[dow] = `+${parts[dow]}`;
    text = parts.join(" ");
  }
  return spec.timezone === undefined || spec.timezone === "UTC" ? text : `CRON_TZ=${spec.timezone} ${text}`;
}
