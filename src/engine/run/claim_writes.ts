/**
 * The one writer of held claims: every store write that moves a held row's lease or ends
 * it, every bump of a claim's generation and every move of its lease end or fence is
 * here (the heartbeat's renewals aside, which only extend). Private to the lease.
 */
import type { AttemptKey, RunKind, RunPatch, RunRecord, RunUpdate, Store, TickSnapshot } from "../../store/types.ts";
import type { HeldClaim, RunTracker } from "./tracker.ts";
import type { Clock } from "../types.ts";
import type { Abortable } from "./abort.ts";
import type { Claim, Heartbeat } from "./heartbeat.ts";
import type { LeaseMove } from "./lease.ts";
import type { OutcomeWriter, PendingWrite } from "./outcomes.ts";
import { fenceOf, leaseCap, type LeasePolicy, leaseUntil } from "./policy.ts";

/** The writes of the lease (see `Lease` for each). */
export interface ClaimWrites {
  hold(key: AttemptKey, stored: number, kind: RunKind): HeldClaim;
  move(claim: HeldClaim, change: LeaseMove): Promise<boolean>;
  start(claim: HeldClaim, startedAt: number, timeoutMs: number, controller: Abortable): void;
  detach(claim: HeldClaim): void;
  end(claim: HeldClaim, patch: RunPatch & { status: RunRecord["status"] }): Promise<boolean>;
  endTo(claim: HeldClaim, patch: RunPatch & { status: RunRecord["status"] }, sink: EndSink): void;
  release(claims: readonly HeldClaim[]): Promise<void>;
  /**
   * Re-leases this node's rows that `store.reap(now)` would take while their run is still
   * in flight here (its clock jumped past their stored end). A row another node took
   * meanwhile fails the compare-and-set and is left alone.
   */
  keepOwn(snapshot: TickSnapshot, now: number): Promise<void>;
}

/** Hears how a held claim's outcome write ended (`Lease.endTo`). */
export interface EndSink {
  /** True when recorded (the claim is released then), false when the row was taken. */
  recorded(recorded: boolean): void;
  /** The store failed for good: the scheduler gave the claim up. */
  failed(error: unknown): void;
}

/** A held claim's outcome on its way to the store: the tracker hears of its end before `sink` does. */
class Ending implements PendingWrite {
  /** One kept for the life of the module, never sent, for the reason `Lazy.kept` is (abort.ts). */
  static readonly kept: Ending = new Ending(
    undefined as never,
    undefined as never,
    undefined as never,
    undefined as never,
    undefined as never,
  );
  constructor(
    readonly key: AttemptKey,
    readonly patch: RunPatch,
    private readonly claim: Claim,
    private readonly tracker: RunTracker,
    private readonly sink: EndSink,
  ) {}

  live(): boolean {
    return !this.claim.lost;
  }

  recorded(recorded: boolean): void {
    if (recorded) this.tracker.release(this.claim);
    this.tracker.writing(-1);
    this.sink.recorded(recorded);
  }

  failed(error: unknown): void {
    this.tracker.writing(-1);
    this.sink.failed(error);
  }
}

