/**
 * `cron()`: a cron expression read in an IANA zone, as a `Schedule`.
 *
 * Fires are found in instant space, one offset segment at a time: inside a segment
 * wall = instant + offset, so the next matching wall time maps straight back. At a
 * transition the segment's first instants also carry the rules of DESIGN.md §4: after
 * a gap they take the skipped wall times (shifted later by the gap), after an overlap
 * they are the repeated copy and fire only for all-hours schedules.
 */
import { quote, SchedulerError } from "../errors.ts";
import { toEpochMs } from "../instant.ts";
import type { DayMatch, Schedule, ScheduleSpec } from "../types.ts";
import { MAX_OFFSET, MIN_OFFSET, zoneOffsets } from "../zone/offsets.ts";
import type { ZoneOffsets } from "../zone/offsets.ts";
import { compileCron } from "./compile.ts";
import type { CompiledCron } from "./compile.ts";
import { parseCron } from "./parse.ts";
import { nextWall, prevWall } from "./step.ts";
import { scheduleMethods } from "../iterate.ts";

/** Options of {@link cron}. */
export interface CronOptions {
  /** IANA zone the expression is read in; default `"UTC"`. */
  timezone?: string;
  /** `"or"` (default, classic cron) or `"and"`: how day-of-month and day-of-week combine when both are restricted. */
  dayMatch?: DayMatch;
}

function nextIn(c: CompiledCron, zone: ZoneOffsets | null, from: number): number {
  if (zone === null) return nextWall(c, from);
  let t = from;
  for (let guard = 0; guard < 64; guard++) {
    const { start, end, offset, prevOffset } = zone.segmentAt(t);
    let best = Infinity;
    const lo = prevOffset > offset && !c.allHours ? Math.max(t, start + prevOffset - offset) : t;
    if (lo < end) {
      const w = nextWall(c, lo + offset);
      if (w - offset < end) best = w - offset;
    }
    if (prevOffset < offset) {
      const gapEnd = Math.min(start + offset - prevOffset, end);
      if (t < gapEnd) {
        const w = nextWall(c, t + prevOffset) - prevOffset;
        if (w < gapEnd && w < best) best = w;
      }
    }
    if (best !== Infinity) return best;
    if (end === Infinity) return Infinity;
    // No fire in this segment: any later fire has a wall time >= end + MIN_OFFSET.
    const w = nextWall(c, end + MIN_OFFSET);
    if (w === Infinity) return Infinity;
    t = Math.max(end, w - MAX_OFFSET);
  }
  return Infinity;
}

function prevIn(c: CompiledCron, zone: ZoneOffsets | null, from: number): number {
  if (zone === null) return prevWall(c, from);
  let t = from;
  for (let guard = 0; guard < 64; guard++) {
    const { start, end, offset, prevOffset } = zone.segmentAt(t);
    let best = -Infinity;
    const lo = prevOffset > offset && !c.allHours ? start + prevOffset - offset : start;
    if (t >= lo) {
      const w = prevWall(c, t + offset) - offset;
      if (w >= lo) best = w;
    }
    if (prevOffset < offset) {
      const hi = Math.min(t, start + offset - prevOffset - 1, end - 1);
      if (hi >= start) {
        const w = prevWall(c, hi + prevOffset) - prevOffset;
        if (w >= start && w > best) best = w;
      }
    }
    if (best !== -Infinity) return best;
    if (start === -Infinity) return -Infinity;
    const w = prevWall(c, start - 1 + MAX_OFFSET);
    if (w === -Infinity) return -Infinity;
    t = Math.min(start - 1, w - MIN_OFFSET);
  }
  return -Infinity;
}

/**
 * A schedule from a cron expression: 5 fields (`minute hour day-of-month month
 * day-of-week`) or 6 (leading `second`); names, `?`, `L`, `LW`, `nW`, `nL`, `n#k` and
 * `@daily`-style nicknames. Read in `timezone` with the DST rules of DESIGN.md §4.
 * A `+` before day-of-week (OCPS) is the same as `dayMatch: "and"`.
 *
 * Options: `timezone` (default `"UTC"`), `dayMatch` (default `"or"`).
 *
 * @throws {SchedulerError} `invalid-cron` (bad grammar or an expression that never fires),
 *   `invalid-timezone`
 * @example
 * const s = cron("30 2 * * *", { timezone: "America/New_York" });
 * s.next(Date.parse("2026-03-08T05:00:00Z")) // 03:30 EDT: the gap shifts 02:30 by an hour
 */
export function cron(expression: string, options: CronOptions = {}): Schedule {
  if (typeof options !== "object" || options === null) {
    throw new SchedulerError("invalid-cron", `options: expected an object, got ${quote(options)}`);
  }
  const fields = parseCron(expression);
  const given = options.dayMatch ?? "or";
  if (given !== "or" && given !== "and") {
    throw new SchedulerError("invalid-cron", `dayMatch must be "or" or "and", got ${quote(given)}`, { path: "dayMatch" });
  }
  const dayMatch: DayMatch = fields.plusAnd ? "and" : given;
  const compiled = compileCron(fields, dayMatch);
  const zone = zoneOffsets(options.timezone ?? "UTC");
  const stepZone = isUtc(zone) ? null : zone;
  const timezone = zone.id;
  const spec: ScheduleSpec = dayMatch === "and"
    ? { cron: fields.normalized, timezone, dayMatch }
    : { cron: fields.normalized, timezone };
  return scheduleMethods({
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
}

function isUtc(zone: ZoneOffsets): boolean {
  const seg = zone.segmentAt(0);
  return seg.start === -Infinity && seg.end === Infinity && seg.offset === 0;
}

/** Text form of a cron spec: `CRON_TZ=<zone> ` when not UTC, a `+` on day-of-week for `dayMatch: "and"`. */
export function cronText(spec: { cron: string; timezone?: string; dayMatch?: DayMatch }): string {
  let text = spec.cron;
  if (spec.dayMatch === "and" && !text.startsWith("@")) {
    const parts = text.split(" ");
    const last = parts.length - 1;
    if (!parts[last]!.startsWith("+")) parts[last] = `+${parts[last]}`;
    text = parts.join(" ");
  }
  return spec.timezone === undefined || spec.timezone === "UTC" ? text : `CRON_TZ=${spec.timezone} ${text}`;
}
