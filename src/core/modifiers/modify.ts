/**
 * Schedule modifiers (`except`, `startAt`, `endAt`) around any schedule. Exclusions are
 * judged on the wall time a slot actually fires at in the schedule's zone; an excluded
 * slot is skipped by jumping past the whole stretch of wall time the exclusions cover,
 * then asking the schedule for its next slot from there.
 */
import { DAY_SECONDS, daysFromCivil } from "../civil.ts";
import { quote, SchedulerError } from "../errors.ts";
import { toEpochMs } from "../instant.ts";
import type { InstantInput } from "../instant.ts";
import { scheduleMethods } from "../iterate.ts";
import type { ModifierSpec, Schedule, ScheduleSpec } from "../types.ts";
import { zoneOffsets } from "../zone/offsets.ts";
import type { ZoneOffsets } from "../zone/offsets.ts";
import { compileExclusion, datesExclusion, dayOf } from "./exclusion.ts";
import { Temporal } from "../temporal.ts";
import type { Exclusion, TimeSets } from "./exclusion.ts";

/** The modifier options `cron()`, `every()` and `schedule()` accept. */
export interface ModifierOptions {
  /**
   * Slots to leave out: cron expressions (the same grammar, `H` hashing the same key, read
   * in the schedule's zone) and `YYYY-MM-DD` local dates (the whole day). No default.
   */
  except?: string | readonly string[];
  /** No slot before this instant (epoch ms, `Date`, ISO string with offset). No default. */
  startAt?: InstantInput;
  /** No slot at or after this instant. No default. */
  endAt?: InstantInput;
}

/** Most exclusions one schedule takes; a holiday list for decades fits. */
export const MAX_EXCLUSIONS = 1_000;

// Wall seconds past which no search goes (year 10000).
const END_WALL = daysFromCivil(10_000, 1, 1) * DAY_SECONDS;
const START_WALL = daysFromCivil(1, 1, 1) * DAY_SECONDS;
// 29 years (and a day): every shape of every month occurs in such a span.
const CYCLE_MS = (29 * 366 + 1) * DAY_SECONDS * 1000;
// Steps one search may take (fires looked at plus exclusion runs chained). Reached only by
// exclusions that leave a fire once in centuries; the search then reports no fire.
const MAX_STEPS = 100_000;
// Offset changes one search looks past when only DST-shifted slots could still fire.
const MAX_SHIFTS = 64;

/** Whether `options` asks for any modifier. */
export function hasModifiers(options: ModifierOptions): boolean {
  return options.except !== undefined || options.startAt !== undefined || options.endAt !== undefined;
}

/**
 * `base` with the modifiers of `options` applied; `base` itself when there are none.
 * `context.main` is the base's time of day (cron), which lets whole-day exclusions skip
 * by days; `context.hashKey` is what `H` in an exclusion hashes.
 *
 * @throws {SchedulerError} `invalid-spec` for a bad exclusion, `endAt` not after
 *   `startAt`, or when every fire time is excluded; `invalid-instant` for a bad
 *   `startAt`/`endAt`
 */
export function withModifiers(
  base: Schedule,
  options: ModifierOptions,
  context: { hashKey?: string | undefined; main?: TimeSets | undefined } = {},
): Schedule {
  if (!hasModifiers(options)) return base;
  const list = options.except === undefined ? [] : typeof options.except === "string" ? [options.except] : options.except;
  if (!Array.isArray(list)) {
    throw new SchedulerError("invalid-spec", `except: expected a string or an array of strings, got ${quote(options.except)}`, { path: "except" });
  }
  if (list.length > MAX_EXCLUSIONS) {
    throw new SchedulerError("invalid-spec", `except: at most ${MAX_EXCLUSIONS} entries, got ${list.length}`, { path: "except" });
  }
  const exclusions = list.map((text, i) => compileExclusion(text, i, context.hashKey, context.main));
  const startAt = options.startAt === undefined ? undefined : toEpochMs(options.startAt, { field: "startAt" });
  const endAt = options.endAt === undefined ? undefined : toEpochMs(options.endAt, { field: "endAt" });
  if (startAt !== undefined && endAt !== undefined && endAt <= startAt) {
    throw new SchedulerError("invalid-spec", `endAt: must be after startAt (${quote(new Date(startAt).toISOString())}), got ${quote(new Date(endAt).toISOString())}`, { path: "endAt" });
  }
  const zone = zoneOffsets(base.timezone);
  // Dates are searched as one set: a holiday list of any length costs one lookup.
  const days = new Set(exclusions.map(dayOf).filter((d): d is number => d !== undefined));
  const searched = days.size === 0 ? exclusions : [...exclusions.filter((x) => dayOf(x) === undefined), datesExclusion("dates", days)];
  const free = exclusions.length === 0 ? undefined : freeSearch(base, zone, searched);

  const next = (afterMs: number): number | null => {
    let after = toEpochMs(afterMs, { field: "after" });
    if (startAt !== undefined && after < startAt) after = startAt - 1;
    const t = free === undefined ? base.next(after) : free.next(after, Infinity);
    return t === null || (endAt !== undefined && t >= endAt) ? null : t;
  };
  const prev = (beforeMs: number): number | null => {
    let before = toEpochMs(beforeMs, { field: "before" });
    if (endAt !== undefined && before > endAt) before = endAt;
    const t = free === undefined ? base.prev(before) : free.prev(before);
    return t === null || (startAt !== undefined && t < startAt) ? null : t;
  };

  if (free !== undefined) assertSomeFire(base, free, startAt, exclusions);

  const extra: ModifierSpec = {};
  if (exclusions.length > 0) extra.except = exclusions.map((x) => x.text);
  if (startAt !== undefined) extra.startAt = startAt;
  if (endAt !== undefined) extra.endAt = endAt;
  const baseSpec = base.toJSON() as ScheduleSpec & ModifierSpec;
  // `H` in an exclusion needs the key back, even when the expression itself has none.
  if (context.hashKey !== undefined && baseSpec.hashKey === undefined && exclusions.some((x) => /(?:^|[\s,])H/.test(x.text))) {
    extra.hashKey = context.hashKey;
  }
  const spec = { ...baseSpec, ...extra } as ScheduleSpec;
  return scheduleMethods({
    kind: base.kind,
    timezone: base.timezone,
    next,
    prev,
    // The text form has no room for modifiers: toJSON() is the form that round-trips.
    toString(): string {
      return base.toString();
    },
    toJSON(): ScheduleSpec {
      return { ...spec };
    },
  });
}

