/**
 * Runs one claimed slot through its attempts: the handler raced against its timeout
 * (aborting the signal), the outcome recorded through the group-commit writer,
 * retries with doubling backoff, the lease held and renewed throughout.
 */
import { formatDuration } from "../../core/duration.ts";
import type { Outcome, RunPatch, Store } from "../../store/types.ts";
import { safeLogger } from "../events.ts";
import { errorText, jobLabel } from "../text.ts";
import type { Lease } from "./lease.ts";
import type { EndSink } from "./claim_writes.ts";
import type { JobRegistry } from "../jobs/registry.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import { sleep } from "./sleep.ts";
import { type LazyAbort, lazyAbort } from "./abort.ts";
import { SUPERSEDED, supersededOf } from "./supersede.ts";
import { checkFailures } from "./failures.ts";
import type { HeldClaim, RunTracker } from "./tracker.ts";
import type { Clock, Logger, RunContext, RunLease, SchedulerEvent } from "../types.ts";

/**
 * The longest wait before a retry: the longest delay a Web timer honours (about 24.8
 * days). Doubling goes past it after a few dozen retries, and past safe-integer
 * leases soon after.
 */
export const MAX_BACKOFF_MS = 2_147_483_647;

/** What the runner uses. */
export interface RunnerDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  emit: (event: SchedulerEvent) => void;
  registry: JobRegistry;
  lease: Lease;
  tracker: RunTracker;
}

type AttemptResult = { status: "ok" } | {
  status: "error" | "timeout";
  error: string;
  stopped: boolean;
  thrown?: unknown;
};

/**
 * Runs `claim`'s slot of `job` from `claim.attempt`, on a row this node holds as
 * `running`. Resolves with the recorded outcome, or `undefined` when the row was taken
 * away (reaped after its lease: a `lost` event says so), the store failed, or the
 * scheduler stopped during a retry backoff (the row then stays `running` until its
 * lease ends and any node records it `abandoned`). Never rejects.
 */
export function runSlot(deps: RunnerDeps, job: ResolvedJob, claim: HeldClaim): Promise<Outcome | undefined> {
  return new Promise((settled) => runSlotTo(deps, job, claim, { settled }));
}

/** Hears the outcome of a run started with {@link runSlotTo}. */
export interface RunSink {
  /** As {@link runSlot} resolves: the recorded outcome, or `undefined`. Called once. */
  settled(outcome: Outcome | undefined): void;
}

/**
 * {@link runSlot} heard through `sink`, never within this call. A first attempt whose
 * handler returned nothing is recorded with no promise or async frame made for the run:
 * a large minute holds thousands of runs whose outcomes wait for one group commit, and
 * what each kept alive outlived a few scavenges. Anything else goes on in
 * {@link attemptsFrom}; only a job with `pauseOnFailure` checks its failures after.
 */
export function runSlotTo(deps: RunnerDeps, job: ResolvedJob, claim: HeldClaim, sink: RunSink): void {
  const started = deps.clock.now();
  const result = startAttempt(deps, job, claim, started);
  if (result !== OK || job.pauseOnFailure !== undefined) {
    // Only a job with `pauseOnFailure` has anything to check: no second async step per run otherwise.
    void attemptsFrom(deps, job, claim, started, result).then((outcome) =>
      job.pauseOnFailure === undefined
        ? sink.settled(outcome)
        : checkFailures(deps, job, outcome).then(() => sink.settled(outcome))
    );
    return;
  }
  // Recorded a microtask later, as after an `await`: a run's start never calls back into
  // the queue starting it (the settle listeners its outcome write wakes) before the run is
  // tracked there. The successes of one turn go in one microtask.
  if (succeeding.push(new Finishing(deps, claim, "ok", sink, job, started)) === 1) queueMicrotask(succeedAll);
}

/** Runs of this turn whose handler returned nothing: recorded a microtask later, together. */
let succeeding: Finishing[] = [];

