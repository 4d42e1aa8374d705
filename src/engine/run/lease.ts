/**
 * The lease: how long a claim stays this node's without news from it. Claims get a
 * short lease that a per-node heartbeat renews (all held claims in ONE `store.renew`
 * write per beat) while handlers run, never past the attempt's start + timeout +
 * grace; reaping, re-claiming and releasing live here too.
 */
import type { AttemptKey, LeaseRenewal, RunRecord, Store, TickSnapshot } from "../../store/types.ts";
import { errorText } from "../text.ts";
import type { HeldClaim, RunTracker } from "./tracker.ts";
import { SUPERSEDED, supersededOf } from "./supersede.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import type { Clock, Logger, SchedulerEvent } from "../types.ts";

/** The lease settings, resolved. */
export interface LeasePolicy {
  /** Length of one lease. */
  leaseMs: number;
  /** Time between renewals. */
  heartbeatMs: number;
  /** How far past the timeout a lease may reach (outcome bookkeeping). */
  graceMs: number;
}

/** The latest a lease for an attempt started at `startedAt` may reach. */
export function leaseCap(policy: LeasePolicy, startedAt: number, timeoutMs: number): number {
  return startedAt + timeoutMs + policy.graceMs;
}

/** THE lease end: one lease from `now`, never past `capUntil`. */
export function leaseUntil(policy: LeasePolicy, now: number, capUntil: number): number {
  return Math.min(now + policy.leaseMs, capUntil);
}

/** A row the reaper recorded `abandoned` and this node re-claimed to run again. */
export interface Reclaimed {
  job: ResolvedJob;
  row: RunRecord;
  claim: HeldClaim;
}

