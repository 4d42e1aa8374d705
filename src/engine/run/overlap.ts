/**
 * Buffered slots (overlap `bufferOne`, `bufferAll`, `cancelOther`, and backfills): the
 * store keeps them `buffered`; a node starts the oldest one with `store.promote()`,
 * which checks in the same statement that no run of the job is live on any node. Every
 * node tries when a run of the job settles on it and when a tick sees a job with
 * buffered slots and no live run, so a buffered slot starts on whichever node gets
 * there first, exactly once.
 */
import type { RunRecord, TickSnapshot } from "../../store/types.ts";
import { errorText, jobLabel } from "../text.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import { type RunnerDeps, runSlot } from "./runner.ts";
import type { Outcome } from "../../store/types.ts";

/** Starts buffered slots. */
export interface Promoter {
  /**
   * Promotes and runs the job's buffered slots one after another, while this node wins
   * them; resolves when none is left to start here. `onRun` hears each slot started
   * and its outcome. One drain per job per node: a call during a drain makes that
   * drain try once more instead. Never rejects.
   */
  drain(job: ResolvedJob, onRun?: (slot: number, outcome: Outcome | undefined) => void): Promise<void>;
  /** Marks the job as having a slot waiting here (a backfill); runs of it that settle here then drain. Returns the unmark. */
  want(job: string): () => void;
  /** Whether a slot of the job waits here (see `want`). */
  wants(job: string): boolean;
  /** Resolves after `ms`, or sooner when a slot of the job settles on this node. */
  nap(job: string, ms: number): Promise<void>;
}

/** Creates the promoter of one scheduler. */
export function createPromoter(deps: RunnerDeps & { node: string }): Promoter {
  const { store, clock, lease, tracker, node, log } = deps;
  // job name → whether another drain was asked for while this one ran.
  const draining = new Map<string, boolean>();

  const promoteOne = async (job: ResolvedJob): Promise<RunRecord | undefined> => {
    const now = clock.now();
    try {
      // maxRuns: the store starts nothing past the limit (a backfill's slots, enqueued unchecked, included).
      return await store.promote({ job: job.name, node, now, leaseUntil: lease.until(now, job), maxRuns: job.maxRuns });
    } catch (e) {
      // The slot stays buffered; the next tick on any node tries again.
      log.warn(`${jobLabel(job.name)}: starting a buffered slot failed; the next tick retries`, {
        error: errorText(e),
      });
      return undefined;
    }
  };

  const drain = async (
    job: ResolvedJob,
    onRun?: (slot: number, outcome: Outcome | undefined) => void,
  ): Promise<void> => {
    if (draining.has(job.name)) {
      draining.set(job.name, true);
      return;
    }
    draining.set(job.name, false);
    try {
      for (;;) {
        if (tracker.stopping) return;
        const row = await promoteOne(job);
        if (row === undefined) {
          if (draining.get(job.name) !== true) return;
          draining.set(job.name, false);
          continue;
        }
        // Held from its promote: the lease the row got there is this node's to renew.
        const claim = lease.hold(
          { job: job.name, slot: row.slot, attempt: row.attempt, node },
          row.leaseUntil ?? clock.now(),
          row.kind,
        );
        deps.emit({ type: "claimed", job: job.name, slot: row.slot });
        onRun?.(row.slot, await runSlot(deps, job, claim));
        wake(job.name);
      }
    } finally {
      draining.delete(job.name);
    }
  };

  const wanted = new Map<string, number>();
  const nappers = new Map<string, Set<() => void>>();
  function wake(job: string): void {
    const set = nappers.get(job);
    nappers.delete(job);
    for (const resolve of set ?? []) resolve();
  }
  return {
    nap(job, ms) {
      return new Promise<void>((resolve) => {
        const handle = clock.setTimeout(done, ms);
        function done(): void {
          clock.clearTimeout(handle);
          nappers.get(job)?.delete(done);
          resolve();
        }
        const set = nappers.get(job) ?? new Set();
        set.add(done);
        nappers.set(job, set);
      });
    },
    drain: (job, onRun) => tracker.track(drain(job, onRun), job.name),
    want(job) {
      wanted.set(job, (wanted.get(job) ?? 0) + 1);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const left = (wanted.get(job) ?? 1) - 1;
        if (left === 0) wanted.delete(job);
        else wanted.set(job, left);
      };
    },
    wants: (job) => wanted.has(job),
  };
}

/** Does this overlap policy leave slots buffered behind a live run? */
export const buffers = (job: ResolvedJob): boolean => job.overlap !== "skip" && job.overlap !== "allow";

/**
 * Jobs the snapshot shows with a buffered slot and no live run (`running` or
 * `cancelling` with a lease not yet ended at `now`): a tick drains them.
 */
export function startable(snapshot: TickSnapshot, now: number): Set<string> {
  const waiting = new Set<string>();
  const live = new Set<string>();
  for (const row of snapshot.running) {
    if (row.status === "buffered") waiting.add(row.job);
    else if (row.leaseUntil !== null && row.leaseUntil >= now) live.add(row.job);
  }
  for (const job of live) waiting.delete(job);
  return waiting;
}
