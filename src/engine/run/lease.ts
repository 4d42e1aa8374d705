/**
 * The lease: how long a claim stays this node's without news from it. Claims get a
 * short lease that a per-node heartbeat renews (all held claims in ONE `store.renew`
 * write per beat) while handlers run. The lease is the ONLY writer of a held claim:
 * `move()` and `end()` are the only code that writes a held row's lease, bumps a claim's
 * generation or moves its lease end (see `policy.ts` for the arithmetic and the fence).
 */
import type { AttemptKey, RunKind, RunPatch, RunRecord, Store, TickSnapshot } from "../../store/types.ts";
import type { HeldClaim, RunTracker } from "./tracker.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import type { Clock, Logger } from "../types.ts";
import type { Abortable } from "./abort.ts";
import { createClaimWrites, type EndSink } from "./claim_writes.ts";
import { type Claim, createHeartbeat } from "./heartbeat.ts";
import type { OutcomeWriter } from "./outcomes.ts";
import { leaseCap, type LeasePolicy, leaseUntil } from "./policy.ts";

export { leaseCap, type LeasePolicy, leaseUntil } from "./policy.ts";

/** A row the reaper recorded `abandoned` and this node re-claimed to run again. */
export interface Reclaimed {
  job: ResolvedJob;
  row: RunRecord;
  claim: HeldClaim;
}

/** One lease write through {@link Lease.move}: a new lease from `from`, and the row fields that change with it. */
export interface LeaseMove {
  /** The lease counts from here (this node's clock; later than now for a retry backoff). */
  from: number;
  /** The attempt's timeout: the fence never passes `from + timeoutMs`. */
  timeoutMs: number;
  /** The row moves to this attempt (a retry). */
  attempt?: number;
  startedAt?: number;
  error?: string;
}

/** The lease owner of one scheduler. */
export interface Lease {
  readonly policy: LeasePolicy;
  /** The stored lease end for an attempt of `job` starting at `from` (never earlier than the clock: `from` may be a late trigger's time). */
  until(from: number, job: ResolvedJob): number;
  /** Holds a claim whose row was just written with lease end `until`, and keeps it renewed until released. */
  hold(key: AttemptKey, until: number, kind: RunKind): HeldClaim;
  /** Marks a held claim's handler as started: its fence is capped at `startedAt + timeoutMs`; `controller` aborts it. */
  start(claim: HeldClaim, startedAt: number, timeoutMs: number, controller: Abortable): void;
  /** The handler settled (its controller is gone). */
  detach(claim: HeldClaim): void;
  /**
   * Compare-and-set of the held row: a new lease (and `change`'s fields). True when written;
   * false when the row is no longer this attempt's. Rejects on store failure.
   */
  move(claim: HeldClaim, change: LeaseMove): Promise<boolean>;
  /**
   * Records the final outcome (through the group-commit writer). Until the store answers
   * the claim stays renewed and the write is retried; true when recorded (the claim is
   * released then), false when the row was taken. Rejects only once the scheduler gives up.
   */
  end(claim: HeldClaim, patch: RunPatch & { status: RunRecord["status"] }): Promise<boolean>;
  /** {@link end} heard through `sink`, called once, never within this call. */
  endTo(claim: HeldClaim, patch: RunPatch & { status: RunRecord["status"] }, sink: EndSink): void;
  /**
   * Records every running row whose lease ended before `now` `abandoned` (only when the
   * snapshot shows one) and re-claims those `retryable` returns a job for. This node's own
   * rows with a run still in flight here are re-leased first, never reaped: a clock
   * stepped forward must not make a node re-run what it is running.
   */
  reap(snapshot: TickSnapshot, now: number, retryable: (row: RunRecord) => ResolvedJob | undefined): Promise<{
    reaped: RunRecord[];
    reclaimed: Reclaimed[];
    /** Set when a re-claim failed: the rest were not tried (the rows stay `abandoned`; a later tick may re-claim them). */
    error?: unknown;
  }>;
  /** Re-claims a finished attempt for attempt + 1 on this node; the held claim, or undefined. Rejects on store failure. */
  reclaim(job: ResolvedJob, slot: number, attempt: number, now: number, kind: RunKind): Promise<HeldClaim | undefined>;
  /**
   * Holds outcome writes back while the node starts a large minute (see `outcomes.ts`):
   * until the returned release is called, at most `HOLD_MS` per write.
   */
  holdOutcomes(): () => void;
  /** Outcome writes waiting out a retry try again now; resolves once each has tried (see `OutcomeWriter.retryNow`). */
  retryOutcomes(): Promise<void>;
  /** Ends held claims now (they were won but will not run), so any node's next tick reaps them. Never rejects. */
  release(claims: readonly HeldClaim[]): Promise<void>;
  /** One heartbeat now: fences checked first, then one renewal write. For tests and the timer. */
  beat(): Promise<void>;
  /** Stops renewing every claim held now (after `stop()` gave up on them), and returns them; their leases end on their own. */
  abandon(): HeldClaim[];
  /** A `cancelOther` slot superseded this run: abort its signal (reason `superseded`); its outcome is `cancelled`. */
  supersede(claim: HeldClaim): void;
}

