/**
 * The heartbeat behind the lease: one renewal write per beat for every claim the node
 * holds (per `RENEW_PART` claims), and a watch that fences a run (aborts its signal, `held` false) the moment its
 * fence passes on this node's clock. Private to the lease.
 */
import type { LeaseRenewal, Store } from "../../store/types.ts";
import { errorText } from "../text.ts";
import type { HeldClaim, RunTracker } from "./tracker.ts";
import type { Clock, Logger } from "../types.ts";
import { fenceOf, type LeasePolicy, leaseUntil } from "./policy.ts";
import { SUPERSEDED, supersededOf } from "./supersede.ts";
import { nextTurn } from "../tick/turn.ts";

/** A held claim as its one writer sees it. */
export type Claim = { -readonly [K in keyof HeldClaim]: HeldClaim[K] };

/** The heartbeat's handle for the lease. */
export interface Heartbeat {
  /** One beat now: fences checked first, then the renewal writes. */
  beat(): Promise<void>;
  /** Re-arms both timers from every held claim; no beat before `notBefore`. */
  rearm(notBefore?: number): void;
  /** Arms the timers for a claim just held, in O(1) (a tick may hold thousands). */
  track(claim: HeldClaim): void;
  /** Marks `claim` lost and aborts its handler (once). */
  lose(claim: HeldClaim, why: string): void;
  /** A `cancelOther` slot superseded `claim`: lost, with reason `superseded` (its outcome is `cancelled`). */
  supersede(claim: HeldClaim): void;
}

