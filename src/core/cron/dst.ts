/**
 * The daylight-saving rules (docs/architecture.md, "Schedules"), applied to a compiled cron expression:
 * fires are found in instant space, one offset segment at a time. Inside a segment
 * wall = instant + offset, so the next matching wall time maps straight back. At a
 * transition the segment's first instants also carry the rules: after a gap they take
 * the skipped wall times (shifted later by the gap), after an overlap they are the
 * repeated copy and fire only for all-hours schedules.
 */
import { MAX_OFFSET, MIN_OFFSET } from "../zone/offsets.ts";
import type { ZoneOffsets } from "../zone/offsets.ts";
import type { CompiledCron } from "./compile.ts";
import { nextWall, prevWall } from "./step.ts";

/**
 * First fire at or after `from` (epoch seconds) in `zone` (null: UTC), or `Infinity`.
 */
export function nextIn(c: CompiledCron, zone: ZoneOffsets | null, from: number): number {
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

/**
 * Last fire at or before `from` (epoch seconds) in `zone` (null: UTC), or `-Infinity`.
 */
export function prevIn(c: CompiledCron, zone: ZoneOffsets | null, from: number): number {
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
