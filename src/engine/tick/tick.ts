/**
 * One tick (docs/architecture.md, "The tick"), top to bottom: snapshot → settle claims of
 * unknown outcome → reap ended leases → a pure `planTick()` → the first round of claims
 * (`rounds.ts`) → runs through the node's queue (`queue.ts`, `runs.ts`) → outcomes. Slots
 * left for lack of capacity are claimed by later rounds of the same plan (`more()`): one
 * snapshot per tick, and a round costs what it claims.
 */
import { own } from "../../core/own.ts";
import { setOwn } from "../../store/_validate.ts";
import type { RunRecord, TickSnapshot } from "../../store/types.ts";
import { jobLabel } from "../text.ts";
import { claimOrder, planTick, type TickPlan } from "./plan_tick.ts";
import { nextTurn, PLAN_CHUNK } from "./turn.ts";
import { limitRuns } from "./max_runs.ts";
import { createPresence } from "./presence.ts";
import { createShareMarks, MARKED_SHARE, shareDigest } from "./share_marks.ts";
import { spread } from "./spread.ts";
import { startsOf } from "./jitter.ts";
import type { Reconciler } from "./reconcile.ts";
import type { RunnerDeps } from "../run/runner.ts";
import type { Promoter } from "../run/overlap.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import type { HeldClaim } from "../run/tracker.ts";
import type { TickReport } from "../types.ts";
import { createRunQueue } from "./queue.ts";
import { draftReport, note, type ReportDraft, tickEvent } from "./report.ts";
import { claimTurn, createRounds } from "./rounds.ts";
import type { TickHint } from "./timer.ts";
import { startOrphans } from "./orphans.ts";
import { runNow } from "./runs.ts";
import { createPruner } from "./prune.ts";

export { HELP_DELAY_MS } from "./rounds.ts";

/** A tick whose claims are done: `report` fills in as runs settle; `settled` resolves then. */
export interface StartedTick {
  report: TickReport;
  settled: Promise<TickReport>;
  /**
   * A tick claimed ahead left jobs out (a run of theirs was in flight then): tick again at
   * the slot, so their overlap is decided when it is due.
   */
  retick?: boolean;
  /**
   * The earliest stored lease end, still to come, of an open row in this tick's snapshot
   * that this process does not hold (another node's, or an earlier process's under the same
   * node id): timer mode wakes just after it, so a dead node's slot is reaped (and re-run)
   * within `lease` + `leaseGrace` of its last renewal, not at the job's next slot. Present
   * (maybe undefined) on every tick that read the open rows; absent from later rounds and
   * failed ticks, which leave the last one standing.
   */
  leaseEnd?: number | undefined;
  /**
   * Claims of this tick or round that another node won: about when their leases end (the
   * snapshot was read before those rows were written, so `leaseEnd` cannot know them).
   */
  lostLeaseEnd?: number | undefined;
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
  /**
   * With `ahead` (timer mode's `claimAhead`), `now` is a slot still to come: the tick
   * plans and claims as at `now`, reads liveness (leases, presence) from the clock, and
   * resolves at `now`, when the runs it won start. Jobs with a run in flight are left
   * out (`retick`).
   *
   * With `quietSince` (timer mode's word that no job has had a slot in `(quietSince, now]`),
   * a tick whose last plan covered `quietSince` and whose job set is unchanged since reads
   * no job's state and plans nothing: it still reads the definitions and open rows, so
   * data-defined jobs are synced and ended leases reaped as in any tick.
   */
  start(now: number, opts?: TickHint): Promise<StartedTick>;
  /**
   * The next round of the last tick's plan, as capacity allows: no snapshot, no
   * re-plan. Its report has no jobs (and no `deferred`) when nothing is left. A round
   * that must wait before helping other nodes waits until `until` at most.
   */
  more(until?: number): Promise<StartedTick>;
  /** Whether a round now could claim at least half the node's capacity (runs free, queue short). */
  hasRoom(): boolean;
  /** Releases the claims queued and not started (the scheduler stops). */
  drop(): Promise<void>;
  /** Resolves once no claim waits in the run queue (all won have started, or were dropped). */
  started(): Promise<void>;
  /**
   * `halt("drain")`: nothing more is claimed, and what is won still starts (claims made
   * ahead at their slot); `halt("stop")`: a wait for a slot claimed ahead ends now, its
   * claims released, not run; `halt("stopped")` once the stop is over (a `tick()` claims
   * again); `halt(false)` when the scheduler starts again.
   */
  halt(mode: "drain" | "stop" | "stopped" | false): void;
  /** The latest `now` of the ticks started: a tick at an older time leaves it. */
  readonly lastTick: number | undefined;
}

