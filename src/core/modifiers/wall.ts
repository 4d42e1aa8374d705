/**
 * Instants and wall times across a zone's offset changes, for skipping covered wall time:
 * an offset change can shift a slot out of a covered stretch (a gap) or repeat wall times
 * (an overlap), so every jump stops at one.
 */
import { Temporal } from "../temporal.ts";
import type { ZoneOffsets } from "../zone/offsets.ts";

/** The zone's next offset change after `t` (or last one at or before it), epoch seconds, or null. */
export function transition(zone: ZoneOffsets, t: number, direction: "next" | "previous"): number | null {
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
  const zdt = Temporal.Instant.fromEpochMilliseconds(t * 1000).toZonedDateTimeISO(zone.id).getTimeZoneTransition(
    direction,
  );
  return zdt === null ? null : Math.floor(zdt.epochMilliseconds / 1000);
}

/**
 * Where to look back from when every wall time before `t` is covered: the end of the
 * latest spring-forward window before `t` (slots shifted by its gap fire inside it), or
 * just before an earlier transition; null when the zone has none.
 */
export function lastShiftedBefore(zone: ZoneOffsets, t: number): number | null {
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
export function firstAtOrAfter(zone: ZoneOffsets, t: number, wall: number): number {
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
export function lastAtOrBefore(zone: ZoneOffsets, t: number, wall: number): number {
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
