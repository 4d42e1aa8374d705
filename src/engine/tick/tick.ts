/**
 * One tick (docs/architecture.md, "The tick"), top to bottom: snapshot → settle claims of unknown outcome
 * → reap ended leases → a pure `planTick()` → one claim batch → run → record. A node
 * short of capacity claims the rest of the plan in later rounds (`more()`), from the
 * same plan: one snapshot per tick, and a round costs what it claims.
 */
import { own } from "../../core/own.ts";
import type { ClaimRequest, Outcome, RunRecord, TickSnapshot } from "../../store/types.ts";
import { errorText, jobLabel } from "../text.ts";
import { claimOrder, type DueJob, planTick, slotsToRun, takeRound, unclaimed } from "./plan_tick.ts";
import { limitRuns } from "./max_runs.ts";
import { createPresence } from "./presence.ts";
import { sleep } from "../run/sleep.ts";
import type { Reconciler } from "./reconcile.ts";
import { cancel, type RunnerDeps, runSlot } from "../run/runner.ts";
import { buffers, type Promoter, startable } from "../run/overlap.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import type { HeldClaim } from "../run/tracker.ts";
import type { JobTickReport, TickReport } from "../types.ts";

const HOUR = 3_600_000;

/** A tick whose claims are done: `report` fills in as runs settle; `settled` resolves then. */
export interface StartedTick {
  report: TickReport;
  settled: Promise<TickReport>;
}

/** What a tick uses: the runner's parts plus the node, its capacity and history retention. */
export interface TickDeps extends RunnerDeps {
  node: string;
  reconciler: Reconciler;
  promoter: Promoter;
  concurrency: number;
  retentionMs: number;
}

/** The tick half of a scheduler: `start(now)` runs one tick. */
export interface Ticker {
  start(now: number): Promise<StartedTick>;
  /**
   * The next round of the last tick's plan, as capacity allows: no snapshot, no
   * re-plan. Its report has no jobs (and no `deferred`) when nothing is left.
   */
  more(): Promise<StartedTick>;
  /** The `now` of the last tick started. */
  readonly lastTick: number | undefined;
}

/** How many jobs of other nodes' shares one read checks before this node helps with them. */
const HELP_WINDOW = 1_000;
/** How long after the slot a node waits before helping with other nodes' shares (so a busy node still gets its share). */
export const HELP_DELAY_MS = 2_000;

/** A tick's plan while slots of it wait for capacity. */
interface Pending {
  now: number;
  batch: string;
  due: DueJob[];
  /** The next job to take. */
  next: number;
  /** Slots to run not taken yet. */
  deferred: number;
  /** Where the other nodes' shares begin, and the end of the part of them read so far. */
  helpFrom: number;
  checkedUntil: number;
  /** Jobs of the part read so far that no node has claimed. */
  open: Set<DueJob>;
}

const emptyJobReport = (): JobTickReport => ({
  planned: [],
  won: [],
  lost: [],
  run: [],
  skipped: [],
  missed: [],
  abandoned: [],
  buffered: [],
  outcomes: {},
});

