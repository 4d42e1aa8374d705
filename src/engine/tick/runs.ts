/**
 * Starting what a tick won: each job's won slots run oldest first, one run of the
 * node's capacity, through the run queue (`queue.ts`); after a job's runs here its
 * buffered slots are drained when its policy buffers.
 */
import { cancel, type RunSink, runSlot, runSlotTo } from "../run/runner.ts";
import { buffers, type Promoter } from "../run/overlap.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import type { HeldClaim, RunToken } from "../run/tracker.ts";
import type { Outcome } from "../../store/types.ts";
import type { RunnerDeps } from "../run/runner.ts";
import type { JobTickReport } from "../types.ts";
import type { QueuedRun, RunPace, RunQueue } from "./queue.ts";
import { note, record } from "./report.ts";

/** What starting runs uses. */
export interface RunsDeps extends RunnerDeps {
  promoter: Promoter;
  queue: RunQueue;
}

/**
 * Counts the runs a round queued until each settled or was dropped: one promise for all
 * of them, where each run had its own (and `Promise.all` a closure per run).
 */
export class RunGroup {
  #left = 0;
  #closed = false;
  #resolve!: () => void;
  readonly #settled = new Promise<void>((resolve) => (this.#resolve = resolve));

  add(): void {
    this.#left++;
  }

  done(): void {
    if (--this.#left === 0 && this.#closed) this.#resolve();
  }

  /** No more runs join: resolves once every run added settled or was dropped. */
  close(): Promise<void> {
    this.#closed = true;
    if (this.#left === 0) this.#resolve();
    return this.#settled;
  }
}

/**
 * Queues `claims` (won slots of `job`, oldest first) as one run of `group`. When the
 * scheduler stops before it starts, its claims are released (their rows end at the next
 * reap, as a run given up at a stop does).
 */
export function queueRun(
  deps: RunsDeps,
  job: ResolvedJob,
  claims: HeldClaim[],
  r: JobTickReport,
  group: RunGroup,
): void {
  group.add();
  deps.queue.push(new JobRun(deps, job, claims, r, group));
}

/**
 * One queued run: the queue's entry, the tracker's token and the sink of its slot's
 * outcome in one object, where a run of a large minute made about a dozen promises,
 * reactions and closures that lived until its outcome's group commit.
 */
class JobRun implements QueuedRun, RunToken, RunSink {
  /** One run kept for the life of the module, never started, for the reason `Lazy.kept` is (abort.ts). */
  static readonly kept: JobRun = new JobRun(
    undefined as never,
    { name: "" } as ResolvedJob,
    [],
    undefined as never,
    new RunGroup(),
  );
  readonly job: string;
  #pace: RunPace | undefined = undefined;
  /** A double, as every real start is (epoch ms). */
  #startedAt = Number.NaN;

  constructor(
    readonly deps: RunsDeps,
    readonly def: ResolvedJob,
    readonly claims: HeldClaim[],
    readonly report: JobTickReport,
    readonly group: RunGroup,
  ) {
    this.job = def.name;
  }

  start(pace: RunPace, startedAt: number): void {
    const { deps, def, claims, report } = this;
    this.#pace = pace;
    this.#startedAt = startedAt;
    deps.tracker.begin(this);
    // One slot that starts as it is (the common case of a large minute): heard by callback.
    const only = claims[0]!;
    if (claims.length === 1 && !deps.tracker.stopping && !only.superseded && startsAsIs(deps, only)) {
      note(report, "run", only.slot);
      runSlotTo(deps, def, only, this);
      return;
    }
    const end = (): void => this.#end();
    runEach(deps, def, claims, report).then(end, end);
  }

  /** The one slot's outcome ({@link runSlotTo}). */
  settled(outcome: Outcome | undefined): void {
    record(this.report, this.claims[0]!.slot, outcome);
    this.#end();
  }

  drop(): Promise<void> {
    return this.deps.lease.release(this.claims).finally(() => this.group.done());
  }

  /** The run's slots settled: the pace, then the tracker (which wakes the queue), then the job's buffered slots. */
  #end(): void {
    const { deps, group } = this;
    this.#pace!.ran(this.#startedAt);
    deps.tracker.end(this);
    const drained = drain(deps, this.def, this.report);
    if (drained === undefined) group.done();
    else {
      const done = (): void => group.done();
      drained.then(done, done);
    }
  }
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
 * A claim that waited in the queue with its lease renewed starts as it is: the outcome
 * write records when it started. Past its fence it is no longer surely ours.
 */
const startsAsIs = (deps: RunsDeps, claim: HeldClaim): boolean => !claim.lost && deps.clock.now() < claim.heldUntil;

/**
 * Runs one job's won slots oldest first. A slot that waited (a later slot of the job, or
 * a claim whose lease ended while it sat in the queue) is re-leased from when it starts.
 */
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