function succeedAll(): void {
  const runs = succeeding;
  succeeding = [];
  for (const run of runs) {
    try {
      run.succeed();
    } catch (e) {
      // Not expected (events and counters do not throw): the run settles with no outcome
      // recorded, and its row ends with its lease.
      run.sink.settled(storeFailed(run.deps, run.claim, e));
    }
  }
}

/**
 * An outcome on its way to the store ({@link finish}): what the write's end means for the
 * run, heard by callback.
 */
class Finishing implements EndSink {
  /** One kept for the life of the module, never sent, for the reason `Attempt.kept` is. */
  static readonly kept: Finishing = new Finishing(undefined as never, undefined as never, "ok", undefined as never);
  constructor(
    readonly deps: RunnerDeps,
    readonly claim: HeldClaim,
    readonly status: Outcome,
    readonly sink: RunSink,
    /** Set for a success still to count and send ({@link succeed}). */
    readonly job?: ResolvedJob,
    /** A double, as every real start is (epoch ms). */
    readonly started = Number.NaN,
  ) {}

  /** Counts, emits and sends a first attempt that succeeded at {@link started}. */
  succeed(): void {
    const { deps, claim } = this;
    deps.lease.endTo(claim, success(deps, this.job!, claim, this.started, deps.clock.now()), this);
  }

  recorded(recorded: boolean): void {
    this.sink.settled(recorded ? this.status : notRecorded(this.deps, this.claim));
  }

  failed(error: unknown): void {
    this.sink.settled(storeFailed(this.deps, this.claim, error));
  }
}

/** Emits `started`, counts the run, and calls the handler (see {@link attemptOnce}). */
function startAttempt(
  deps: RunnerDeps,
  job: ResolvedJob,
  claim: HeldClaim,
  started: number,
): AttemptResult | Promise<AttemptResult> {
  deps.emit({ type: "started", job: job.name, slot: claim.slot, attempt: claim.attempt, kind: claim.kind });
  deps.registry.counters(job.name).runs++;
  return attemptOnce(deps, job, claim, started);
}

/**
 * Counts and emits an attempt that succeeded; the outcome to record (its start goes with
 * it: a claim that waited in the run queue started after its claim).
 */
function success(
  deps: RunnerDeps,
  job: ResolvedJob,
  claim: HeldClaim,
  started: number,
  now: number,
): RunPatch & { status: Outcome } {
  deps.registry.counters(job.name).ok++;
  deps.emit({ type: "succeeded", job: job.name, slot: claim.slot, attempt: claim.attempt, durationMs: now - started });
  return { status: "ok", startedAt: started, finishedAt: now, leaseUntil: null, error: null };
}

