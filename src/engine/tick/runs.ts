/**
 * Starting what a tick won: each job's won slots run oldest first, one run of the
 * node's capacity, through the run queue (`queue.ts`); after a job's runs here its
 * buffered slots are drained when its policy buffers.
 */
import { cancel, runSlot } from "../run/runner.ts";
import { buffers, type Promoter } from "../run/overlap.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import type { HeldClaim } from "../run/tracker.ts";
import type { RunnerDeps } from "../run/runner.ts";
import type { JobTickReport } from "../types.ts";
import type { RunQueue } from "./queue.ts";
import { note, record } from "./report.ts";

/** What starting runs uses. */
export interface RunsDeps extends RunnerDeps {
  promoter: Promoter;
  queue: RunQueue;
}

/**
 * Queues `claims` (won slots of `job`, oldest first) as one run; resolves once it
 * settled. When the scheduler stops before it starts, its claims are released (their
 * rows end at the next reap, as a run given up at a stop does).
 */
export function queueRun(deps: RunsDeps, job: ResolvedJob, claims: HeldClaim[], r: JobTickReport): Promise<void> {
  return deps.queue.push({
    start: (ran) =>
      deps.tracker.track(runInOrder(deps, job, claims, r).then(ran), job.name).then(() => drain(deps, job, r)),
    drop: () => deps.lease.release(claims),
  });
}

/** A run that needs no queue (a re-run of a reclaimed or adopted claim): started at once. */
export function runNow(deps: RunsDeps, job: ResolvedJob, claim: HeldClaim, r: JobTickReport): Promise<void> {
  note(r, "run", claim.slot);
  return deps.tracker.track(runSlot(deps, job, claim).then((o) => record(r, claim.slot, o)), job.name)
    .then(() => drain(deps, job, r));
}

/**
 * After a job's runs here: its buffered slots, when its policy buffers (or `always`: the
 * tick saw some waiting). Nothing otherwise, not a resolved promise: a `then` callback
 * that returns a promise costs two more turns of the microtask queue and a job to adopt
 * it, once per run of a large minute.
 */
export function drain(deps: RunsDeps, job: ResolvedJob, r: JobTickReport, always = false): Promise<void> | undefined {
  if (!always && !buffers(job) && !deps.promoter.wants(job.name)) return undefined;
  return deps.promoter.drain(job, (slot, outcome) => {
    note(r, "run", slot);
    record(r, slot, outcome);
  });
}

/**
 * Runs one job's won slots oldest first. A slot that waited (a later slot of the job, or
 * a claim whose lease ended while it sat in the queue) is re-leased from when it starts.
 */
function runInOrder(deps: RunsDeps, job: ResolvedJob, claims: HeldClaim[], r: JobTickReport): Promise<void> {
  // One slot that starts as it is (the common case of a large minute): no async frame
  // kept per run while its outcome waits for the group commit.
  const only = claims[0]!;
  if (claims.length === 1 && !deps.tracker.stopping && !only.superseded && startsAsIs(deps, only)) {
    note(r, "run", only.slot);
    return runSlot(deps, job, only).then((outcome) => record(r, only.slot, outcome));
  }
  return runEach(deps, job, claims, r);
}

/**
 * A claim that waited in the queue with its lease renewed starts as it is: the outcome
 * write records when it started. Past its fence it is no longer surely ours.
 */
const startsAsIs = (deps: RunsDeps, claim: HeldClaim): boolean => !claim.lost && deps.clock.now() < claim.heldUntil;

async function runEach(deps: RunsDeps, job: ResolvedJob, claims: HeldClaim[], r: JobTickReport): Promise<void> {
  const { tracker, lease, clock } = deps;
  // An index, not `entries()`: no iterator and no pair array per slot of a large minute.
  for (let i = 0; i < claims.length; i++) {
    const queued = claims[i]!;
    if (tracker.stopping) return lease.release(claims.slice(i));
    if (queued.superseded) {
      record(r, queued.slot, await cancel(deps, queued, clock.now()));
      continue;
    }
    const fresh = i === 0 && startsAsIs(deps, queued);
    const claim = fresh ? queued : await startQueued(deps, job, queued);
    if (claim === undefined) continue;
    note(r, "run", claim.slot);
    record(r, claim.slot, await runSlot(deps, job, claim));
  }
}

/**
 * Starts a slot that waited: its lease from now. When the row was reaped meanwhile
 * (this node stalled past the lease) it is re-claimed when the job has retries left.
 * Undefined when the slot is no longer this node's to run.
 */
async function startQueued(deps: RunsDeps, job: ResolvedJob, claim: HeldClaim): Promise<HeldClaim | undefined> {
  const { lease, tracker, clock } = deps;
  const now = clock.now();
  try {
    if (await lease.move(claim, { from: now, timeoutMs: job.timeoutMs, startedAt: now })) return claim;
    tracker.release(claim);
    if (job.retries.attempts <= 1) return undefined;
    return await lease.reclaim(job, claim.slot, claim.attempt, now, claim.kind);
  } catch {
    tracker.release(claim);
    return undefined;
  }
}
