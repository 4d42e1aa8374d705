/**
 * Jitter in the tick: a slot `S` of a job with `jitter` is due at `S + d(job, S)`
 * (core `jitterDelay`), not at `S`. Planning leaves a slot whose start has not come yet
 * to a later tick, the timer sleeps until the start, and run-ahead ticks at it; the
 * claim, `ctx.slot` and the row keep `S`.
 */
import { jitterDelay } from "../../core/modifiers/jitter.ts";
import { scheduleMethods } from "../../core/iterate.ts";
import type { Schedule } from "../../core/types.ts";
import type { ResolvedJob } from "../jobs/spec.ts";

/**
 * When `slot` of `job` starts: the slot plus its deterministic delay (the job's name is
 * the hash key), capped by the gap to the next slot.
 *
 * @example startOf(job, slot) - slot // in [0, min(job.jitterMs, 0.9 × gap))
 */
export function startOf(job: Pick<ResolvedJob, "name" | "schedule" | "jitterMs">, slot: number): number {
  if (job.jitterMs <= 0) return slot;
  const next = job.schedule.next(slot);
  return slot + jitterDelay(job.name, slot, job.jitterMs, next === null ? Infinity : next - slot);
}

/**
 * The starts of a job's slots as a schedule (its `next()` is the earliest start after
 * an instant), or the job's own schedule when it has no jitter. Starts keep the slots'
 * order: each delay is below the gap to the next slot.
 */
export function startsOf(job: Pick<ResolvedJob, "name" | "schedule" | "jitterMs">): Schedule {
  const { schedule } = job;
  if (job.jitterMs <= 0) return schedule;
  return scheduleMethods({
    kind: schedule.kind,
    timezone: schedule.timezone,
    next(after: number): number | null {
      // Only the last slot at or before `after` can still be waiting for its start.
      const last = schedule.prev(after + 1);
      if (last !== null) {
        const start = startOf(job, last);
        if (start > after) return start;
      }
      const slot = schedule.next(after);
      return slot === null ? null : startOf(job, slot);
    },
    prev(before: number): number | null {
      let slot = schedule.prev(before);
      while (slot !== null) {
        const start = startOf(job, slot);
        if (start < before) return start;
        slot = schedule.prev(slot);
      }
      return null;
    },
    toString: () => schedule.toString(),
    toJSON: () => schedule.toJSON(),
  });
}