/** Creates the ticker. */
export function createTicker(deps: TickDeps): Ticker {
  let lastTick: number | undefined;
  let lastPrune: number | undefined;
  // The last tick's plan while slots of it wait for capacity; a new tick replaces it.
  let pending: Pending | undefined;
  const { store, clock, node, registry, lease, tracker, emit, log } = deps;
  const presence = createPresence({ store, node, log });

  /**
   * Plans, claims and starts the runs of one tick at `now`. Resolves once the claims are
   * made (timer mode re-arms then); `settled` resolves when every run this tick started
   * has its outcome recorded. Never rejects: a store failure gives `ok: false`, a
   * `store-error` event, and no run.
   */
  const start = async (now: number): Promise<StartedTick> => {
    const report: TickReport = { now, node, ok: true, jobs: Object.create(null) };
    const jobReport = (name: string): JobTickReport => (report.jobs[name] ??= emptyJobReport());
    // Re-runs (reclaimed, or claims of unknown outcome settled) start after the claim
    // batch, as fresh slots do; they are claimed, so they run even when the batch fails.
    const again: { job: ResolvedJob; claim: HeldClaim }[] = [];
    const startAgain = (): Promise<unknown>[] =>
      again.map(({ job, claim }) => {
        jobReport(job.name).run.push(claim.slot);
        return tracker.track(
          runSlot(deps, job, claim).then((o) => record(jobReport(job.name), claim.slot, o)),
          job.name,
        )
          .then(() => drain(job, jobReport(job.name)));
      });
    const failed = (e: unknown): StartedTick => {
      report.ok = false;
      report.error = errorText(e);
      return finish(report, startAgain());
    };
    const first = lastTick === undefined;
    lastTick = now;
    // A new tick plans everything due afresh: what an older plan left unclaimed is in it.
    pending = undefined;

    let snapshot: TickSnapshot;
    try {
      snapshot = await store.snapshot(registry.names(), now);
      registry.sync(snapshot);
      const settled = await deps.reconciler.settle(snapshot, now);
      again.push(...settled.adopted);
      if (settled.error !== undefined) throw settled.error;
      const { reaped, reclaimed, error } = await lease.reap(snapshot, now, (row) => retryable(snapshot, row));
      for (const row of reaped) {
        if (row.status === "cancelled") {
          jobReport(row.job).outcomes[row.slot] = "cancelled";
          emit({
            type: "cancelled",
            job: row.job,
            slot: row.slot,
            attempt: row.attempt,
            node: row.node,
            reason: "superseded; the run did not settle before its lease ended",
          });
          continue;
        }
        const willRetry = reclaimed.some((r) => r.row === row);
        registry.counters(row.job).abandoned++;
        jobReport(row.job).abandoned.push(row.slot);
        emit({ type: "abandoned", job: row.job, slot: row.slot, attempt: row.attempt, node: row.node, willRetry });
      }
      again.push(...reclaimed);
      if (error !== undefined) throw error;
    } catch (e) {
      return failed(e);
    }

    const plan = planTick(registry.all(), snapshot, { now });
    try {
      await limitRuns(plan, snapshot, store);
    } catch (e) {
      return failed(e);
    }
    for (const w of plan.warnings) {
      if (w.error !== undefined) {
        log.error(`${jobLabel(w.job)}: its schedule failed; nothing planned`, { error: w.error });
      } else log.warn(`${jobLabel(w.job)}: ${w.dropped} slots too far behind to plan were not recorded`, { now });
    }
    // Only a minute larger than this node's free capacity needs to know who else ticks it;
    // the node's first tick notes it too, so that its first large minute finds the others.
    const large = plan.runnable.length > deps.concurrency - tracker.running;
    const nodes = large || first ? await presence.live(now) : [];
    // A minute that fits is claimed whole, in job order; only a larger one is spread.
    const { due, helpFrom } = large
      ? claimOrder(plan, snapshot, now, { node, nodes, offset: Math.floor(Math.random() * 0x7fffffff) })
      : { due: plan.idle.concat(plan.runnable), helpFrom: Infinity };
    pending = {
      now,
      batch: crypto.randomUUID(),
      due,
      next: 0,
      deferred: slotsToRun(due, 0),
      helpFrom,
      checkedUntil: helpFrom,
      open: new Set(),
    };
    return round(report, jobReport, failed, startAgain, now, snapshot);
  };

  /** Claims and starts the next round of the pending plan into `report`. */
  const round = async (
    report: TickReport,
    jobReport: (name: string) => JobTickReport,
    failed: (e: unknown) => StartedTick,
    again: () => Promise<unknown>[],
    now: number,
    snapshot?: TickSnapshot,
  ): Promise<StartedTick> => {
    const p = pending;
    if (p === undefined || p.next >= p.due.length) {
      const runs = again();
      if (snapshot !== undefined) startOrphans(snapshot, now, jobReport, new Map(), runs);
      return finish(report, runs);
    }
    const capacity = Math.max(0, deps.concurrency - tracker.running);
    let taken;
    for (;;) {
      // Each owner gets HELP_DELAY_MS from the slot to start its share; past that, a share
      // not yet taken is treated as its owner's who is slow or gone.
      if (p.next >= p.helpFrom && p.next < p.due.length && capacity > 0 && clock.now() < p.now + HELP_DELAY_MS) {
        await sleep({ clock, tracker }, p.now + HELP_DELAY_MS - clock.now());
        if (tracker.stopping || pending !== p) return finish(report, again());
      }
      // Other nodes' shares: one read-only look first, so that helping costs no claim for
      // the jobs their owners already took (the common case); only the rest is claimed.
      if (p.next >= p.checkedUntil && p.next < p.due.length && capacity > 0) {
        const window = p.due.slice(p.next, p.next + HELP_WINDOW);
        try {
          p.open = unclaimed(window, (await store.read(window.map((d) => d.job.name))).watermarks);
        } catch (e) {
          return failed(e);
        }
        p.checkedUntil = p.next + window.length;
      }
      const helping = p.next >= p.helpFrom;
      // Leases count from the clock: `now` may be a late trigger's scheduled time.
      const leaseFrom = Math.max(now, clock.now());
      taken = takeRound(p.due, p.next, {
        now,
        node,
        batch: p.batch,
        capacity,
        until: helping ? p.checkedUntil : p.helpFrom,
        leaseUntil: (job) => lease.until(leaseFrom, job),
        // A later round skips a job removed or redefined since the plan (the next tick plans
        // it afresh), and, when helping, a job another node has claimed.
        current: (job) => registry.get(job.name) === job,
        ...(helping ? { open: p.open } : {}),
      });
      p.next = taken.next;
      p.deferred -= taken.passed;
      if (taken.requests.length > 0 || p.next >= p.due.length || capacity === 0) break;
    }
    if (p.next >= p.due.length && pending === p) pending = undefined;
    for (const { job, planned } of taken.jobs) jobReport(job.name).planned.push(...planned);
    if (p.deferred > 0) report.deferred = p.deferred;

    const won = await claimAll(taken.requests, jobReport);
    if (won instanceof Error) return failed(won.cause);
    const runs = again();
    for (const [name, claims] of won) {
      const job = registry.get(name);
      if (job !== undefined) {
        runs.push(
          tracker.track(runInOrder(job, claims, jobReport(name)), name).then(() => drain(job, jobReport(name))),
        );
      }
    }
    if (snapshot !== undefined) startOrphans(snapshot, now, jobReport, won, runs);
    return finish(report, runs);
  };

  /**
   * Buffered slots with no live run anywhere (their run settled on a node that died or
   * stopped, or a backfill's node went away): this node starts them, on a tick's first
   * round (the one with a fresh snapshot).
   */
  const startOrphans = (
    snapshot: TickSnapshot,
    now: number,
    jobReport: (name: string) => JobTickReport,
    won: ReadonlyMap<string, unknown>,
    runs: Promise<unknown>[],
  ): void => {
    for (const name of startable(snapshot, now)) {
      // A node at its capacity leaves them to another node (or its next tick).
      if (tracker.running >= deps.concurrency) break;
      const job = registry.get(name);
      if (job === undefined || !job.enabled || own(snapshot.jobs, name)?.paused === true || won.has(name)) continue;
      runs.push(drain(job, jobReport(name), true));
    }
  };

  const more = (): Promise<StartedTick> => {
    const at = pending?.now ?? lastTick ?? clock.now();
    const report: TickReport = { now: at, node, ok: true, jobs: Object.create(null) };
    const jobReport = (name: string): JobTickReport => (report.jobs[name] ??= emptyJobReport());
    const failed = (e: unknown): StartedTick => {
      report.ok = false;
      report.error = errorText(e);
      return finish(report, []);
    };
    // Claims of later rounds are made now: their overlap check and start time are the clock's.
    return round(report, jobReport, failed, () => [], Math.max(at, clock.now()));
  };

  /** The claim batch; won claims are held (renewed) from here on, grouped by job. */
  const claimAll = async (
    requests: ClaimRequest[],
    jobReport: (name: string) => JobTickReport,
  ): Promise<Map<string, HeldClaim[]> | Error> => {
    const won = new Map<string, HeldClaim[]>();
    if (requests.length === 0) return won;
    let results;
    try {
      results = await store.claim(requests);
    } catch (e) {
      // It may still commit: the next tick settles whatever of it landed.
      deps.reconciler.unknown(requests);
      return new Error("claim failed", { cause: e });
    }
    const superseding = new Set<string>();
    results.forEach(({ job, slot, outcome }, i) => {
      // The store refused it: the job's maxRuns is reached (no row; the job is complete).
      if (outcome === "limit") return;
      const r = jobReport(job);
      const counters = registry.counters(job);
      if (outcome === "won") {
        r.won.push(slot);
        const claim = lease.hold({ job, slot, attempt: 1, node }, requests[i]!.leaseUntil);
        const claims = won.get(job);
        if (claims === undefined) won.set(job, [claim]);
        else claims.push(claim);
        emit({ type: "claimed", job, slot });
      } else if (outcome === "buffered") {
        r.buffered.push(slot);
        counters.buffered++;
        emit({ type: "buffered", job, slot });
        if (requests[i]!.overlap === "cancelOther") superseding.add(job);
      } else if (outcome === "lost") {
        r.lost.push(slot);
        counters.lost++;
        emit({ type: "lost", job, slot });
      } else {
        r[outcome].push(slot);
        counters[outcome]++;
        r.outcomes[slot] = outcome;
        emit({ type: outcome, job, slot });
      }
    });
    // The store marked this job's live runs cancelling; the ones held here stop now
    // rather than at their next renewal.
    for (const claim of [...tracker.claims()]) {
      if (superseding.has(claim.job) && !won.get(claim.job)?.includes(claim)) lease.supersede(claim);
    }
    return won;
  };

  const retryable = (snapshot: TickSnapshot, row: RunRecord): ResolvedJob | undefined => {
    if (row.status === "cancelled") return undefined;
    const job = registry.get(row.job);
    const paused = own(snapshot.jobs, row.job)?.paused === true;
    return job !== undefined && job.enabled && !paused && row.attempt < job.retries.attempts ? job : undefined;
  };

  /** Runs one job's won slots oldest first; each later one re-leased from when it starts. */
  const runInOrder = async (job: ResolvedJob, claims: HeldClaim[], r: JobTickReport): Promise<void> => {
    for (const [i, queued] of claims.entries()) {
      if (tracker.stopping) return lease.release(claims.slice(i));
      if (queued.superseded) {
        record(r, queued.slot, await cancel(deps, queued, clock.now()));
        continue;
      }
      const claim = i === 0 ? queued : await startQueued(job, queued);
      if (claim === undefined) continue;
      r.run.push(claim.slot);
      record(r, claim.slot, await runSlot(deps, job, claim));
    }
  };

  /**
   * Starts a slot that waited in this node's queue: its lease from now. When the row was
   * reaped meanwhile (this node stalled past the lease) it is re-claimed when the job
   * has retries left. Undefined when the slot is no longer this node's to run.
   */
  const startQueued = async (job: ResolvedJob, claim: HeldClaim): Promise<HeldClaim | undefined> => {
    const now = clock.now();
    try {
      if (await lease.move(claim, { from: now, timeoutMs: job.timeoutMs, startedAt: now })) return claim;
      tracker.release(claim);
      if (job.retries.attempts <= 1) return undefined;
      return await lease.reclaim(job, claim.slot, claim.attempt, now);
    } catch {
      tracker.release(claim);
      return undefined;
    }
  };

  /** After a job's runs here: its buffered slots, when its policy buffers (or `always`: the tick saw some waiting). */
  const drain = (job: ResolvedJob, r: JobTickReport, always = false): Promise<void> => {
    if (!always && !buffers(job) && !deps.promoter.wants(job.name)) return Promise.resolve();
    return deps.promoter.drain(job, (slot, outcome) => {
      r.run.push(slot);
      record(r, slot, outcome);
    });
  };

  /** Wraps up: `settled` waits for the runs, then emits `tick` and prunes (at most hourly). */
  const finish = (report: TickReport, runs: Promise<unknown>[]): StartedTick => {
    const settled = Promise.all(runs).then(async () => {
      if (report.ok) await prune(report.now);
      emit({ type: "tick", now: report.now, report });
      return report;
    });
    return { report, settled };
  };

  const prune = async (now: number): Promise<void> => {
    if (lastPrune !== undefined && now - lastPrune < HOUR) return;
    lastPrune = now;
    const longestWindow = Math.max(0, ...registry.all().map((j) => j.catchUp.windowMs));
    try {
      let removed = await store.prune(now - Math.max(deps.retentionMs, longestWindow));
      for (const job of registry.all()) {
        if (job.maxRows !== undefined) removed += await store.pruneRows(job.name, job.maxRows);
      }
      if (removed > 0) log.debug(`pruned ${removed} finished runs`);
    } catch (e) {
      log.warn("pruning run history failed; will retry in an hour", { error: errorText(e) });
    }
  };

  return {
    start,
    more,
    get lastTick() {
      return lastTick;
    },
  };
}

function record(r: JobTickReport, slot: number, outcome: Outcome | undefined): void {
  if (outcome !== undefined) r.outcomes[slot] = outcome;
}
