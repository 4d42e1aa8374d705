/** Where a job is in its life: active, ended (no slot left) or completed (`maxRuns` reached). */
import type { RunRecord } from "../../store/types.ts";
import { remainingRuns } from "../tick/max_runs.ts";
import type { JobInfo } from "../types.ts";
import type { ResolvedJob } from "./spec.ts";

/**
 * `state` and, with `maxRuns`, `remainingRuns` of a job at `now`, from the store's status
 * counts, running rows and pruned counted rows (so every node reports the same).
 *
 * @example lifeOf(job, now, counts, running) // { state: "completed", remainingRuns: 0 }
 */
export function lifeOf(
  job: ResolvedJob,
  now: number,
  counts: Readonly<Record<string, number>> | undefined,
  running: readonly RunRecord[],
  pruned = 0,
): Pick<JobInfo, "state" | "remainingRuns"> {
  if (job.maxRuns !== undefined) {
    const live = running.filter((r) => r.job === job.name).length;
    const remaining = remainingRuns(job.maxRuns, counts, live, pruned);
    if (remaining === 0 && live === 0) return { state: "completed", remainingRuns: 0 };
    if (remaining === 0) return { state: "active", remainingRuns: 0 };
    return { state: ended(job, now) ? "ended" : "active", remainingRuns: remaining };
  }
  return { state: ended(job, now) ? "ended" : "active" };
}

function ended(job: ResolvedJob, now: number): boolean {
  try {
    return job.schedule.next(now) === null;
  } catch {
    return false; // a broken user-supplied Schedule; ticks log it
  }
}