// Refused like an expression that never fires: nothing would ever run. What an exclusion
// matches depends on the month, its length and the weekday it starts on, and every such
// month occurs in any 29 consecutive years: 29 years past the last year an exclusion
// names decide.
function assertSomeFire(base: Schedule, free: FreeSearch, startAt: number | undefined, exclusions: readonly Exclusion[]): void {
  const from = startAt ?? 0;
  if (base.next(from - 1) === null) return;
  let last = from;
  for (const x of exclusions) if (x.lastYear !== undefined) last = Math.max(last, Date.UTC(x.lastYear + 1, 0, 1));
  const budget = { left: MAX_STEPS };
  if (free.next(from - 1, last + CYCLE_MS, budget) === null) {
    const list = exclusions.map((x) => quote(x.text)).join(", ");
    // Out of steps is not proof that nothing fires, and is said so: the exclusions interlock too finely.
    const why = budget.left > 0 ? "every fire time is excluded" : `no fire time found within ${MAX_STEPS} steps; the exclusions interlock too finely`;
    throw new SchedulerError("invalid-spec", `except: ${why} (${list})`, { path: "except" });
  }
}

interface FreeSearch {
  /** First fire after `after` that no exclusion matches, or null (none up to `limit`, or `budget` ran out). */
  next(after: number, limit: number, budget?: { left: number }): number | null;
  /** Last fire before `before` that no exclusion matches, or null. */
  prev(before: number): number | null;
}

