/**
 * `maxRuns`: a job runs at most that many slots that reached an outcome. The count is
 * the store's (every node's rows; a slot's retries share its row; pruned rows stay
 * counted through `JobState.prunedRuns`), so all nodes stop together; slots still open
 * anywhere count too, so a tick never plans past the limit. This read only trims the
 * plan: the limit itself holds in the store, whose claim refuses (`limit`) a request
 * past `maxRuns` in the statement that inserts it, so two nodes that read the count at
 * different instants cannot together run one slot too many.
 */
import { own } from "../../core/own.ts";
import { COUNTED_STATUSES, type Store, type TickSnapshot } from "../../store/types.ts";
import type { DueJob, TickPlan } from "./plan_tick.ts";

export { COUNTED_STATUSES };

/** Rows that count toward `maxRuns`: a job's counted status counts plus its pruned counted rows. */
export function countedRuns(counts: Readonly<Record<string, number>> | undefined, pruned = 0): number {
  let n = pruned;
  if (counts === undefined) return n;
  for (const status of COUNTED_STATUSES) n += counts[status] ?? 0;
  return n;
}

/**
 * Slots a job with `maxRuns` may still start: the limit less counted rows (`pruned`
 * ones included) and open rows, never below 0. The store's claim counts the same.
 */
export function remainingRuns(
  maxRuns: number,
  counts: Readonly<Record<string, number>> | undefined,
  running: number,
  pruned = 0,
): number {
  return Math.max(0, maxRuns - countedRuns(counts, pruned) - running);
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
    left.set(
      job.name,
      remainingRuns(job.maxRuns!, counts[job.name], running, own(snapshot.jobs, job.name)?.prunedRuns),
    );
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
