/**
 * One tick (docs/architecture.md, "The tick"), top to bottom: snapshot → settle claims of unknown outcome
 * → reap ended leases → a pure `planTick()` → one claim batch → run → record.
 */
import { own } from "../../core/own.ts";
import type { ClaimRequest, Outcome, RunRecord, TickSnapshot } from "../../store/types.ts";
import { errorText, jobLabel } from "../text.ts";
import { planTick } from "./plan_tick.ts";
import { limitRuns } from "./max_runs.ts";
import type { Reconciler } from "./reconcile.ts";
import { cancel, runSlot, type RunnerDeps } from "../run/runner.ts";
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
  /** The `now` of the last tick started. */
  readonly lastTick: number | undefined;
}

const emptyJobReport = (): JobTickReport => ({
  planned: [], won: [], lost: [], run: [], skipped: [], missed: [], abandoned: [], buffered: [], outcomes: {},
});

/** Creates the ticker. */
export function createTicker(deps: TickDeps): Ticker {
  let lastTick: number | undefined;
  let lastPrune: number | undefined;
  const { store, clock, node, registry, lease, tracker, emit, log } = deps;

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
        return tracker.track(runSlot(deps, job, claim).then((o) => record(jobReport(job.name), claim.slot, o)), job.name)
          .then(() => drain(job, jobReport(job.name)));
      });
    const failed = (e: unknown): StartedTick => {
      report.ok = false;
      report.error = errorText(e);
      return finish(report, startAgain());
    };
    lastTick = now;

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
          emit({ type: "cancelled", job: row.job, slot: row.slot, attempt: row.attempt, node: row.node, reason: "superseded; the run did not settle before its lease ended" });
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

    // Leases count from the clock: `now` may be a late trigger's scheduled time.
    const leaseFrom = Math.max(now, clock.now());
    const plan = planTick(registry.all(), snapshot, {
      now,
      node,
      batch: crypto.randomUUID(),
      leaseUntil: (job) => lease.until(leaseFrom, job),
      capacity: Math.max(0, deps.concurrency - tracker.running),
      offset: Math.floor(Math.random() * 0x7fffffff),
    });
    try {
      await limitRuns(plan, snapshot, store);
    } catch (e) {
      return failed(e);
    }
    for (const w of plan.warnings) {
      if (w.error !== undefined) log.error(`${jobLabel(w.job)}: its schedule failed; nothing planned`, { error: w.error });
      else log.warn(`${jobLabel(w.job)}: ${w.dropped} slots too far behind to plan were not recorded`, { now });
    }
    for (const { job, planned } of plan.jobs) jobReport(job.name).planned.push(...planned);
    if (plan.deferred > 0) report.deferred = plan.deferred;

    const won = await claimAll(plan.requests, jobReport);
    if (won instanceof Error) return failed(won.cause);
    const runs = startAgain();
    for (const [name, claims] of won) {
      const job = registry.get(name);
      if (job !== undefined) runs.push(tracker.track(runInOrder(job, claims, jobReport(name)), name).then(() => drain(job, jobReport(name))));
    }
    // Buffered slots with no live run anywhere (their run settled on a node that died or
    // stopped, or a backfill's node went away): this node starts them.
    for (const name of startable(snapshot, now)) {
      // A node at its capacity leaves them to another node (or its next tick).
      if (tracker.running >= deps.concurrency) break;
      const job = registry.get(name);
      if (job === undefined || !job.enabled || own(snapshot.jobs, name)?.paused === true || won.has(name)) continue;
      runs.push(drain(job, jobReport(name), true));
    }
    return finish(report, runs);
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
      for (const job of registry.all()) if (job.maxRows !== undefined) removed += await store.pruneRows(job.name, job.maxRows);
      if (removed > 0) log.debug(`pruned ${removed} finished runs`);
    } catch (e) {
      log.warn("pruning run history failed; will retry in an hour", { error: errorText(e) });
    }
  };

  return {
    start,
    get lastTick() {
      return lastTick;
    },
  };
}

function record(r: JobTickReport, slot: number, outcome: Outcome | undefined): void {
  if (outcome !== undefined) r.outcomes[slot] = outcome;
}
