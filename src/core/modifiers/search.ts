/**
 * The search behind `except`: the plain schedule's next (or previous) slot, and when its
 * wall time is excluded, a jump past the whole stretch of wall time the exclusions cover.
 */
import { DAY_SECONDS, daysFromCivil } from "../civil.ts";
import type { Schedule } from "../types.ts";
import type { ZoneOffsets } from "../zone/offsets.ts";
import type { Exclusion } from "./exclusion.ts";
import { firstAtOrAfter, lastAtOrBefore, lastShiftedBefore, transition } from "./wall.ts";

// Wall seconds past which no search goes (year 10000), and before which (year 1).
const END_WALL = daysFromCivil(10_000, 1, 1) * DAY_SECONDS;
const START_WALL = daysFromCivil(1, 1, 1) * DAY_SECONDS;
/**
 * Steps one search may take (fires looked at plus exclusion runs chained). Exclusions
 * that interlock finely over long stretches reach it; the search then reports no fire.
 */
export const MAX_STEPS = 100_000;
// Offset changes one search looks past when only DST-shifted slots could still fire.
const MAX_SHIFTS = 64;

export interface FreeSearch {
  /** First fire after `after` that no exclusion matches, or null (none up to `limit`, or `budget` ran out). */
  next(after: number, limit: number, budget?: { left: number }): number | null;
  /** Last fire before `before` that no exclusion matches, or null. */
  prev(before: number): number | null;
}

export function freeSearch(base: Schedule, zone: ZoneOffsets, exclusions: readonly Exclusion[]): FreeSearch {
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
        else if (++shifts > MAX_SHIFTS || coveredUntil(wall, END_WALL, { left: MAX_STEPS }, true) >= END_WALL) {
          return null;
        } else u = transition(zone, sec, "next");
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
