/**
 * The run tracker: the claims this node holds (queued or running), their abort
 * controllers, and the runs in flight that `stop()` waits for.
 */
import type { AttemptKey } from "../../store/types.ts";

/** One claim this node holds. Mutable: the lease owner renews it, the runner moves it on. */
export interface HeldClaim extends AttemptKey {
  /** The lease end last written to the store. */
  leaseUntil: number;
  /** No renewal goes past this: the attempt's start + timeout + lease grace (Infinity while queued). */
  capUntil: number;
  /** Aborts the running handler's signal; undefined while queued or between attempts. */
  controller: AbortController | undefined;
  /** Set once the lease ended or a renewal found the row taken; never cleared. */
  lost: boolean;
  /** Set (with `lost`) when a `cancelOther` slot superseded this run: its outcome is `cancelled`. */
  superseded: boolean;
  /** Bumped by every lease write the runner makes, so a renewal racing it is not read as a loss. */
  generation: number;
}

/** What the tracker exposes to the lease, the tick and `stop()`. */
export interface RunTracker {
  /** Starts holding `key` with a lease to `leaseUntil` (no cap while queued). */
  hold(key: AttemptKey, leaseUntil: number, capUntil?: number): HeldClaim;
  /** Stops holding a claim (its outcome is recorded, or it was given up). */
  release(claim: HeldClaim): void;
  /** The claim held on `(job, slot)`, if any. */
  get(job: string, slot: number): HeldClaim | undefined;
  /** Every claim held now. */
  claims(): IterableIterator<HeldClaim>;
  /** How many claims are held (running, queued or between attempts). */
  readonly size: number;
  /** Runs in flight (a job's catch-up queue counts once: its slots run one after another); what `concurrency` bounds. */
  readonly running: number;
  /** Calls `listener` each time a run in flight settles. */
  onSettle(listener: () => void): void;
  /** Calls `listener` after each release (the lease stops its heartbeat when none are left; the timer re-ticks). */
  onRelease(listener: () => void): void;
  /** Tracks a run until it settles, for `stop()`. */
  track<T>(run: Promise<T>): Promise<T>;
  /** The runs in flight. */
  active(): Promise<unknown>[];
  /** Abort controllers `stop()` aborts after its grace (running handlers and retry backoffs). */
  readonly controllers: Set<AbortController>;
  /** True while `stop()` waits: no retry and no queued slot starts. */
  stopping: boolean;
}

const keyOf = (job: string, slot: number): string => `${slot}\u0000${job}`;

/** Creates an empty tracker. */
export function createRunTracker(): RunTracker {
  const held = new Map<string, HeldClaim>();
  const active = new Set<Promise<unknown>>();
  const listeners: (() => void)[] = [];
  const settleListeners: (() => void)[] = [];
  return {
    hold(key, leaseUntil, capUntil = Infinity): HeldClaim {
      const claim: HeldClaim = {
        job: key.job, slot: key.slot, attempt: key.attempt, node: key.node,
        leaseUntil, capUntil, controller: undefined, lost: false, superseded: false, generation: 0,
      };
      held.set(keyOf(key.job, key.slot), claim);
      return claim;
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
    onSettle(listener): void {
      settleListeners.push(listener);
    },
    onRelease(listener): void {
      listeners.push(listener);
    },
    track<T>(run: Promise<T>): Promise<T> {
      active.add(run);
      const done = (): void => {
        active.delete(run);
        for (const listener of settleListeners) listener();
      };
      run.then(done, done);
      return run;
    },
    active: () => [...active],
    controllers: new Set(),
    stopping: false,
  };
}
