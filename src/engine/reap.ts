/** Reaping: running claims whose lease ended become `abandoned`, and are re-run when retries are left. */
import type { RunRecord, TickSnapshot } from "../store/types.ts";
import { countersOf, type EngineState, findJob } from "./_state.ts";
import type { ResolvedJob } from "./spec.ts";
import type { JobTickReport } from "./types.ts";
import { own } from "../core/own.ts";

/**
 * Records every `running` row whose lease has ended as `abandoned` (only when the
 * snapshot shows one, so a normal tick costs no extra round trip) and re-claims the
 * ones of jobs this node knows (enabled, not paused) with retries left, at once (for
 * overlap-skip jobs only while no other run of the job is live): the
 * lease's end already stood for the backoff. Returns the re-claimed rows.
 */
export async function reapExpired(
  state: EngineState,
  snapshot: TickSnapshot,
  now: number,
  jobReport: (name: string) => JobTickReport,
): Promise<{ job: ResolvedJob; row: RunRecord }[]> {
  const expired = snapshot.running.some((row) => row.leaseUntil !== null && row.leaseUntil < now);
  if (!expired) return [];
  const reaped = await state.store.reap(now);
  const reclaimed: { job: ResolvedJob; row: RunRecord }[] = [];
  for (const row of reaped) {
    const job = findJob(state, row.job);
    const paused = own(snapshot.jobs, row.job)?.paused === true;
    const retry = job !== undefined && job.enabled && !paused && row.attempt <= job.retries.attempts;
    let willRetry = false;
    if (retry) {
      const leaseUntil = Math.max(now, state.clock.now()) + job.timeoutMs + state.leaseGraceMs;
      // The overlap check rides with the reclaim: a re-run must not start beside a live run of the job.
      const key = { job: row.job, slot: row.slot, attempt: row.attempt };
      willRetry = await state.store.reclaim(key, state.node, now, leaseUntil, { overlap: job.overlap });
      if (willRetry) reclaimed.push({ job, row });
    }
    countersOf(state, row.job).abandoned++;
    jobReport(row.job).abandoned.push(row.slot);
    state.emit({ type: "abandoned", job: row.job, slot: row.slot, attempt: row.attempt, node: row.node, willRetry });
  }
  return reclaimed;
}