/** The lease owner of one scheduler. */
export interface Lease {
  readonly policy: LeasePolicy;
  /** The lease end for an attempt of `job` starting at `now` (see {@link leaseUntil}). */
  until(now: number, job: ResolvedJob): number;
  /** Holds a claim and keeps it renewed until released. */
  hold(key: AttemptKey, until: number, capUntil?: number): HeldClaim;
  /**
   * Records every running row whose lease ended before `now` `abandoned` (only when the
   * snapshot shows one) and re-claims those of `retryable` jobs with retries left.
   */
  reap(snapshot: TickSnapshot, now: number, retryable: (row: RunRecord) => ResolvedJob | undefined): Promise<{
    reaped: RunRecord[];
    reclaimed: Reclaimed[];
    /** Set when a re-claim failed: the rest were not tried (the rows stay `abandoned`; a later tick may re-claim them). */
    error?: unknown;
  }>;
  /** Re-claims a finished attempt for attempt + 1 on this node; the held claim, or undefined. Rejects on store failure. */
  reclaim(job: ResolvedJob, slot: number, attempt: number, now: number): Promise<HeldClaim | undefined>;
  /** Ends held claims now (they were won but will not run), so any node's next tick reaps them. Never rejects. */
  release(claims: readonly HeldClaim[]): Promise<void>;
  /** One heartbeat now: lease ends checked first, then one renewal write. For tests and the timer. */
  beat(): Promise<void>;
  /** Stops renewing every claim held now (after `stop()` gave up on them); their leases end on their own. */
  abandon(): void;
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
  emit: (event: SchedulerEvent) => void;
  log: Logger;
}): Lease {
  const { store, clock, node, policy, tracker, log } = deps;
  let beatHandle: unknown;
  let beatAt = Infinity;
  let watchHandle: unknown;
  let watchAt = Infinity;

  const lose = (claim: HeldClaim, why: string): void => {
    if (claim.lost) return;
    claim.lost = true;
    claim.controller?.abort(new DOMException(why, "AbortError"));
  };
  // A paused node wakes with every timer overdue: lease ends are checked before anything else.
  const expire = (now: number): void => {
    for (const claim of tracker.claims()) {
      if (!claim.lost && claim.leaseUntil < now) lose(claim, `lease ended at ${new Date(claim.leaseUntil).toISOString()} before the run finished`);
    }
  };
  // A claim's renewal is due one heartbeat after its lease was last set to a full lease;
  // never, once it reached its cap.
  const dueOf = (claim: HeldClaim): number =>
    claim.leaseUntil >= claim.capUntil ? Infinity : claim.leaseUntil - policy.leaseMs + policy.heartbeatMs;
  const setWatch = (at: number): void => {
    if (watchHandle !== undefined) clock.clearTimeout(watchHandle);
    watchHandle = undefined;
    watchAt = at;
    if (at === Infinity) return;
    // Fires just after the earliest lease end, on this node's clock.
    watchHandle = clock.setTimeout(() => {
      watchHandle = undefined;
      watchAt = Infinity;
      expire(clock.now());
      rearm();
    }, at + 1 - clock.now());
  };
  const setBeat = (at: number): void => {
    if (beatHandle !== undefined) clock.clearTimeout(beatHandle);
    beatHandle = undefined;
    beatAt = at;
    if (at === Infinity) return;
    beatHandle = clock.setTimeout(() => {
      beatHandle = undefined;
      beatAt = Infinity;
      void beat().finally(() => rearm(clock.now() + policy.heartbeatMs));
    }, Math.max(0, at - clock.now()));
  };
  /** Both timers from every held claim (after a beat, a watch, a release); no beat before `notBefore`. */
  const rearm = (notBefore = -Infinity): void => {
    let watch = Infinity;
    let due = Infinity;
    for (const claim of tracker.claims()) {
      if (claim.lost) continue;
      if (claim.leaseUntil < watch) watch = claim.leaseUntil;
      if (dueOf(claim) < due) due = dueOf(claim);
    }
    // After a beat (even a failed one) the next waits a heartbeat: a down store is not hammered.
    if (due !== Infinity) due = Math.max(due, notBefore);
    if (watch !== watchAt) setWatch(watch);
    if (due !== beatAt) setBeat(due);
  };
  tracker.onRelease(() => {
    if (tracker.size === 0) rearm();
  });

  const beat = async (): Promise<void> => {
    const now = clock.now();
    expire(now);
    const claims: HeldClaim[] = [];
    const generations: number[] = [];
    const items: LeaseRenewal[] = [];
    for (const claim of tracker.claims()) {
      // Claims whose lease runs longer than one lease (a retry backoff) wait for their turn.
      if (claim.lost || claim.leaseUntil - now > policy.leaseMs) continue;
      const until = leaseUntil(policy, now, claim.capUntil);
      if (until <= claim.leaseUntil) continue;
      claims.push(claim);
      generations.push(claim.generation);
      items.push({ job: claim.job, slot: claim.slot, attempt: claim.attempt, node: claim.node, leaseUntil: until });
    }
    if (items.length === 0) return;
    let results: boolean[];
    try {
      results = await store.renew(items, now);
    } catch (e) {
      // Leases stand until they end; the watch aborts the runs then.
      log.warn(`renewing ${items.length} leases failed; retrying next heartbeat`, { error: errorText(e) });
      return;
    }
    const refused: HeldClaim[] = [];
    results.forEach((renewed, i) => {
      const claim = claims[i]!;
      // The runner wrote this lease meanwhile (a retry, an outcome): its write decides.
      if (claim.generation !== generations[i] || tracker.get(claim.job, claim.slot) !== claim) return;
      if (renewed) claim.leaseUntil = Math.max(claim.leaseUntil, items[i]!.leaseUntil);
      else refused.push(claim);
    });
    // A refusal is a lost lease, or a cancelOther slot that superseded the run: the row says which.
    const superseded = await supersededOf(store, refused);
    for (const claim of refused) {
      if (superseded.has(claim)) supersede(claim);
      else lose(claim, "lease lost: the row was reaped or taken by another node");
    }
  };

  const supersede = (claim: HeldClaim): void => {
    if (claim.lost) return;
    claim.superseded = true;
    lose(claim, SUPERSEDED);
  };

  const hold = (key: AttemptKey, until: number, capUntil?: number): HeldClaim => {
    const claim = tracker.hold(key, until, capUntil);
    // O(1) per claim: a tick may hold thousands.
    if (until < watchAt) setWatch(until);
    if (dueOf(claim) < beatAt) setBeat(dueOf(claim));
    return claim;
  };

  return {
    policy,
    until: (now, job) => leaseUntil(policy, now, leaseCap(policy, now, job.timeoutMs)),
    hold,
    async reap(snapshot, now, retryable) {
      const expired = snapshot.running.some((row) => row.leaseUntil !== null && row.leaseUntil < now);
      if (!expired) return { reaped: [], reclaimed: [] };
      const reaped = await store.reap(now);
      const reclaimed: Reclaimed[] = [];
      for (const row of reaped) {
        const job = retryable(row);
        if (job === undefined) continue;
        try {
          const claim = await this.reclaim(job, row.slot, row.attempt, now);
          if (claim !== undefined) reclaimed.push({ job, row, claim });
        } catch (error) {
          return { reaped, reclaimed, error };
        }
      }
      return { reaped, reclaimed };
    },
    async reclaim(job, slot, attempt, now) {
      // Leases count from the clock: `now` may be a late trigger's scheduled time.
      const from = Math.max(now, clock.now());
      const until = this.until(from, job);
      // The overlap check rides with the reclaim: a re-run must not start beside a live run of the job.
      const overlap = job.overlap === "allow" ? "allow" : "skip";
      const won = await store.reclaim({ job: job.name, slot, attempt, node, now, leaseUntil: until, overlap });
      return won ? hold({ job: job.name, slot, attempt: attempt + 1, node }, until) : undefined;
    },
    async release(claims) {
      const now = clock.now();
      for (const claim of claims) {
        claim.generation++;
        tracker.release(claim);
        const key = { job: claim.job, slot: claim.slot, attempt: claim.attempt, node: claim.node };
        await store.update(key, { leaseUntil: now }).catch(() => false);
      }
    },
    beat,
    abandon() {
      for (const claim of tracker.claims()) lose(claim, "scheduler stopped");
      rearm();
    },
    supersede,
  };
}
