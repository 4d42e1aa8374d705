/**
 * One tick (DESIGN.md §5): one `snapshot()`, reaping of expired leases when there are
 * any, one `claim()` batch for every job, then the won slots run.
 */
import type { ClaimRequest, RunRecord, TickSnapshot } from "../store/types.ts";
import { allJobs, countersOf, type EngineState, findJob, jobNames, storeFailed, track } from "./_state.ts";
import { syncDefs } from "./data_jobs.ts";
import { errorText, jobLabel } from "./events.ts";
import { planSlots } from "./plan.ts";
import { reapExpired } from "./reap.ts";
import { releaseQueued, startQueued } from "./queue.ts";
import { runSlot } from "./runner.ts";
import type { ResolvedJob } from "./spec.ts";
import type { JobTickReport, TickReport } from "./types.ts";
import { own } from "../core/own.ts";

const HOUR = 3_600_000;

/** A tick whose claims are done: `report` fills in as runs settle; `settled` resolves then. */
export interface StartedTick {
  report: TickReport;
  settled: Promise<TickReport>;
}

const emptyJobReport = (): JobTickReport => ({
  planned: [], won: [], lost: [], run: [], skipped: [], missed: [], abandoned: [], outcomes: {},
});

/**
 * Plans, claims and starts the runs of one tick at `now`. Resolves once the claims are
 * made (timer mode re-arms then); `settled` resolves when every run this tick started
 * has its outcome recorded (what `tick()` and platform triggers await). Never rejects:
 * a store failure gives `ok: false`, a `store-error` event, and no run.
 */
export async function startTick(state: EngineState, now: number): Promise<StartedTick> {
  const report: TickReport = { now, node: state.node, ok: true, jobs: Object.create(null) };
  const failed = (e: unknown): StartedTick => {
    report.ok = false;
    report.error = errorText(e);
    storeFailed(state, report.error);
    return finish(state, report, []);
  };
  state.lastTick = now;

  const names = jobNames(state);
  let snapshot: TickSnapshot;
  try {
    snapshot = await state.store.snapshot(names, now);
  } catch (e) {
    return failed(e);
  }
  syncDefs(state, snapshot.defs);
  const jobReport = (name: string): JobTickReport => (report.jobs[name] ??= emptyJobReport());

  let reclaimed: { job: ResolvedJob; row: RunRecord }[];
  try {
    reclaimed = await reapExpired(state, snapshot, now, jobReport);
  } catch (e) {
    return failed(e);
  }

  const requests: ClaimRequest[] = [];
  const batch = crypto.randomUUID();
  // Leases count from the clock: `now` may be a late trigger's scheduled time, and a
  // lease ending before the run's timeout would let another node reap and re-run it.
  const leaseFrom = Math.max(now, state.clock.now());
  const node = state.node;
  for (const job of allJobs(state)) {
    const js = own(snapshot.jobs, job.name);
    if (!job.enabled || js === undefined) continue;
    let plan;
    try {
      plan = planSlots({
        schedule: job.schedule,
        catchUp: job.catchUp,
        now,
        watermark: own(snapshot.watermarks, job.name),
        firstSeen: js.firstSeen,
        paused: js.paused,
      });
    } catch (e) {
      // Only a user-supplied Schedule object can throw; it must not stop the other jobs.
      state.log.error(`${jobLabel(job.name)}: its schedule failed; nothing planned`, { error: errorText(e) });
      continue;
    }
    if (plan.dropped > 0) {
      state.log.warn(`${jobLabel(job.name)}: ${plan.dropped} slots too far behind to plan were not recorded`, { now });
    }
    const { run, missed } = plan;
    if (run.length + missed.length === 0) continue;
    const r = jobReport(job.name);
    const lease = job.timeoutMs + state.leaseGraceMs;
    const { name, overlap } = job;
    // Request literals, not a spread of a shared base: a spread copies key by key per slot.
    for (const slot of missed) {
      requests.push({ job: name, kind: "scheduled", node, batch, now, overlap, slot, status: "missed", leaseUntil: now });
    }
    // Won slots of one job run one after another: the i-th lease covers the i runs before it.
    for (let i = 0; i < run.length; i++) {
      requests.push({ job: name, kind: "scheduled", node, batch, now, overlap, slot: run[i]!, status: "running", leaseUntil: leaseFrom + (i + 1) * lease });
    }
    r.planned.push(...ascending(missed, run));
  }

  const won = new Map<string, number[]>();
  if (requests.length > 0) {
    let results;
    try {
      results = await state.store.claim(requests);
    } catch (e) {
      return failed(e);
    }
    for (const { job, slot, outcome } of results) {
      const r = jobReport(job);
      const counters = countersOf(state, job);
      if (outcome === "won") {
        r.won.push(slot);
        const slots = won.get(job);
        if (slots === undefined) won.set(job, [slot]);
        else slots.push(slot);
        state.emit({ type: "claimed", job, slot });
      } else if (outcome === "lost") {
        r.lost.push(slot);
        counters.lost++;
        state.emit({ type: "lost", job, slot });
      } else {
        r[outcome].push(slot);
        counters[outcome]++;
        r.outcomes[slot] = outcome;
        state.emit({ type: outcome, job, slot });
      }
    }
  }
  state.storeOk = true;
  state.lastError = undefined;

  const runs: Promise<unknown>[] = reclaimed.map(({ job, row }) => {
    jobReport(job.name).run.push(row.slot);
    return track(state, runSlot(state, job, row.slot, row.attempt + 1).then((o) => record(jobReport(job.name), row.slot, o)));
  });
  for (const [name, slots] of won) {
    const job = findJob(state, name);
    if (job !== undefined) runs.push(track(state, runInOrder(state, job, slots, jobReport(name))));
  }
  return finish(state, report, runs);
}