/** Creates the writer over the lease's parts. */
export function createClaimWrites(deps: {
  store: Store;
  clock: Clock;
  node: string;
  policy: LeasePolicy;
  tracker: RunTracker;
  writer: OutcomeWriter;
  heart: Heartbeat;
}): ClaimWrites {
  const { store, clock, node, policy, tracker, heart } = deps;
  const keyOf = (c: HeldClaim): AttemptKey => ({ job: c.job, slot: c.slot, attempt: c.attempt, node: c.node });
  /** Moves a claim's stored end (and its fence, unless lost) after a write landed. */
  const moved = (claim: Claim, stored: number): void => {
    claim.leaseUntil = stored;
    if (!claim.lost) claim.heldUntil = fenceOf(policy, stored);
  };

  /** The releases of this turn, written together once it ends. */
  let releasing: { writes: RunUpdate[]; done: Promise<void> } | undefined;
  /**
   * Ends the leases of `writes`: one `updateMany`; when it fails, each on its own. A row
   * still not written keeps its lease, which ends on its own (the row is then recorded
   * `abandoned` just the same). Never rejects.
   */
  const endLeases = async (writes: readonly RunUpdate[]): Promise<void> => {
    try {
      await store.updateMany(writes);
    } catch {
      for (const { key, patch } of writes) await store.update(key, patch).catch(() => false);
    }
  };

  const writes: ClaimWrites = {
    hold(key, stored, kind) {
      const claim: Claim = {
        kind,
        job: key.job,
        slot: key.slot,
        attempt: key.attempt,
        node: key.node,
        leaseUntil: stored,
        heldUntil: fenceOf(policy, stored),
        capUntil: Infinity,
        controller: undefined,
        lost: false,
        givenUp: false,
        superseded: false,
        settling: false,
        generation: 0,
      };
      tracker.add(claim);
      heart.track(claim);
      return claim;
    },
    async move(held, change) {
      const claim = held as Claim;
      const capUntil = leaseCap(change.from, change.timeoutMs);
      const stored = leaseUntil(policy, change.from, capUntil);
      const patch: RunPatch = { leaseUntil: stored };
      if (change.attempt !== undefined) patch.attempt = change.attempt;
      if (change.startedAt !== undefined) patch.startedAt = change.startedAt;
      if (change.error !== undefined) patch.error = change.error;
      claim.generation++;
      if (!(await store.update(keyOf(claim), patch))) return false;
      if (change.attempt !== undefined) claim.attempt = change.attempt;
      claim.capUntil = capUntil;
      moved(claim, stored);
      // O(1): only an earlier fence or renewal needs a timer moved (a later one finds nothing to do).
      heart.track(claim);
      return true;
    },
    start(held, startedAt, timeoutMs, controller) {
      const claim = held as Claim;
      claim.capUntil = leaseCap(startedAt, timeoutMs);
      claim.controller = controller;
    },
    detach(held) {
      (held as Claim).controller = undefined;
    },
    end(held, patch) {
      return new Promise<boolean>((recorded, failed) => writes.endTo(held, patch, { recorded, failed }));
    },
    endTo(held, patch, sink) {
      const claim = held as Claim;
      // The handler is done: nothing left to fence, so the lease is renewed uncapped until the outcome lands.
      claim.settling = true;
      claim.controller = undefined;
      claim.capUntil = Infinity;
      claim.generation++;
      // Uncapped, its renewal may fall due sooner; nothing is fenced sooner. O(1), not a
      // pass over every held claim: a node with a queued minute ends thousands in a row.
      heart.track(claim);
      // The handler is done: its run no longer counts against `concurrency` while the write waits.
      tracker.writing(1);
      // One object per write, heard by callback: a large minute has thousands of these
      // waiting on one group commit at once, and a chain of promises per run outlived a
      // few scavenges (each run's promises, reactions and closures: about 1.5 KB).
      deps.writer.send(new Ending(keyOf(claim), patch, claim, tracker, sink));
    },
    release(claims) {
      if (claims.length === 0) return Promise.resolve();
      const now = clock.now();
      // The releases of one turn go as one group commit (a transaction per 1 000 rows on
      // the SQL stores): a stop drops each queued run on its own, and a write per claim
      // made a stop with 5 000 claims queued take a second.
      let group = releasing;
      if (group === undefined) {
        const writes: RunUpdate[] = [];
        group = releasing = {
          writes,
          done: Promise.resolve().then(() => {
            releasing = undefined;
            return endLeases(writes);
          }),
        };
      }
      for (const held of claims) {
        (held as Claim).generation++;
        tracker.release(held);
        group.writes.push({ key: keyOf(held), patch: { leaseUntil: now } });
      }
      return group.done;
    },
    async keepOwn(snapshot, now) {
      for (const row of snapshot.running) {
        if (row.node !== node || row.leaseUntil === null || row.leaseUntil >= now) continue;
        const claim = tracker.get(row.job, row.slot) as Claim | undefined;
        if (claim === undefined || claim.attempt !== row.attempt) continue;
        // Lost claims keep their fence (their handler was aborted); the row only waits for their outcome.
        const cap = claim.settling || claim.lost ? Infinity : claim.capUntil;
        const stored = leaseUntil(policy, Math.max(now, clock.now()), cap);
        claim.generation++;
        if (await store.update(keyOf(claim), { leaseUntil: stored })) moved(claim, stored);
      }
      heart.rearm();
    },
  };
  return writes;
}