/** Creates the heartbeat of one lease. */
export function createHeartbeat(deps: {
  store: Store;
  clock: Clock;
  policy: LeasePolicy;
  tracker: RunTracker;
  log: Logger;
}): Heartbeat {
  const { clock, policy, tracker } = deps;
  let beatHandle: unknown;
  let beatAt = Infinity;
  let watchHandle: unknown;
  let watchAt = Infinity;

  const lose = (held: HeldClaim, why: string): void => {
    const claim = held as Claim;
    if (claim.lost) return;
    claim.lost = true;
    claim.controller?.abort(new DOMException(why, "AbortError"));
  };
  const supersede = (held: HeldClaim): void => {
    const claim = held as Claim;
    if (claim.lost) return;
    claim.superseded = true;
    lose(claim, SUPERSEDED);
  };
  /**
   * Whether the watch fences `claim` when its fence passes. Not once the fence reached its
   * cap (the attempt's start + timeout + 1 ms): that fence is the attempt's own timeout,
   * whose timer, a millisecond sooner, aborts the handler and records `timeout`, and may
   * retry it. Fenced here instead, whenever this timer ran first (timers due together, an
   * event loop late) or while the retry's lease write was in flight, the run was marked
   * lost: an abort-aware handler was recorded `error` ("lease ended"), and a retry was
   * given up until another node reaped the row. A clock stepped past the cap does not time
   * the run out early (the timeout's timer counts elapsed time; `held` reads false from the
   * fence on): timed out there with retries left, a second attempt would start beside a
   * handler that ignores its signal (`clock_step_test.ts`).
   */
  const fenced = (claim: HeldClaim): boolean => !claim.lost && !claim.settling && claim.heldUntil < claim.capUntil;
  // A paused node wakes with every timer overdue: fences are checked before anything else.
  const expire = (now: number): void => {
    for (const claim of tracker.claims()) {
      if (fenced(claim) && claim.heldUntil <= now) {
        lose(
          claim,
          `lease ended at ${new Date(claim.heldUntil).toISOString()} (this node's fence) before the run finished`,
        );
      }
    }
  };
  // A renewal is due one heartbeat after the fence was last set a full lease ahead;
  // never, once it reached its cap.
  const dueOf = (claim: HeldClaim): number =>
    claim.heldUntil >= claim.capUntil ? Infinity : claim.heldUntil - policy.leaseMs + policy.heartbeatMs;
  const setWatch = (at: number): void => {
    if (watchHandle !== undefined) clock.clearTimeout(watchHandle);
    watchHandle = undefined;
    watchAt = at;
    if (at === Infinity) return;
    watchHandle = clock.setTimeout(() => {
      watchHandle = undefined;
      watchAt = Infinity;
      expire(clock.now());
      rearm();
    }, Math.max(0, at - clock.now()));
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
  const rearm = (notBefore = -Infinity): void => {
    let watch = Infinity;
    let due = Infinity;
    for (const claim of tracker.claims()) {
      if (claim.lost) continue;
      if (fenced(claim) && claim.heldUntil < watch) watch = claim.heldUntil;
      if (dueOf(claim) < due) due = dueOf(claim);
    }
    // After a beat (even a failed one) the next waits a heartbeat: a down store is not hammered.
    if (due !== Infinity) due = Math.max(due, notBefore);
    if (watch !== watchAt) setWatch(watch);
    if (due !== beatAt) setBeat(due);
  };

  const beat = async (): Promise<void> => {
    const now = clock.now();
    expire(now);
    await renewAll(deps, now, lose, supersede);
  };

  return {
    beat,
    rearm,
    lose,
    supersede,
    track(claim) {
      if (fenced(claim) && claim.heldUntil < watchAt) setWatch(claim.heldUntil);
      if (dueOf(claim) < beatAt) setBeat(dueOf(claim));
    },
  };
}

/**
 * Renewals per store write. A node that won a large minute holds every queued claim
 * (100 000 at 100 000 jobs with concurrency 20 000): one write of them all held the event
 * loop for 2–3 s on an embedded libSQL file, whose driver works synchronously.
 */
export const RENEW_PART = 2_000;

/**
 * Renews every held claim due one (not those in a retry backoff wait), in writes of at
 * most `RENEW_PART` with a turn of the event loop between them; each write takes the
 * clock again, so a later part neither renews from a stale instant nor sets a fence
 * from it. A refused renewal loses its claim; a failed write ends the beat (the next
 * retries).
 */
async function renewAll(
  deps: { store: Store; clock: Clock; policy: LeasePolicy; tracker: RunTracker; log: Logger },
  now: number,
  lose: (claim: HeldClaim, why: string) => void,
  supersede: (claim: HeldClaim) => void,
): Promise<void> {
  const { clock, policy } = deps;
  // Claims whose lease runs longer than one lease (a retry backoff) wait for their turn.
  const due = [...deps.tracker.claims()].filter((held) => !held.lost && held.heldUntil - now <= policy.leaseMs);
  for (let at = 0; at < due.length; at += RENEW_PART) {
    if (at > 0) await nextTurn();
    const sent = at === 0 ? now : clock.now();
    if (!await renewPart(deps, due.slice(at, at + RENEW_PART) as Claim[], sent, lose, supersede)) return;
  }
}

/** One renewal write for `claims` sent at `now`; false when the write failed. */
async function renewPart(
  deps: { store: Store; policy: LeasePolicy; tracker: RunTracker; log: Logger },
  part: readonly Claim[],
  now: number,
  lose: (claim: HeldClaim, why: string) => void,
  supersede: (claim: HeldClaim) => void,
): Promise<boolean> {
  const { store, policy, tracker, log } = deps;
  const claims: Claim[] = [];
  const generations: number[] = [];
  const items: LeaseRenewal[] = [];
  for (const claim of part) {
    // A fence that passed during the earlier parts is the watch's to act on, not renewed
    // (the beat's first part comes right after its own check of the fences).
    if (claim.lost || (!claim.settling && claim.heldUntil <= now)) continue;
    const until = leaseUntil(policy, now, claim.capUntil);
    if (until <= claim.leaseUntil) continue;
    claims.push(claim);
    generations.push(claim.generation);
    items.push({ job: claim.job, slot: claim.slot, attempt: claim.attempt, node: claim.node, leaseUntil: until });
  }
  if (items.length === 0) return true;
  let results: boolean[];
  try {
    results = await store.renew(items, now);
  } catch (e) {
    // The fences stand; the watch aborts the runs when they pass.
    log.warn(`renewing ${items.length} leases failed; retrying next heartbeat`, { error: errorText(e) });
    return false;
  }
  const refused: Claim[] = [];
  results.forEach((renewed, i) => {
    const claim = claims[i]!;
    // A lease write meanwhile (a retry, an outcome) decides instead.
    if (claim.generation !== generations[i] || tracker.get(claim.job, claim.slot) !== claim) return;
    if (!renewed) return void refused.push(claim);
    // The fence counts from when the renewal was sent, not answered: the store's copy ends a grace later.
    if (items[i]!.leaseUntil > claim.leaseUntil) {
      claim.leaseUntil = items[i]!.leaseUntil;
      claim.heldUntil = Math.max(claim.heldUntil, fenceOf(policy, claim.leaseUntil));
    }
  });
  // A refusal is a lost lease, or a cancelOther slot that superseded the run: the row says which.
  if (refused.length === 0) return true;
  const superseded = await supersededOf(store, refused);
  for (const claim of refused) {
    if (superseded.has(claim)) supersede(claim);
    else lose(claim, "lease lost: the row was reaped or taken by another node");
  }
  return true;
}