/** A job's planned slots ascending; plans come sorted, so copying and sorting are the rare case. */
function ascending(missed: readonly number[], run: readonly number[]): readonly number[] {
  if (missed.length === 0 && isAscending(run)) return run;
  const all = [...missed, ...run];
  return isAscending(all) ? all : all.sort((a, b) => a - b);
}

function isAscending(slots: readonly number[]): boolean {
  for (let i = 1; i < slots.length; i++) if (!(slots[i - 1]! <= slots[i]!)) return false;
  return true;
}

function record(r: JobTickReport, slot: number, outcome: string | undefined): void {
  if (outcome !== undefined) r.outcomes[slot] = outcome as JobTickReport["outcomes"][number];
}

/** Runs one job's won slots oldest first, renewing each later slot's lease as it starts. */
async function runInOrder(state: EngineState, job: ResolvedJob, slots: number[], r: JobTickReport): Promise<void> {
  for (const [i, slot] of slots.entries()) {
    if (state.stopping) return releaseQueued(state, job, slots.slice(i));
    const attempt = i === 0 ? 1 : await startQueued(state, job, slot);
    if (attempt === undefined) continue;
    r.run.push(slot);
    record(r, slot, await runSlot(state, job, slot, attempt));
  }
}

/** Wraps up: `settled` waits for the runs, then emits `tick` and prunes (at most hourly). */
function finish(state: EngineState, report: TickReport, runs: Promise<unknown>[]): StartedTick {
  const settled = Promise.all(runs).then(async () => {
    if (report.ok) await prune(state, report.now);
    state.emit({ type: "tick", now: report.now, report });
    return report;
  });
  return { report, settled };
}

async function prune(state: EngineState, now: number): Promise<void> {
  if (state.lastPrune !== undefined && now - state.lastPrune < HOUR) return;
  state.lastPrune = now;
  const longestWindow = Math.max(0, ...allJobs(state).map((j) => j.catchUp.windowMs));
  try {
    const removed = await state.store.prune(now - Math.max(state.retentionMs, longestWindow));
    if (removed > 0) state.log.debug(`pruned ${removed} finished runs`);
  } catch (e) {
    state.log.warn("pruning run history failed; will retry in an hour", { error: errorText(e) });
  }
}