/**
 * `planTick` over `jobs` in chunks of `PLAN_CHUNK`, yielding to the event loop before each
 * chunk and after the last (100 000 jobs plan in seconds), so no chunk shares a turn with
 * the steps around it (the registry's sync before, the claim order after).
 */
async function planInChunks(
  jobs: readonly ResolvedJob[],
  snapshot: TickSnapshot,
  now: number,
  lateAt: number,
): Promise<TickPlan> {
  if (jobs.length <= PLAN_CHUNK) return planTick(jobs, snapshot, { now, lateAt });
  const plan: TickPlan = { idle: [], runnable: [], warnings: [] };
  for (let i = 0; i < jobs.length; i += PLAN_CHUNK) {
    await nextTurn();
    const part = planTick(jobs.slice(i, i + PLAN_CHUNK), snapshot, { now, lateAt });
    for (const d of part.idle) plan.idle.push(d);
    for (const d of part.runnable) plan.runnable.push(d);
    for (const w of part.warnings) plan.warnings.push(w);
  }
  await nextTurn();
  return plan;
}

/**
 * `jobs` split by rendezvous owner over this node and `nodes`: the names of this node's
 * share, and the other shares' jobs in the order a helper takes them (`spread`).
 */
export function ownShare(
  jobs: readonly ResolvedJob[],
  node: string,
  nodes: readonly string[],
): Shares {
  const { order, own, shares } = spread(jobs, (job) => job.name, { node, nodes, offset: 0 });
  const mine = order.slice(0, own);
  const ownerOf = new Map<ResolvedJob, string>();
  const digests = new Map<string, string>();
  for (const [other, share] of shares) {
    for (const job of share) ownerOf.set(job, other);
    digests.set(other, shareDigest(share));
  }
  return { mine: mine.map((job) => job.name), theirs: order.slice(own), digest: shareDigest(mine), ownerOf, digests };
}

/** The jobs split by rendezvous owner ({@link ownShare}). */
export interface Shares {
  /** This node's share, by name. */
  mine: string[];
  /** The other nodes' shares, in the order a helper takes them. */
  theirs: ResolvedJob[];
  /** The digest of this node's share (`share_marks.ts`). */
  digest: string;
  /** The owner of each job of `theirs`. */
  ownerOf: ReadonlyMap<ResolvedJob, string>;
  /** Each other node's share digest, as this node sees it. */
  digests: ReadonlyMap<string, string>;
}

/** Whether `job` (enabled) has a slot whose start falls in `(from, now]`; true when its schedule throws. */
export function slotSince(job: ResolvedJob, from: number, now: number): boolean {
  if (!job.enabled) return false;
  try {
    const next = startsOf(job).next(from);
    return next !== null && next <= now;
  } catch {
    return true;
  }
}

