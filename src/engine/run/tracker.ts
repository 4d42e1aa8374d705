/**
 * The run tracker: the claims this node holds (queued or running), their abort
 * controllers, and the runs in flight that `stop()` waits for.
 */
import type { AttemptKey, RunKind } from "../../store/types.ts";
import type { Abortable } from "./abort.ts";

/**
 * One claim this node holds, read-only: the lease (`lease.ts`) is its only writer, so
 * the generation, the stored lease end and the fence move together.
 */
export interface HeldClaim extends Readonly<AttemptKey> {
  /** The row's kind: a scheduled slot, a manual run or a backfill's slot. */
  readonly kind: RunKind;
  /** The lease end last written to the store: after it (on their clocks) other nodes may reap the row. */
  readonly leaseUntil: number;
  /**
   * The fence, on this node's clock: the run holds the claim strictly before it. It is the
   * stored end less the lease grace, so a node whose clock runs up to the grace ahead
   * still sees the lease live while this node's handler may run.
   */
  readonly heldUntil: number;
  /** No renewal moves the fence past this: the attempt's start + timeout (Infinity while queued or settling). */
  readonly capUntil: number;
  /** Aborts the running handler's signal; undefined while queued or between attempts. */
  readonly controller: Abortable | undefined;
  /** Set once the fence passed, a renewal found the row taken, or the scheduler gave up; never cleared. */
  readonly lost: boolean;
  /** Set (with `lost`) when `stop()` or `close()` gave the claim up; they say so themselves. */
  readonly givenUp: boolean;
  /** Set (with `lost`) when a `cancelOther` slot superseded this run: its outcome is `cancelled`. */
  readonly superseded: boolean;
  /** Set once the handler settled and its outcome is being written: renewed without a cap, never fenced. */
  readonly settling: boolean;
  /** Bumped by every lease write, so a renewal racing it is not read as a loss. */
  readonly generation: number;
}

/** A run in flight as the tracker counts it. */
export interface RunToken {
  readonly job: string;
}

/** What the tracker exposes to the lease, the tick and `stop()`. */
export interface RunTracker {
  /** Starts holding `claim` (built by the lease). */
  add(claim: HeldClaim): void;
  /** Stops holding a claim (its outcome is recorded, or it was given up). */
  release(claim: HeldClaim): void;
  /** The claim held on `(job, slot)`, if any. */
  get(job: string, slot: number): HeldClaim | undefined;
  /** Every claim held now. */
  claims(): IterableIterator<HeldClaim>;
  /** How many claims are held (running, queued or between attempts). */
  readonly size: number;
  /** Runs in flight (a job's catch-up queue counts once: its slots run one after another), outcome writes included. */
  readonly running: number;
  /** Runs in flight less those whose handler is done and whose outcome is being written: what `concurrency` bounds. */
  readonly handlers: number;
  /** A run's handler settled and its outcome write began (`+1`), or that write ended (`-1`); `+1` wakes the settle listeners. */
  writing(delta: 1 | -1): void;
  /** Calls `listener` each time a run in flight settles. */
  onSettle(listener: () => void): void;
  /** Calls `listener` after each release (the lease stops its heartbeat when none are left; the timer re-ticks). */
  onRelease(listener: () => void): void;
  /** Tracks a run of `job` until it settles, for `stop()` and {@link settledOf}. */
  track<T>(run: Promise<T>, job: string): Promise<T>;
  /**
   * Counts `run` in flight until {@link end}: a run that is its own token makes no
   * promise per run of a large minute. Each token is begun once and ended once.
   */
  begin(run: RunToken): void;
  /** A run begun with {@link begin} settled: wakes the settle listeners. */
  end(run: RunToken): void;
  /** Resolves once every run of these jobs (of every job: no list) in flight now has settled. */
  settledOf(jobs?: readonly string[]): Promise<void>;
  /** Abort controllers `stop()` aborts after its grace (running handlers and retry backoffs). */
  readonly controllers: Set<Abortable>;
  /** True while `stop()` waits: no retry and no queued slot starts. */
  stopping: boolean;
}

const keyOf = (job: string, slot: number): string => `${slot}\u0000${job}`;

/** Creates an empty tracker. */
export function createRunTracker(): RunTracker {
  const held = new Map<string, HeldClaim>();
  /** Runs in flight, each with the callers of `settledOf()` waiting for it (made on first wait). */
  const active = new Map<RunToken, (() => void)[] | undefined>();
  const listeners: (() => void)[] = [];
  const settleListeners: (() => void)[] = [];
  let writing = 0;
  const tracker: RunTracker = {
    add(claim): void {
      held.set(keyOf(claim.job, claim.slot), claim);
    },
    release(claim): void {
      const k = keyOf(claim.job, claim.slot);
      if (held.get(k) !== claim) return;
      held.delete(k);
      for (const listener of listeners) listener();
    },
    get: (job, slot) => held.get(keyOf(job, slot)),
    claims: () => held.values(),
    get size() {
      return held.size;
    },
    get running() {
      return active.size;
    },
    get handlers() {
      return Math.max(0, active.size - writing);
    },
    writing(delta): void {
      writing += delta;
      if (delta === 1) { for (const listener of settleListeners) listener(); }
    },
    onSettle(listener): void {
      settleListeners.push(listener);
    },
    onRelease(listener): void {
      listeners.push(listener);
    },
    track<T>(run: Promise<T>, job: string): Promise<T> {
      const token: RunToken = { job };
      tracker.begin(token);
      const done = (): void => tracker.end(token);
      run.then(done, done);
      return run;
    },
    begin(run): void {
      active.set(run, undefined);
    },
    end(run): void {
      const waiting = active.get(run);
      active.delete(run);
      if (waiting !== undefined) { for (const resolve of waiting) resolve(); }
      for (const listener of settleListeners) listener();
    },
    async settledOf(jobs) {
      const names = jobs === undefined ? undefined : new Set(jobs);
      const waits: Promise<void>[] = [];
      for (const [run, waiting] of active) {
        if (names !== undefined && !names.has(run.job)) continue;
        waits.push(new Promise<void>((resolve) => active.set(run, [...(waiting ?? []), resolve])));
      }
      await Promise.all(waits);
    },
    controllers: new Set(),
    stopping: false,
  };
  return tracker;
}