function freeSearch(base: Schedule, zone: ZoneOffsets, exclusions: readonly Exclusion[]): FreeSearch {
  const excluded = (wall: number): boolean => {
    for (const x of exclusions) if (x.matches(wall)) return true;
    return false;
  };
  // The covered stretch from an excluded wall second on: every exclusion's run, chained.
  // `budget.left` counts down across one search so it ends however the exclusions interlock.
  const coveredUntil = (wall: number, limit: number, budget: { left: number }, strict = false): number => {
    let e = wall;
    for (let moved = true; moved && e <= limit && budget.left-- > 0;) {
      moved = false;
      for (const x of exclusions) {
        const n = x.runEnd(e, strict);
        if (n > e) e = n, moved = true;
      }
    }
    return budget.left > 0 ? e : END_WALL;
  };
  const coveredFrom = (wall: number, budget: { left: number }, strict = false): number => {
    let e = wall;
    for (let moved = true; moved && e >= START_WALL && budget.left-- > 0;) {
      moved = false;
      for (const x of exclusions) {
        const n = x.runStart(e, strict);
        if (n < e) e = n, moved = true;
      }
    }
    return budget.left > 0 ? e : START_WALL - 1;
  };
  return {
    next(after, limit, budget = { left: MAX_STEPS }) {
      let shifts = 0;
      let known: [number, number] = [0, -Infinity];
      // Wall seconds past `limit` (instant) in any zone.
      const wallLimit = limit === Infinity ? END_WALL : Math.floor(limit / 1000) + 86_400;
      let t = base.next(after);
      // A slot found past an offset change may lie past `limit`: shifted slots are looked
      // for past the horizon too (a zone may start DST long after the search begins).
      let shifted = false;
      while (t !== null && (t <= limit || shifted) && budget.left-- > 0) {
        const sec = Math.floor(t / 1000);
        const wall = sec + zone.offsetAt(sec);
        if (!excluded(wall)) return t;
        // A stretch already chained is reused: the search resumes inside it at each offset change.
        const e = wall >= known[0] && wall < known[1] ? known[1] : coveredUntil(wall, wallLimit, budget);
        if (budget.left <= 0) return null;
        known = [wall, e];
        // Covered for good: only a slot a later offset change shifts out of the schedule's own
        // times can still fire, unless the exclusions cover every wall time too.
        let u: number | null;
        shifted = e >= END_WALL || e > wallLimit;
        if (!shifted) u = firstAtOrAfter(zone, sec, e);
        else if (++shifts > MAX_SHIFTS || coveredUntil(wall, END_WALL, { left: MAX_STEPS }, true) >= END_WALL) return null;
        else u = transition(zone, sec, "next");
        if (u === null) return null;
        t = base.next(u * 1000 - 1);
      }
      return null;
    },
    prev(before) {
      const budget = { left: MAX_STEPS };
      let shifts = 0;
      let known: [number, number] = [Infinity, 0];
      let t = base.prev(before);
      while (t !== null && budget.left-- > 0) {
        const sec = Math.floor(t / 1000);
        const wall = sec + zone.offsetAt(sec);
        if (!excluded(wall)) return t;
        const e = wall <= known[1] && wall > known[0] ? known[0] : coveredFrom(wall, budget);
        if (budget.left <= 0) return null;
        known = [e, wall];
        let u: number | null;
        if (e >= START_WALL) u = lastAtOrBefore(zone, sec, e);
        else if (++shifts > MAX_SHIFTS || coveredFrom(wall, { left: MAX_STEPS }, true) < START_WALL) return null;
        else u = lastShiftedBefore(zone, sec);
        if (u === null) return null;
        t = base.prev(u * 1000 + 1000);
      }
      return null;
    },
  };
}

/** The zone's next offset change after `t` (or last one at or before it), epoch seconds, or null. */
function transition(zone: ZoneOffsets, t: number, direction: "next" | "previous"): number | null {
  let seg = zone.segmentAt(t);
  if (seg.start === -Infinity && seg.end === Infinity) return null;
  // The zone's cached segments first (a DST zone changes within a year); Temporal past that.
  for (let hops = 0; hops < 4; hops++) {
    if (direction === "next") {
      if (seg.end === Infinity) return null;
      seg = zone.segmentAt(seg.end);
      if (seg.prevOffset !== seg.offset) return seg.start;
    } else {
      if (seg.start === -Infinity) return null;
      if (seg.prevOffset !== seg.offset && seg.start < t) return seg.start;
      seg = zone.segmentAt(seg.start - 1);
    }
  }
  const zdt = Temporal.Instant.fromEpochMilliseconds(t * 1000).toZonedDateTimeISO(zone.id).getTimeZoneTransition(direction);
  return zdt === null ? null : Math.floor(zdt.epochMilliseconds / 1000);
}

/**
 * Where to look back from when every wall time before `t` is covered: the end of the
 * latest spring-forward window before `t` (slots shifted by its gap fire inside it), or
 * just before an earlier transition; null when the zone has none.
 */
function lastShiftedBefore(zone: ZoneOffsets, t: number): number | null {
  for (let tr = transition(zone, t, "previous"); tr !== null; tr = transition(zone, tr, "previous")) {
    const seg = zone.segmentAt(tr);
    const end = tr + Math.max(0, seg.offset - seg.prevOffset) - 1;
    if (end < t) return end;
  }
  return null;
}

/**
 * The earliest instant after `t` (epoch seconds) whose wall time reaches `wall`, or the
 * first offset transition on the way: a transition can shift a slot out of the covered
 * stretch (a gap) or repeat wall times before it (an overlap), so the search resumes there.
 */
function firstAtOrAfter(zone: ZoneOffsets, t: number, wall: number): number {
  let seg = zone.segmentAt(t);
  let u = Math.max(t + 1, wall - seg.offset);
  for (;;) {
    if (u < seg.end) return u;
    const start = seg.end;
    seg = zone.segmentAt(start);
    if (seg.prevOffset !== seg.offset) return start;
    u = Math.max(start, wall - seg.offset);
  }
}

/** The latest instant before `t` whose wall time is at most `wall`, or the last one before a transition on the way. */
function lastAtOrBefore(zone: ZoneOffsets, t: number, wall: number): number {
  let seg = zone.segmentAt(t);
  let u = Math.min(t - 1, wall - seg.offset);
  for (;;) {
    if (u >= seg.start) return u;
    if (seg.prevOffset !== seg.offset) return seg.start - 1;
    const end = seg.start - 1;
    seg = zone.segmentAt(end);
    u = Math.min(end, wall - seg.offset);
  }
}
