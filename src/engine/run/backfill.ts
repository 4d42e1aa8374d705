/**
 * `scheduler.backfill()`: runs a job for every slot of its schedule in `[from, to)`, from
 * the same `Schedule` the ticks plan with (no second implementation: DST gaps and
 * overlaps behave as they do live), in slot order, each slot claimed exactly once.
 *
 * With the default overlap `bufferAll`, each slot is enqueued (a `buffered` row of kind
 * `backfill`) only when the one before it has settled, then started through
 * `store.promote()` like any buffered slot: one run of the job at a time across every
 * node, and a slot another node already has is reported, not run again. `skip` and
 * `allow` claim each slot directly with that overlap check.
 */
import { quote, SchedulerError } from "../../core/errors.ts";
import { INSTANT_LIMIT, toWholeEpochMs } from "../../core/instant.ts";
import { own } from "../../core/own.ts";
import { unknownOption } from "../../core/suggest.ts";
import { type Outcome, SKIP_MAX_RUNS } from "../../store/types.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import { nextTurn } from "../tick/turn.ts";
import type { Promoter } from "./overlap.ts";
import { type RunnerDeps, runSlot } from "./runner.ts";
import type { BackfillOptions, BackfillReport } from "../types.ts";

/** The options `backfill()` takes. */
const BACKFILL_OPTIONS = ["from", "to", "rerun", "overlap", "signal", "onPlan"];

/** The most slots one backfill call plans. */
export const MAX_BACKFILL_SLOTS = 10_000;

/** What a backfill uses: the runner's parts, the promoter and this node's id. */
export interface BackfillDeps extends RunnerDeps {
  node: string;
  promoter: Promoter;
}

/** The resolved range and its slots, computed before anything is written. */
export interface BackfillPlan {
  from: number;
  to: number;
  slots: number[];
  overlap: "bufferAll" | "skip" | "allow";
  rerun: boolean;
}

/**
 * Validates the options and lists the slots in `[from, to)`.
 *
 * @throws {SchedulerError} `invalid-instant` for `from`/`to`; `invalid-spec` for a reversed
 * range, a `to` after `now`, an unknown overlap or a range holding more than 10 000 slots.
 */
export function planBackfill(job: ResolvedJob, options: BackfillOptions, now: number): BackfillPlan {
  if (options === null || typeof options !== "object") {
    throw new SchedulerError("invalid-spec", `backfill: expected { from, to }, got ${quote(options)}`, {
      path: "backfill",
    });
  }
  // A misspelt option (`rerunn`) was ignored, and the backfill ran without it.
  const unknown = unknownOption(options, BACKFILL_OPTIONS);
  if (unknown !== undefined) {
    throw new SchedulerError(
      "invalid-spec",
      `backfill.${unknown.key}: unknown option (it takes ${BACKFILL_OPTIONS.join(", ")})${unknown.hint}`,
      { path: unknown.key },
    );
  }
  const from = toWholeEpochMs(options.from, { field: "from" });
  const to = toWholeEpochMs(options.to, { field: "to" });
  if (!(from < to)) {
    throw new SchedulerError(
      "invalid-spec",
      `to: must be after from (${new Date(from).toISOString()}), got ${quote(new Date(to).toISOString())}`,
      { path: "to" },
    );
  }
  // A backfill fills the past: a slot must not run before its time.
  if (to > now + 1) {
    throw new SchedulerError(
      "invalid-spec",
      `to: must not be in the future (now is ${new Date(now).toISOString()}), got ${quote(new Date(to).toISOString())}`,
      { path: "to" },
    );
  }
  const overlap = options.overlap ?? "bufferAll";
  if (overlap !== "bufferAll" && overlap !== "bufferOne" && overlap !== "skip" && overlap !== "allow") {
    throw new SchedulerError(
      "invalid-spec",
      `overlap: expected one of bufferAll, bufferOne, skip, allow, got ${quote(overlap)}`,
      { path: "overlap" },
    );
  }
  if (options.rerun !== undefined && typeof options.rerun !== "boolean") {
    throw new SchedulerError("invalid-spec", `rerun: expected true or false, got ${quote(options.rerun)}`, {
      path: "rerun",
    });
  }
  // `between` is (a, b]; slots are whole milliseconds, so (from - 1, to - 1] is [from, to).
  // At the first instant there is no `from - 1`: the range starts after it, and `from`
  // itself is a slot when the last one before `from + 1` is it.
  const slots: number[] = from === -INSTANT_LIMIT && job.schedule.prev(from + 1) === from ? [from] : [];
  for (const slot of job.schedule.between(Math.max(from - 1, -INSTANT_LIMIT), to - 1)) {
    if (slots.length === MAX_BACKFILL_SLOTS) {
      throw new SchedulerError(
        "invalid-spec",
        `to: the range ${new Date(from).toISOString()} to ${
          new Date(to).toISOString()
        } holds more than ${MAX_BACKFILL_SLOTS} slots of ${quote(job.name)}; backfill it in parts`,
        { path: "to" },
      );
    }
    slots.push(slot);
  }
  // bufferOne and bufferAll are one thing for slots that come one after another.
  return { from, to, slots, overlap: overlap === "bufferOne" ? "bufferAll" : overlap, rerun: options.rerun ?? false };
}

