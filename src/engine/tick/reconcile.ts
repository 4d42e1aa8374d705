/**
 * Claims of unknown outcome. A `claim()` that failed (its deadline passed, the
 * connection broke) may still have committed: its rows are this node's, `running`, and
 * nothing runs them. The next tick finds them in its snapshot and settles each at once:
 * run it when the job's catch-up policy still allows, else record it `missed`. Such a
 * row never blocks its job for a lease and is never recorded `abandoned` by this node.
 */
import { own } from "../../core/own.ts";
import type { ClaimRequest, RunRecord, Store, TickSnapshot } from "../../store/types.ts";
import type { Lease } from "../run/lease.ts";
import type { JobRegistry } from "../jobs/registry.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import type { HeldClaim, RunTracker } from "../run/tracker.ts";
import type { Clock, SchedulerEvent } from "../types.ts";

/** Remembered requests are dropped after this many leases (their rows never showed up). */
const FORGET_AFTER_LEASES = 20;
/** At most this many remembered requests (the newest failed batches win). */
const MAX_REMEMBERED = 100_000;

/** What {@link Reconciler.settle} adopted (held now, to run), and the store error that stopped it, if any. */
export interface Settled {
  adopted: { job: ResolvedJob; claim: HeldClaim }[];
  error?: unknown;
}

/** The claims this node could not confirm, and how to settle them. */
export interface Reconciler {
  /** Remembers the `running` requests of a claim batch that failed. */
  unknown(requests: readonly ClaimRequest[]): void;
  /**
   * Settles the remembered rows `snapshot` shows as this node's and unheld: re-leases
   * the ones to run (from the clock: `now` may be a late trigger's time) and returns
   * them, records the others `missed`. A store failure stops it: what was adopted so far
   * is returned with the `error`; the rest stay remembered.
   */
  settle(snapshot: TickSnapshot, now: number): Promise<Settled>;
}

/** Creates an empty reconciler. */
export function createReconciler(deps: {
  store: Store;
  clock: Clock;
  node: string;
  registry: JobRegistry;
  lease: Lease;
  tracker: RunTracker;
  emit: (event: SchedulerEvent) => void;
}): Reconciler {
  const { store, clock, node, registry, lease, tracker } = deps;
  const remembered = new Map<string, { job: string; slot: number; forgetAt: number }>();
  const keyOf = (job: string, slot: number): string => `${slot}\u0000${job}`;

  return {
    unknown(requests) {
      for (const r of requests) {
        if (r.status !== "running" || remembered.size >= MAX_REMEMBERED) continue;
        remembered.set(keyOf(r.job, r.slot), {
          job: r.job,
          slot: r.slot,
          forgetAt: r.leaseUntil + FORGET_AFTER_LEASES * lease.policy.leaseMs,
        });
      }
    },
    async settle(snapshot, now) {
      const adopted: Settled["adopted"] = [];
      if (remembered.size === 0) return { adopted };
      const phantoms: RunRecord[] = [];
      for (const row of snapshot.running) {
        const k = keyOf(row.job, row.slot);
        if (!remembered.has(k) || row.node !== node || tracker.get(row.job, row.slot) !== undefined) continue;
        phantoms.push(row);
      }
      try {
        for (const row of phantoms) {
          const claim = await settleOne(row, now, own(snapshot.jobs, row.job)?.paused === true);
          if (claim !== undefined) adopted.push(claim);
          remembered.delete(keyOf(row.job, row.slot));
        }
      } catch (error) {
        return { adopted, error };
      }
      for (const [k, r] of remembered) if (r.forgetAt < now) remembered.delete(k);
      return { adopted };
    },
  };

  /** Adopts one phantom row (re-leased from the clock) or records it `missed`. Rejects on store failure. */
  async function settleOne(
    row: RunRecord,
    now: number,
    paused: boolean,
  ): Promise<{ job: ResolvedJob; claim: HeldClaim } | undefined> {
    const job = registry.get(row.job);
    const key = { job: row.job, slot: row.slot, attempt: row.attempt, node };
    if (job !== undefined && stillDue(job, row.slot, now, paused)) {
      const until = lease.until(now, job);
      const startedAt = Math.max(now, clock.now());
      if (!(await store.update(key, { startedAt, leaseUntil: until }))) return undefined;
      deps.emit({ type: "claimed", job: row.job, slot: row.slot });
      return { job, claim: lease.hold(key, until, row.kind) };
    }
    if (await store.update(key, { status: "missed", finishedAt: now, leaseUntil: null })) {
      registry.counters(row.job).missed++;
      deps.emit({ type: "missed", job: row.job, slot: row.slot });
    }
    return undefined;
  }
}

/** Whether the job's catch-up policy would still run `slot` at `now`. */
function stillDue(job: ResolvedJob, slot: number, now: number, paused: boolean): boolean {
  if (!job.enabled || paused || now - slot > job.catchUp.windowMs) return false;
  switch (job.catchUp.mode) {
    case "all":
      return true;
    case "none":
      return now - slot <= job.catchUp.toleranceMs;
    case "latest": {
      // Only while no newer slot is due: a newer one runs in its place.
      let next: number | null;
      try {
        next = job.schedule.next(slot);
      } catch {
        return false;
      }
      return next === null || next > now;
    }
  }
}
