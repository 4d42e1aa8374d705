/**
 * The planned side of a timeline at any density: the next 24 h cut into equal buckets,
 * each marked when at least one slot falls in it, merged into spans. A schedule is
 * stepped at most once per bucket (`next()` from the end of the last marked bucket), so
 * `@every 1s` (86 400 slots) costs as little as an hourly job, and the band always
 * reaches the end of the window.
 */
import { schedule } from "../../core/schedule.ts";
import type { ScheduleSpec } from "../../core/types.ts";
import { startsOf } from "../../engine/tick/jitter.ts";

/** Buckets across 24 h: 6 minutes each, 2 px of the 960 px axis. */
export const PLANNED_BUCKETS = 240;

/** Occupied intervals of `(from, to]`, ascending and merged. */
export type Spans = [number, number][];

/**
 * The spans of `(from, to]` that hold planned slots of `spec`; empty when the schedule
 * cannot be rebuilt (a user-supplied Schedule object) or never fires there. With
 * `jitter` (the job's name and its jitter in ms) the spans hold the jittered starts.
 */
export function plannedSpans(
  spec: ScheduleSpec,
  from: number,
  to: number,
  buckets: number = PLANNED_BUCKETS,
  jitter?: { name: string; ms: number },
): Spans {
  const size = (to - from) / buckets;
  const spans: Spans = [];
  let sched;
  try {
    sched = schedule(spec);
    if (jitter !== undefined) sched = startsOf({ name: jitter.name, schedule: sched, jitterMs: jitter.ms });
  } catch {
    return spans;
  }
  let cursor = from;
  for (let steps = 0; steps <= buckets; steps++) {
    const t = sched.next(cursor);
    if (t === null || t > to) break;
    // Buckets are (start, end], like the window: a slot on a boundary closes its bucket.
    const i = Math.max(0, Math.min(buckets - 1, Math.ceil((t - from) / size) - 1));
    const start = from + i * size;
    const end = from + (i + 1) * size;
    const last = spans.at(-1);
    if (last !== undefined && last[1] >= start) last[1] = end;
    else spans.push([start, end]);
    cursor = Math.max(t, end);
  }
  return spans;
}