/**
 * Runs a planned backfill. Resolves with the report when the last slot has settled, or
 * when `signal` aborts, the scheduler stops, or the job is deleted or redefined (slots not
 * yet enqueued are then left alone; the one enqueued still runs). Rejects only when the
 * store fails (the report so far is lost; the rows tell what ran).
 */
export async function runBackfill(
  deps: BackfillDeps,
  job: ResolvedJob,
  plan: BackfillPlan,
  signal: AbortSignal | undefined,
): Promise<BackfillReport> {
  const report: BackfillReport = {
    job: job.name,
    from: plan.from,
    to: plan.to,
    planned: plan.slots.length,
    ran: [],
    skipped: [],
    outcomes: {},
    stopped: false,
  };
  /** A data job's first-seen time when the backfill began. */
  let born: number | undefined;
  for (const slot of plan.slots) {
    // A turn of the event loop per slot: on a store whose calls answer in the same turn (the
    // embedded libSQL driver, memory), a backfill ran as one chain of microtasks, and every
    // timer (ticks, heartbeats) and HTTP read of the process waited for its end (7 s for
    // 3 000 slots on a libSQL file; live slots were recorded `missed`).
    if (slot !== plan.slots[0]) await nextTurn();
    // A job deleted or redefined since the plan (undefine(), DELETE or PUT /jobs/:name), on
    // any node, ends its backfill as a pause would: the deliveries went on after the job was
    // gone. A data job's definition is read from the store (this node's registry learned of
    // another node's change only at its next tick: 1 724 deliveries went out after a delete
    // made elsewhere). A PUT of the same definition (a new version, the same spec) goes on;
    // a delete and a create with the same spec does not: the job's state, read with its
    // definition, was made anew (its first-seen time moved).
    let recreated = false;
    if (job.source === "data" && deps.registry.get(job.name) === job) {
      const view = await deps.store.read([job.name]);
      const seen = own(view.jobs, job.name)?.firstSeen;
      if (slot === plan.slots[0]) born = seen;
      else {
        recreated = seen !== born;
        deps.registry.syncPart({ defs: view.defs.filter((d) => d.name === job.name) }, new Set([job.name]));
      }
    }
    const current = deps.registry.get(job.name);
    if (current !== job && current !== undefined && !recreated && sameSpec(current, job)) job = current;
    if (signal?.aborted === true || deps.tracker.stopping || current !== job) {
      report.stopped = true;
      break;
    }
    const outcome = plan.overlap === "bufferAll" || plan.rerun
      ? await buffered(deps, job, slot, plan.rerun, report)
      : await claimed(deps, job, slot, plan.overlap, report);
    if (outcome !== undefined) report.outcomes[slot] = outcome;
  }
  return report;
}

/** Whether two resolutions of a job come from the same definition (data jobs: the same stored spec). */
function sameSpec(a: ResolvedJob, b: ResolvedJob): boolean {
  return a.source === "data" && b.source === "data" && a.def !== undefined && b.def !== undefined &&
    JSON.stringify(a.def.spec) === JSON.stringify(b.def.spec);
}

