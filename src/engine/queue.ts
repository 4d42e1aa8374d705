/** A tick's catch-up queue: one job's won slots run one after another, each claim held until its turn. */
import type { AttemptKey } from "../store/types.ts";
import type { EngineState } from "./_state.ts";
import type { ResolvedJob } from "./spec.ts";

/**
 * Hands back claims this node won but will not start because the scheduler is
 * stopping: their leases end now, so the next tick on any node records them
 * `abandoned` (re-running them when retries are left) instead of the job being
 * blocked on every node until a catch-up queue's staggered leases run out.
 * Never rejects: a failed write leaves the lease to end on its own.
 */
export async function releaseQueued(state: EngineState, job: ResolvedJob, slots: readonly number[]): Promise<void> {
  const now = state.clock.now();
  for (const slot of slots) {
    const key: AttemptKey = { job: job.name, slot, attempt: 1, node: state.node };
    await state.store.update(key, { leaseUntil: now }).catch(() => false);
  }
}

/**
 * Starts a slot that waited in this node's catch-up queue: renews its lease from now
 * and resolves with attempt 1. When its staggered lease ran out first (the runs before
 * it took longer, with retries) a tick recorded it `abandoned` without a re-run, since
 * this node's earlier slot was still live; it is re-claimed here when the job has
 * retries left, resolving with attempt 2. Undefined when the slot is no longer this
 * node's to run or the store failed (its lease then ends on its own). Never rejects.
 */
export async function startQueued(state: EngineState, job: ResolvedJob, slot: number): Promise<number | undefined> {
  const now = state.clock.now();
  const leaseUntil = now + job.timeoutMs + state.leaseGraceMs;
  try {
    if (await state.store.update({ job: job.name, slot, attempt: 1, node: state.node }, { startedAt: now, leaseUntil })) return 1;
    if (job.retries.attempts < 1) return undefined;
    return (await state.store.reclaim({ job: job.name, slot, attempt: 1, node: state.node, now, leaseUntil, overlap: job.overlap })) ? 2 : undefined;
  } catch {
    return undefined;
  }
}
