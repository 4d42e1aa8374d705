/**
 * `maxRuns`: a job runs at most that many slots that reached an outcome. The count is
 * the store's (every node's rows; a slot's retries share its row), so all nodes stop
 * together; slots still running anywhere count too, so a tick never plans past the limit.
 */
import type { Store, TickSnapshot } from "../../store/types.ts";
import type { DueJob, TickPlan } from "./plan_tick.ts";

/** The statuses that count as a run toward `maxRuns`. */
export const COUNTED_STATUSES: readonly string[] = ["ok", "error", "timeout", "cancelled"];

/** Rows that count toward `maxRuns` among a job's status counts. */
export function countedRuns(counts: Readonly<Record<string, number>> | undefined): number {
  if (counts === undefined) return 0;
  let n = 0;
  for (const status of COUNTED_STATUSES) n += counts[status] ?? 0;
  return n;
}

/** Slots a job with `maxRuns` may still start: the limit less counted rows and live rows, never below 0. */
export function remainingRuns(
  maxRuns: number,
  counts: Readonly<Record<string, number>> | undefined,
  running: number,
): number {
  return Math.max(0, maxRuns - countedRuns(counts) - running);
}

/**
 * Trims `plan` (in place) to each job's remaining runs: the oldest slots to run are kept;
 * a job with none left plans nothing at all (no `missed` rows either: it is complete).
 * Reads the store only when a job with `maxRuns` has slots planned, in one call.
 *
 * @throws whatever `store.counts` throws (the tick then fails closed)
 */
export async function limitRuns(plan: TickPlan, snapshot: TickSnapshot, store: Pick<Store, "counts">): Promise<void> {
  const limited = [...plan.runnable, ...plan.idle].filter(({ job }) => job.maxRuns !== undefined);
  if (limited.length === 0) return;
  const counts = await store.counts(limited.map(({ job }) => job.name));
  const left = new Map<string, number>();
  for (const { job } of limited) {
    const running = snapshot.running.filter((r) => r.job === job.name).length;
    left.set(job.name, remainingRuns(job.maxRuns!, counts[job.name], running));
  }
  const trim = (due: DueJob): DueJob | undefined => {
    const n = left.get(due.job.name);
    if (n === undefined) return due;
    if (n === 0) return undefined;
    // Plans come oldest first: the limit keeps the oldest slots to run.
    return { job: due.job, run: due.run.slice(0, n), missed: due.missed };
  };
  const runnable: DueJob[] = [];
  const idle: DueJob[] = [];
  for (const due of plan.idle) {
    const kept = trim(due);
    if (kept !== undefined) idle.push(kept);
  }
  for (const due of plan.runnable) {
    const kept = trim(due);
    if (kept === undefined) continue;
    (kept.run.length > 0 ? runnable : idle).push(kept);
  }
  plan.runnable = runnable;
  plan.idle = idle;
}