/** A slot through the buffer: enqueued, then started by promote() here or on another node; waits for its final row. */
async function buffered(
  deps: BackfillDeps,
  job: ResolvedJob,
  slot: number,
  rerun: boolean,
  report: BackfillReport,
): Promise<Outcome | undefined> {
  const now = deps.clock.now();
  const [queued] = await deps.store.enqueue([{ job: job.name, slot, kind: "backfill", node: deps.node, now, rerun }]);
  if (queued === "exists") {
    report.skipped.push({ slot, reason: "exists" });
    return undefined;
  }
  // Runs of the job settling on this node meanwhile look for our slot at once.
  const unwant = deps.promoter.want(job.name);
  try {
    return await awaitSlot(deps, job, slot, report);
  } finally {
    unwant();
  }
}

async function awaitSlot(
  deps: BackfillDeps,
  job: ResolvedJob,
  slot: number,
  report: BackfillReport,
): Promise<Outcome | undefined> {
  for (;;) {
    let ranHere: Outcome | undefined;
    let ours = false;
    await deps.promoter.drain(job, (started, outcome) => {
      if (started !== slot) return;
      ours = true;
      ranHere = outcome;
    });
    if (ours) {
      report.ran.push(slot);
      if (ranHere !== undefined) return ranHere;
    }
    const row = await deps.store.getRun(job.name, slot);
    // Deleted with its job (undefine() takes the job's rows): nothing is left to wait for.
    if (row === undefined) return undefined;
    if (row.status !== "buffered" && row.status !== "running" && row.status !== "cancelling") {
      // A buffered slot another node ended without running it (superseded, or past `maxRuns`) did not run.
      if (!ours && row.status === "skipped") {
        report.skipped.push({ slot, reason: row.error === SKIP_MAX_RUNS ? "maxRuns" : "overlap" });
      } else if (!ours) report.ran.push(slot);
      return row.status as Outcome;
    }
    // A run of the job is live elsewhere (or ours ended without a recorded outcome): look again after a heartbeat.
    if (deps.tracker.stopping) return undefined;
    await deps.promoter.nap(job.name, deps.lease.policy.heartbeatMs);
  }
}

/** A slot claimed directly with `skip` or `allow`. */
async function claimed(
  deps: BackfillDeps,
  job: ResolvedJob,
  slot: number,
  overlap: "skip" | "allow",
  report: BackfillReport,
): Promise<Outcome | undefined> {
  const now = deps.clock.now();
  const leaseUntil = deps.lease.until(now, job);
  const batch = `backfill:${deps.node}:${slot}`;
  const [result] = await deps.store.claim([{
    job: job.name,
    slot,
    kind: "backfill",
    status: "running",
    overlap,
    node: deps.node,
    batch,
    now,
    leaseUntil,
    maxRuns: job.maxRuns,
  }]);
  if (result?.outcome === "lost") {
    report.skipped.push({ slot, reason: "exists" });
    return undefined;
  }
  if (result?.outcome === "limit") {
    report.skipped.push({ slot, reason: "maxRuns" });
    return undefined;
  }
  if (result?.outcome !== "won") {
    report.skipped.push({ slot, reason: "overlap" });
    return "skipped";
  }
  const claim = deps.lease.hold({ job: job.name, slot, attempt: 1, node: deps.node }, leaseUntil, "backfill");
  deps.emit({ type: "claimed", job: job.name, slot });
  report.ran.push(slot);
  return await deps.tracker.track(runSlot(deps, job, claim), job.name);
}

/**
 * `scheduler.backfill(name, options)`: once the store is ready, plans the named job's
 * range, reports the slots to `options.onPlan`, then runs them ({@link runBackfill}).
 *
 * @throws {SchedulerError} `unknown-job` for a name no job has; the errors of {@link planBackfill}.
 */
export function createBackfill(
  deps: BackfillDeps & { ready: () => Promise<void> },
): (name: string, options: BackfillOptions) => Promise<BackfillReport> {
  return async (name, options) => {
    await deps.ready();
    const job = deps.registry.get(name);
    if (job === undefined) {
      throw new SchedulerError("unknown-job", `no job named ${JSON.stringify(name)}`, { path: "name" });
    }
    const plan = planBackfill(job, options, deps.clock.now());
    // A paused job's buffered slots wait for its resume: the backfill would wait with them,
    // without end or word (its first slot never started).
    if (own((await deps.store.read([name])).jobs, name)?.paused === true) {
      throw new SchedulerError("conflict", `backfill: job ${quote(name)} is paused; resume it, then backfill`, {
        path: "name",
      });
    }
    options.onPlan?.(plan.slots);
    return runBackfill(deps, job, plan, options.signal);
  };
}
