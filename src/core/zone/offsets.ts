/**
 * Zone offsets as segments: between two transitions a zone's offset is constant, so
 * wall time = instant + offset there. Temporal is asked only to discover transitions,
 * once per zone and UTC year; every later lookup is arithmetic on the cached table.
 */
import { civilFromDays, civilYear, DAY_SECONDS, daysFromCivil } from "../civil.ts";
import { Temporal } from "../temporal.ts";
import { assertTimeZone } from "./assert.ts";

/** A span of instants (epoch seconds, `[start, end)`) with one UTC offset (seconds). */
export interface Segment {
  readonly start: number;
  readonly end: number;
  readonly offset: number;
  /** Offset just before `start`; differs from `offset` when `start` is a transition. */
  readonly prevOffset: number;
}

/** Offsets of one zone. */
export interface ZoneOffsets {
  /** The canonical zone id. */
  readonly id: string;
  /** The segment containing the instant `t` (epoch seconds). */
  segmentAt(t: number): Segment;
  /** UTC offset (seconds) at the instant `t` (epoch seconds). */
  offsetAt(t: number): number;
  /** Instant (epoch seconds) of a wall time, like Temporal's `disambiguation: "compatible"`. */
  wallToInstant(wall: number): number;
}

/** Bounds on any UTC offset (tzdata's largest, LMT included, is under 16 h). */
export const MIN_OFFSET = -18 * 3600;
export const MAX_OFFSET = 18 * 3600;

// Temporal's own range, kept inside so year tables never step out of it.
const MIN_TABLE_YEAR = -271_000;
const MAX_TABLE_YEAR = 275_000;
const MAX_YEARS_PER_ZONE = 512;
const MAX_ZONES = 128;
// Longer than any transition's shift, so a gap or overlap window never straddles it.
const LOOK_BACK = 3 * DAY_SECONDS;

function offsetSeconds(epochSeconds: number, id: string): number {
  const zdt = Temporal.Instant.fromEpochMilliseconds(epochSeconds * 1000).toZonedDateTimeISO(id);
  return Math.round(zdt.offsetNanoseconds / 1e9);
}

function yearSegments(id: string, year: number): Segment[] {
  const start = daysFromCivil(year, 1, 1) * DAY_SECONDS;
  const end = daysFromCivil(year + 1, 1, 1) * DAY_SECONDS;
  let offset = offsetSeconds(start, id);
  let prevOffset = offsetSeconds(start - 1, id);
  let from = start;
  // A transition shortly before New Year (Kiritimati skipped 1994-12-31) still shapes the
  // first instants of this year: start the year's first segment at that transition.
  if (prevOffset === offset && offsetSeconds(start - LOOK_BACK, id) !== offset) {
    const before = Temporal.Instant.fromEpochMilliseconds(start * 1000).toZonedDateTimeISO(id).getTimeZoneTransition(
      "previous",
    );
    if (before !== null) {
      from = Math.floor(before.epochMilliseconds / 1000);
      prevOffset = offsetSeconds(from - 1, id);
    }
  }
  const segments: Segment[] = [];
  let zdt: ReturnType<typeof Temporal.Instant.prototype.toZonedDateTimeISO> | null = Temporal.Instant
    .fromEpochMilliseconds(start * 1000).toZonedDateTimeISO(id);
  for (;;) {
    zdt = zdt.getTimeZoneTransition("next");
    const at = zdt === null ? Infinity : Math.floor(zdt.epochMilliseconds / 1000);
    if (zdt === null || at >= end) {
      segments.push({ start: from, end, offset, prevOffset });
      return segments;
    }
    segments.push({ start: from, end: at, offset, prevOffset });
    prevOffset = offset;
    offset = Math.round(zdt.offsetNanoseconds / 1e9);
    from = at;
  }
}

function isFixed(id: string): boolean {
  const early = Temporal.Instant.fromEpochMilliseconds(-8.6e15).toZonedDateTimeISO(id);
  return early.getTimeZoneTransition("next") === null;
}

function createZoneOffsets(id: string): ZoneOffsets {
  if (isFixed(id)) {
    const offset = offsetSeconds(0, id);
    const only: Segment = { start: -Infinity, end: Infinity, offset, prevOffset: offset };
    return { id, segmentAt: () => only, offsetAt: () => offset, wallToInstant: (wall) => wall - offset };
  }
  // Memo of a pure function of tzdata, owned by this zone object and bounded.
  const years = new Map<number, Segment[]>();
  const segmentAt = (t: number): Segment => {
    const year = Math.min(
      MAX_TABLE_YEAR,
      Math.max(MIN_TABLE_YEAR, civilYear(civilFromDays(Math.floor(t / DAY_SECONDS)))),
    );
    let segments = years.get(year);
    if (segments === undefined) {
      if (years.size >= MAX_YEARS_PER_ZONE) years.delete(years.keys().next().value as number);
      segments = yearSegments(id, year);
      years.set(year, segments);
    }
    for (let i = segments.length - 1; i > 0; i--) if (t >= segments[i]!.start) return segments[i]!;
    return segments[0]!;
  };
  const offsetAt = (t: number): number => segmentAt(t).offset;
  const wallToInstant = (wall: number): number => {
    const before = offsetAt(wall - DAY_SECONDS);
    const after = offsetAt(wall + DAY_SECONDS);
    const early = wall - before;
    const late = wall - after;
    const earlyOk = offsetAt(early) === before;
    const lateOk = offsetAt(late) === after;
    if (earlyOk && lateOk) return Math.min(early, late);
    if (earlyOk) return early;
    if (lateOk) return late;
    // A wall time in a gap: shifted later by the gap's length, like "compatible".
    return early;
  };
  return { id, segmentAt, offsetAt, wallToInstant };
}

// Zone tables are a pure function of the runtime's tzdata; sharing them across schedules
// keeps thousands of jobs in one zone from each asking Temporal (slow as a polyfill) for
// the same transitions. Bounded: at most MAX_ZONES zones, MAX_YEARS_PER_ZONE years each.
const zones = new Map<string, ZoneOffsets>();

/**
 * The offset table of a zone, shared by every schedule in that zone.
 *
 * @throws {SchedulerError} `invalid-timezone` for an unknown zone
 * @example zoneOffsets("America/New_York").offsetAt(1_700_000_000) // -18000
 */
export function zoneOffsets(name: string): ZoneOffsets {
  const known = zones.get(name);
  if (known !== undefined) return known;
  const id = assertTimeZone(name);
  const table = zones.get(id) ?? createZoneOffsets(id);
  if (zones.size >= MAX_ZONES) zones.delete(zones.keys().next().value as string);
  zones.set(name, table);
  if (id !== name) zones.set(id, table);
  return table;
}