/** Creates the lease owner; its heartbeat runs only while the tracker holds claims. */
export function createLease(deps: {
  store: Store;
  clock: Clock;
  node: string;
  policy: LeasePolicy;
  tracker: RunTracker;
  writer: OutcomeWriter;
  log: Logger;
}): Lease {
  const { store, clock, node, policy, tracker } = deps;
  const heart = createHeartbeat(deps);
  const writes = createClaimWrites({ ...deps, heart });
  tracker.onRelease(() => {
    if (tracker.size === 0) heart.rearm();
  });
  const until = (from: number, job: ResolvedJob): number => {
    const at = Math.max(from, clock.now());
    return leaseUntil(policy, at, leaseCap(at, job.timeoutMs));
  };

  const lease: Lease = {
    policy,
    until,
    hold: writes.hold,
    move: writes.move,
    start: writes.start,
    detach: writes.detach,
    end: writes.end,
    endTo: writes.endTo,
    release: writes.release,
    async reap(snapshot, now, retryable) {
      const expired = snapshot.running.some((row) => row.leaseUntil !== null && row.leaseUntil < now);
      if (!expired) return { reaped: [], reclaimed: [] };
      await writes.keepOwn(snapshot, now);
      const reaped = await store.reap(now);
      const reclaimed: Reclaimed[] = [];
      for (const row of reaped) {
        const job = retryable(row);
        if (job === undefined) continue;
        try {
          const claim = await lease.reclaim(job, row.slot, row.attempt, now, row.kind);
          if (claim !== undefined) reclaimed.push({ job, row, claim });
        } catch (error) {
          return { reaped, reclaimed, error };
        }
      }
      return { reaped, reclaimed };
    },
    async reclaim(job, slot, attempt, now, kind) {
      const stored = until(now, job);
      // The overlap check rides with the reclaim: a re-run must not start beside a live run of the job.
      const overlap = job.overlap === "allow" ? "allow" : "skip";
      const won = await store.reclaim({
        job: job.name,
        slot,
        attempt,
        node,
        now,
        leaseUntil: stored,
        overlap,
        maxRuns: job.maxRuns,
      });
      return won ? writes.hold({ job: job.name, slot, attempt: attempt + 1, node }, stored, kind) : undefined;
    },
    holdOutcomes: () => deps.writer.hold(),
    retryOutcomes: () => deps.writer.retryNow(),
    beat: heart.beat,
    supersede: heart.supersede,
    abandon() {
      const given = [...tracker.claims()].filter((claim) => !claim.lost);
      for (const claim of given) {
        (claim as Claim).givenUp = true;
        heart.lose(claim, "scheduler stopped");
      }
      heart.rearm();
      return given;
    },
  };
  return lease;
}