/** The attempts of a run from one already started at `started` (`first`: its result, or the promise of it). */
async function attemptsFrom(
  deps: RunnerDeps,
  job: ResolvedJob,
  claim: HeldClaim,
  firstStarted: number,
  first: AttemptResult | Promise<AttemptResult>,
): Promise<Outcome | undefined> {
  const { clock, store, lease, tracker } = deps;
  const { slot } = claim;
  try {
    for (let pending: typeof first | undefined = first;; pending = undefined) {
      const attempt = claim.attempt;
      const started = pending === undefined ? clock.now() : firstStarted;
      const result = await (pending ?? startAttempt(deps, job, claim, started));
      const now = clock.now();
      if (claim.superseded && result.status !== "ok") return await cancel(deps, claim, now);
      if (result.status === "ok") return await finish(deps, claim, success(deps, job, claim, started, now));
      if (claim.lost) return leftToReaper(deps, job, claim, result);
      const willRetry = attempt < job.retries.attempts && !result.stopped && !tracker.stopping;
      failedAttempt(deps, job, slot, attempt, result, willRetry);
      if (!willRetry) {
        return await finish(deps, claim, {
          status: result.status,
          startedAt: started,
          finishedAt: now,
          leaseUntil: null,
          error: result.error,
        });
      }
      // Retry k waits backoff * 2^(k-1), at most MAX_BACKOFF_MS; the lease covers the wait and one lease more.
      const delay = Math.min(job.retries.backoffMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
      const wait = { from: now + delay, timeoutMs: job.timeoutMs, attempt: attempt + 1, error: result.error };
      if (!(await lease.move(claim, wait))) return lost(deps, claim, "the row was reaped or taken during the retry");
      await sleep(deps, delay);
      // A lease longer than one lease is not renewed during the backoff, so a
      // supersession may not have been heard yet: the row says.
      if (!claim.lost && job.overlap === "cancelOther" && (await supersededOf(store, [claim])).size > 0) {
        lease.supersede(claim);
      }
      if (claim.superseded) return await cancel(deps, claim, clock.now());
      if (tracker.stopping || claim.lost) return leave(deps, claim);
      const restart = clock.now();
      if (!(await lease.move(claim, { from: restart, timeoutMs: job.timeoutMs, startedAt: restart }))) {
        return lost(deps, claim, "the row was reaped or taken during the retry backoff");
      }
    }
  } catch (e) {
    return storeFailed(deps, claim, e);
  }
}

/**
 * An attempt that failed after its lease ended (the node was paused, or cut off from the
 * store past its fence): no outcome is written. The row is left to the node that reaps it,
 * which records it `abandoned` and runs it again while attempts are left, as when the
 * reaper comes before the handler settles. Written here whenever the store still took it,
 * the same freeze ended `error` and was never retried.
 */
function leftToReaper(
  deps: RunnerDeps,
  job: ResolvedJob,
  claim: HeldClaim,
  result: Exclude<AttemptResult, { status: "ok" }>,
): undefined {
  // Given up by stop() or close(), which said so (a `lost` event): nothing more to say.
  if (claim.givenUp) return leave(deps, claim);
  // Not this node's to retry: the reaper re-runs it while attempts are left, unless another
  // run of the job is live then (`overlap: "skip"`); its `abandoned` event says which.
  failedAttempt(deps, job, claim.slot, claim.attempt, result, false);
  return lost(
    deps,
    claim,
    "the lease ended before the attempt settled; the node that reaps the row records it abandoned, and runs it again if attempts are left",
  );
}

/** Counts and emits an attempt that failed or timed out. */
function failedAttempt(
  deps: RunnerDeps,
  job: ResolvedJob,
  slot: number,
  attempt: number,
  result: Exclude<AttemptResult, { status: "ok" }>,
  willRetry: boolean,
): void {
  const counters = deps.registry.counters(job.name);
  if (result.status === "timeout") {
    counters.timeouts++;
    deps.emit({ type: "timed-out", job: job.name, slot, attempt, willRetry, timeoutMs: job.timeoutMs });
  } else {
    counters.errors++;
    deps.emit({ type: "failed", job: job.name, slot, attempt, error: result.error, willRetry, thrown: result.thrown });
  }
}

/** A store call of the run failed for good: the row stays `running`; once its lease ends any node records it `abandoned`. */
function storeFailed(deps: RunnerDeps, claim: HeldClaim, e: unknown): undefined {
  // Given up by stop() or close() (the store may be closed by now), which said so already.
  if (claim.givenUp) return leave(deps, claim);
  deps.log.error(
    `${jobLabel(claim.job)}: could not record the outcome of slot ${
      new Date(claim.slot).toISOString()
    }; its lease will expire`,
  );
  return lost(deps, claim, `the store failed: ${errorText(e)}`);
}

/** Records the outcome `patch`; never rejects (a store that fails for good: {@link storeFailed}). */
function finish(
  deps: RunnerDeps,
  claim: HeldClaim,
  patch: RunPatch & { status: Outcome },
): Promise<Outcome | undefined> {
  return new Promise((settled) =>
    deps.lease.endTo(claim, patch, new Finishing(deps, claim, patch.status, { settled }))
  );
}

/** An outcome the store did not take: the row is no longer this attempt's (or the scheduler gave it up). */
function notRecorded(deps: RunnerDeps, claim: HeldClaim): undefined {
  if (claim.givenUp) return leave(deps, claim);
  return lost(
    deps,
    claim,
    claim.lost
      ? "the lease ended before the outcome was recorded (the slot was reaped, and may have run elsewhere)"
      : "the row was no longer this attempt's (reaped or taken by another node)",
  );
}

/**
 * Records a superseded run `cancelled` (its row is `cancelling`; the compare-and-set
 * still holds for its holder). Also for a queued slot superseded before it started.
 */
export function cancel(deps: RunnerDeps, claim: HeldClaim, now: number): Promise<Outcome | undefined> {
  deps.registry.counters(claim.job).cancelled++;
  deps.emit({
    type: "cancelled",
    job: claim.job,
    slot: claim.slot,
    attempt: claim.attempt,
    node: claim.node,
    reason: SUPERSEDED,
  });
  return finish(deps, claim, { status: "cancelled", finishedAt: now, leaseUntil: null, error: SUPERSEDED });
}

function lost(deps: RunnerDeps, claim: HeldClaim, reason: string): undefined {
  deps.emit({ type: "lost", job: claim.job, slot: claim.slot, attempt: claim.attempt, reason });
  return leave(deps, claim);
}

function leave(deps: RunnerDeps, claim: HeldClaim): undefined {
  deps.tracker.release(claim);
  return undefined;
}

/**
 * The fencing value a handler sees: live views of its claim for `attempt`. `held` is true
 * strictly before the fence (`until`), which lies a lease grace before the stored lease
 * end, and never turns true again once false.
 */
function leaseView(deps: RunnerDeps, claim: HeldClaim, attempt: number): RunLease {
  let released = false;
  return {
    node: claim.node,
    attempt,
    get until() {
      return claim.heldUntil;
    },
    get held() {
      released ||= claim.lost || claim.attempt !== attempt || deps.clock.now() >= claim.heldUntil;
      return !released;
    },
  };
}

/**
 * One call of the handler, raced against the timeout. Never rejects. The race is one
 * promise settled by whichever comes first (the handler, or the timeout's timer), with
 * its state in one {@link Attempt}: a minute of 10 000 runs makes no promise per run for
 * the timeout, the race, or the handler's settling beyond the handler's own. A handler
 * that returns nothing has settled: its result comes back as it is, with no timer armed.
 */
function attemptOnce(
  deps: RunnerDeps,
  job: ResolvedJob,
  claim: HeldClaim,
  startedAt: number,
): AttemptResult | Promise<AttemptResult> {
  const controller = lazyAbort();
  deps.tracker.controllers.add(controller);
  deps.lease.start(claim, startedAt, job.timeoutMs, controller);
  const run = new Attempt(deps, job, claim, startedAt, controller);
  let returned: unknown;
  try {
    returned = job.run(new Context(run));
  } catch (e) {
    // A handler that throws before returning fails as one whose promise rejects (a turn later).
    returned = Promise.reject(e);
  }
  // A handler that returned nothing is done: no timer, no promise to adopt, none made for it.
  if (returned === undefined) return run.settled(OK);
  return new Promise<AttemptResult>((resolve) => {
    run.resolve = resolve;
    // The timeout runs from the attempt's start: a handler that worked a while before
    // returning its promise has that much less of it (no timer fires during that work).
    run.arm();
    // Adopts a thenable the handler returns, as `resolve()` would.
    Promise.resolve(returned).then(() => run.settled(OK), (e: unknown) => run.settled(run.failure(e)));
  });
}

/**
 * A handler's `ctx`: `signal`, `lease` and `log` are getters on the prototype, made on
 * first read. An object literal with getters cost about 770 bytes a run (a closure per
 * getter, and an object V8 keeps as a dictionary); this costs about 80.
 */
class Context implements RunContext {
  declare readonly job: string;
  declare readonly slot: number;
  declare readonly attempt: number;
  declare readonly payload: unknown;
  #run: Attempt;
  #lease: RunLease | undefined;
  #log: Logger | undefined;

  constructor(run: Attempt) {
    this.job = run.job.name;
    this.slot = run.claim.slot;
    this.attempt = run.claim.attempt;
    this.payload = run.job.payload;
    this.#run = run;
  }

  get signal(): AbortSignal {
    return this.#run.controller.signal;
  }

  /** For this attempt whenever it is first read. */
  get lease(): RunLease {
    return this.#lease ??= leaseView(this.#run.deps, this.#run.claim, this.attempt);
  }

  get log(): Logger {
    return this.#log ??= safeLogger(this.#run.deps.log, { job: this.job, slot: this.slot, attempt: this.attempt });
  }
}

const OK: AttemptResult = Object.freeze({ status: "ok" as const });

/** The state of one attempt's race between its handler and its timeout. */
class Attempt {
  /**
   * One attempt kept for the life of the module, a stand-in never armed, for the reason
   * `Lazy.kept` is (abort.ts): without it the run path was compiled again every minute.
   * Its start is a double, as every real one is (epoch ms), so its fields' representations
   * are the real ones.
   */
  static readonly kept: Attempt = new Attempt(
    undefined as never,
    undefined as never,
    undefined as never,
    Number.NaN,
    lazyAbort(),
  );
  /** The timeout's timer. */
  #timer: unknown = undefined;
  /** The handler has settled (after a timeout too: `stuck` asks). */
  #handlerSettled = false;
  #decided = false;
  #timedOut = false;
  #stuck: unknown = undefined;

  constructor(
    readonly deps: RunnerDeps,
    readonly job: ResolvedJob,
    readonly claim: HeldClaim,
    readonly startedAt: number,
    readonly controller: LazyAbort,
  ) {}

  /** Settles the attempt's promise, once its handler returned one. */
  resolve?: (result: AttemptResult) => void;

  /**
   * Arms the timeout, for the attempt's start + timeout: a handler that works a while before
   * returning its promise does not push its timeout past the lease's cap.
   */
  arm(): void {
    const { deps, job, startedAt } = this;
    this.#timer = deps.clock.setTimeout(
      () => this.timeout(),
      Math.max(0, startedAt + job.timeoutMs - deps.clock.now()),
    );
  }

  /** What a rejection of the handler means: aborted (stop, lease) or its own error. */
  failure(e: unknown): AttemptResult {
    const aborted = this.controller.aborted && !this.#timedOut;
    const why = this.claim.lost && !this.claim.givenUp ? "lease ended" : "scheduler stopped";
    return {
      status: "error",
      error: aborted ? `aborted: ${why} (${errorText(e)})` : errorText(e),
      stopped: aborted,
      thrown: e,
    };
  }

  /** The handler settled with `result`: the attempt's result, unless the timeout came first. */
  settled(result: AttemptResult): AttemptResult {
    this.#handlerSettled = true;
    if (this.#stuck !== undefined) this.deps.clock.clearTimeout(this.#stuck);
    this.#stuck = undefined;
    this.#decide(result);
    return result;
  }

  timeout(): void {
    if (this.#decided) return;
    this.#timedOut = true;
    const error = `timed out after ${formatDuration(this.job.timeoutMs)} (the job's timeout)`;
    this.controller.abort(new DOMException(error, "TimeoutError"));
    this.#decide({ status: "timeout", error, stopped: false });
  }

  #decide(result: AttemptResult): void {
    if (this.#decided) return;
    this.#decided = true;
    const { deps, claim } = this;
    if (this.#timer !== undefined) deps.clock.clearTimeout(this.#timer);
    deps.tracker.controllers.delete(this.controller);
    deps.lease.detach(claim);
    // One `stuck` event when a timed-out handler still has not settled when its lease grace ends.
    if (result.status === "timeout" && !this.#handlerSettled) {
      const { slot, attempt } = claim;
      const since = this.startedAt;
      this.#stuck = deps.clock.setTimeout(() => {
        this.#stuck = undefined;
        if (!this.#handlerSettled) deps.emit({ type: "stuck", job: this.job.name, slot, attempt, since });
      }, deps.lease.policy.graceMs);
    }
    this.resolve?.(result);
  }
}