/** Creates the ticker. */
export function createTicker(deps: TickDeps): Ticker {
  let lastTick: number | undefined;
  const { store, clock, node, registry, lease, tracker, emit, log } = deps;
  const presence = createPresence({ store, node, log, clock });
  const marks = createShareMarks({ store, node, log });
  const queue = createRunQueue({
    tracker,
    concurrency: deps.concurrency,
    now: () => clock.now(),
    hold: () => lease.holdOutcomes(),
  });
  const runs = { ...deps, queue };
  const rounds = createRounds(runs);
  const prune = createPruner({ store, registry, log, retentionMs: deps.retentionMs });
  // The shares change only with the jobs or the live nodes: 10 000 jobs hash in ~70 ms a tick.
  let shared: { version: number; nodes: string; shares: Shares } | undefined;
  const sharesOf = (nodes: readonly string[]): Shares => {
    const key = [...new Set(nodes)].sort().join("\n");
    if (shared?.version !== registry.version || shared.nodes !== key) {
      shared = { version: registry.version, nodes: key, shares: ownShare(registry.all(), node, nodes) };
    }
    return shared.shares;
  };
  /** The registered jobs of `names` as they are now (a sync may have re-resolved some). */
  const current = (names: readonly string[]): ResolvedJob[] => {
    const out: ResolvedJob[] = [];
    for (const name of names) {
      const job = registry.get(name);
      if (job !== undefined) out.push(job);
    }
    return out;
  };

  /** The registry's version after the last tick's sync: a quiet tick needs the same jobs. */
  let syncedVersion: number | undefined;
  /**
   * The states of the jobs with open rows that a quiet tick's snapshot (no names) lacks:
   * the reaper and the orphans' promotion read whether such a job is paused.
   */
  const addOpenStates = async (snapshot: TickSnapshot): Promise<void> => {
    const names = snapshot.running.map((row) => row.job).filter((name) => !Object.hasOwn(snapshot.jobs, name));
    if (names.length === 0) return;
    const { jobs } = await store.read(names);
    for (const name in jobs) setOwn(snapshot.jobs, name, jobs[name]!);
  };

  /**
   * Plans, claims and starts the runs of one tick at `now`. Resolves once the first
   * round's claims are made (timer mode re-arms then); `settled` resolves when every run
   * this tick started has its outcome recorded. Never rejects: a store failure gives
   * `ok: false`, a `store-error` event, and no run.
   */
  const start = async (now: number, opts: TickHint = {}): Promise<StartedTick> => {
    const ahead = opts.ahead === true && now > clock.now();
    // An idle minute (timer mode's clamp wake, nothing due since a plan this node took to its
    // end, the same jobs): no job's state is read and nothing planned. 10 000 jobs on 4 nodes
    // read 2 500 states and planned them every idle minute (bench/README.md, "Idle cost").
    const covered = rounds.covered;
    let quiet = !ahead && opts.quietSince !== undefined && covered !== undefined &&
      covered >= opts.quietSince && covered <= now && registry.version === syncedVersion;
    // Liveness (leases, presence, claims of unknown outcome) is read at the clock's time;
    // only planning and claiming are at `now`, a slot still to come when ahead.
    const at = ahead ? clock.now() : now;
    const draft = draftReport(now, node);
    // Re-runs (reclaimed, or claims of unknown outcome settled) start after the claim
    // batch, as fresh slots do; they are claimed, so they run even when the batch fails.
    const again: { job: ResolvedJob; claim: HeldClaim }[] = [];
    const startAgain = (): Promise<unknown>[] =>
      again.map(({ job, claim }) => runNow(runs, job, claim, draft.job(job.name)));
    const failed = (e: unknown): StartedTick => {
      draft.fail(e);
      return finish(draft.report, startAgain());
    };
    const first = lastTick === undefined;
    // A late tick (a repeated or late delivery) moved it back, to 1970 for a scheduledTime of 0.
    if (first || now > lastTick!) lastTick = now;
    // A new tick plans everything due afresh: what an older plan left unclaimed is in it.
    rounds.clear();

    // More jobs than free capacity, and other nodes ticking large minutes: this node reads
    // and plans its own rendezvous share only; the others' jobs are read and planned when
    // it helps with them (`rounds.ts`), so N nodes do not each read and plan every job.
    // Only after a plan this node took to its end (`covered`): of the others' jobs, those
    // with a slot since then are read when helping; the older slots are all recorded.
    const free = deps.concurrency - tracker.handlers;
    const mayBeLarge = registry.count() > free;
    // A quiet tick keeps this node's presence entry fresh (`keep`: a read and a write every
    // few minutes), so the next large minute finds it, and reads no one else's.
    let nodes = quiet
      ? (mayBeLarge ? await presence.keep(at) : [])
      : mayBeLarge || first
      ? await presence.live(at, mayBeLarge)
      : [];
    const shares = !quiet && mayBeLarge && nodes.length > 0 && covered !== undefined && covered < now
      ? sharesOf(nodes)
      : undefined;

    let snapshot: TickSnapshot;
    let leaseEnd: number | undefined;
    try {
      // Outcomes this node could not write (a lock, an outage) are tried first: a row whose
      // run ended reads `running` to the claims' overlap check until its outcome lands.
      await lease.retryOutcomes();
      const names = quiet ? [] : shares === undefined ? registry.names() : shares.mine;
      // The store reads a large snapshot in pages, yielding between them; its last page
      // and the registry's sync over every job (40 ms at 100 000) take separate turns.
      snapshot = await store.snapshot(names, at);
      if (names.length > PLAN_CHUNK) await nextTurn();
      registry.sync(snapshot);
      if (quiet && registry.version !== syncedVersion) {
        // A data-defined job came or changed (another node defined it): an ordinary tick.
        quiet = false;
        snapshot = await store.snapshot(registry.names(), at);
        registry.sync(snapshot);
      } else if (quiet) await addOpenStates(snapshot);
      syncedVersion = registry.version;
      const settled = await deps.reconciler.settle(snapshot, at);
      again.push(...settled.adopted);
      if (settled.error !== undefined) throw settled.error;
      for (const row of snapshot.running) {
        const end = row.leaseUntil;
        // Another node's, or this node's own that this process does not hold (an earlier
        // process under the same node id, restarted after a kill).
        const foreign = row.node !== node || tracker.get(row.job, row.slot) === undefined;
        if (foreign && end !== null && end >= at && (leaseEnd === undefined || end < leaseEnd)) leaseEnd = end;
      }
      const { reaped, reclaimed, error } = await lease.reap(snapshot, at, (row) => retryable(snapshot, row));
      reported(draft, reaped, reclaimed.map((r) => r.row));
      again.push(...reclaimed);
      if (error !== undefined) throw error;
    } catch (e) {
      return failed(e);
    }

    // Nodes that noted themselves at once overwrite one another's presence entries, and one
    // left out notes itself again at the start of its next large minute: read again now,
    // after the snapshot, so that node's share goes to its help part here (rendezvous moves
    // jobs only to a new node, so the snapshot read for the old share still covers it)
    // instead of being claimed at once as this node's own (one node ran 6.7% of the
    // capacity test's minute that way).
    let joined = false;
    if (mayBeLarge && !first && !quiet) {
      const again = await presence.live(at);
      joined = again.some((name) => !nodes.includes(name));
      if (joined) nodes = [...new Set([...nodes, ...again])];
    }

    // With shares, only this node's is in the snapshot: the others' jobs would plan to nothing.
    // A quiet tick has nothing to plan (and only the states of jobs with open rows).
    let jobs = quiet ? [] : shares === undefined ? registry.all() : current(shares.mine);
    // Claimed ahead, a job with a run in flight now would have its overlap decided before
    // its slot: it is left to a tick at the slot (`retick`).
    let retick = false;
    if (ahead && snapshot.running.length > 0) {
      const busy = new Set(snapshot.running.map((row) => row.job));
      const idle = jobs.filter((job) => !busy.has(job.name));
      retick = idle.length < jobs.length;
      jobs = idle;
    }
    const plan = await planInChunks(jobs, snapshot, now, clock.now());
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
    // Only a minute larger than this node's free capacity needs to know who else ticks it
    // (read above, with the registry's size as the bound); the node's first tick notes it
    // too, so that its first large minute finds the others. A minute that fits is claimed
    // whole, in job order; only a larger one is spread.
    const large = plan.runnable.length > free || shares !== undefined;
    // Not a literal of ClaimOrder's shape with an Infinity: that made its field a double, and
    // V8 a second hidden class for it (`core/kept.ts`).
    const order = large
      ? claimOrder(plan, snapshot, now, { node, nodes, offset: Math.floor(Math.random() * 0x7fffffff) })
      : undefined;
    const due = order?.due ?? plan.idle.concat(plan.runnable);
    const helpFrom = order?.helpFrom ?? Infinity;
    // The others' jobs not read (code jobs of their shares) with a slot due since the last
    // plan covered, in helping order. A slot this misses (a job resumed after its slot while
    // its owner is gone) is planned once that owner's presence ends and the job is in a
    // live node's share; the store's claim keeps every slot to one run whatever is planned.
    // Only whether one has such a slot is asked now (the first usually does): the filter
    // over all of them (7 500 schedules stepped, 30-100 ms on four busy nodes) runs a window
    // at a time when helping, after this node's own claims and starts.
    const pending = (job: ResolvedJob): boolean => slotSince(job, covered!, now);
    const unread = shares === undefined ? [] : shares.theirs.filter((job) => !Object.hasOwn(snapshot.jobs, job.name));
    if (unread.length > 0 && !unread.some(pending)) unread.length = 0;
    // Claimed ahead with other nodes about, each takes its turn in the lead (`claimTurn`).
    const claimFrom = ahead && shares !== undefined ? claimTurn(node, nodes, at, now) : -Infinity;
    // Share marks (`share_marks.ts`): this node notes its share claimed once its own part is,
    // when that part is the whole share the others see (no job left to a later tick, none
    // moved to a node that joined, the jobs the share was cut from); helping skips the
    // shares their owners noted for this tick.
    // Only a plan of MARKED_SHARE due jobs or more: a mark costs a write, and the others'
    // probe of a share with fewer due (10 000 hourly jobs spread over the hour) costs less.
    const whole = shares !== undefined && due.length >= MARKED_SHARE && !retick && !joined &&
      helpFrom >= due.length && shared?.version === registry.version && shared.shares === shares;
    const noteShare = whole ? () => marks.note(now, shares.digest) : undefined;
    const claimedBy = shares === undefined || unread.length < MARKED_SHARE ? undefined : async () => {
      const owners = await marks.claimed(now, shares.digests);
      return owners.size === 0 ? undefined : (job: ResolvedJob) => owners.has(shares.ownerOf.get(job)!);
    };
    rounds.begin(now, due, helpFrom, { unread, pending, ahead, claimFrom, noteShare, claimedBy });
    const started: Promise<unknown>[] = [];
    const won = await rounds.round(draft, now, started);
    started.push(...startAgain());
    if (won instanceof Error) {
      draft.fail(won.cause);
      return { ...finish(draft.report, started), leaseEnd, lostLeaseEnd: draft.lostLeaseEnd };
    }
    startOrphans(runs, snapshot, at, draft, won, started);
    // A tick claimed ahead resolves at its slot (timer mode re-arms after it), whatever it
    // won; at once when the node is stopping (its runs won ahead still start at the slot).
    if (ahead) await rounds.gate(now, true);
    return {
      ...finish(draft.report, started),
      leaseEnd,
      lostLeaseEnd: draft.lostLeaseEnd,
      ...(retick ? { retick } : {}),
    };
  };

  /** Counts, reports and emits the rows the reaper ended. */
  const reported = (draft: ReportDraft, reaped: readonly RunRecord[], retried: readonly RunRecord[]): void => {
    for (const row of reaped) {
      if (row.status === "cancelled") {
        draft.job(row.job).outcomes[row.slot] = "cancelled";
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
      const willRetry = retried.includes(row);
      registry.counters(row.job).abandoned++;
      note(draft.job(row.job), "abandoned", row.slot);
      emit({ type: "abandoned", job: row.job, slot: row.slot, attempt: row.attempt, node: row.node, willRetry });
    }
  };

  const more = async (until?: number): Promise<StartedTick> => {
    const at = rounds.at ?? lastTick ?? clock.now();
    const draft = draftReport(at, node);
    const started: Promise<unknown>[] = [];
    // Claims of later rounds are made now: their overlap check and start time are the clock's.
    const won = await rounds.round(draft, Math.max(at, clock.now()), started, until);
    if (won instanceof Error) draft.fail(won.cause);
    return { ...finish(draft.report, started), lostLeaseEnd: draft.lostLeaseEnd };
  };

  const retryable = (snapshot: TickSnapshot, row: RunRecord): ResolvedJob | undefined => {
    if (row.status === "cancelled") return undefined;
    const job = registry.get(row.job);
    const paused = own(snapshot.jobs, row.job)?.paused === true;
    return job !== undefined && job.enabled && !paused && row.attempt < job.retries.attempts ? job : undefined;
  };

  /** Wraps up: `settled` waits for the runs, then emits `tick` and prunes (at most hourly). */
  const finish = (report: TickReport, runs: Promise<unknown>[]): StartedTick => {
    const settled = Promise.all(runs).then(async () => {
      if (report.ok) await prune(report.now);
      emit(tickEvent(report));
      return report;
    });
    return { report, settled };
  };

  return {
    start,
    more,
    hasRoom: () => queue.budget() >= deps.concurrency / 2,
    drop: () => {
      presence.close();
      return queue.drop();
    },
    started: () => queue.empty(),
    halt: (mode) => rounds.halt(mode),
    get lastTick() {
      return lastTick;
    },
  };
}
