/**
 * A tick's plan while slots of it wait to be claimed, and the rounds that claim it. One
 * snapshot per tick: a later round claims from the plan already made (the store's claim
 * decides every slot, so nothing needs re-reading), and costs what it claims. A node
 * alone claims the whole plan at once, in batches of at most `MAX_BATCH` jobs; with other
 * nodes it claims what it can start within about a second (`queue.ts`: free capacity plus
 * the measured pace), its own rendezvous share first (`spread.ts`), the others' shares
 * only after `HELP_DELAY_MS`.
 */
import type { ClaimRequest, SlotKey } from "../../store/types.ts";
import { startOf } from "./jitter.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import type { HeldClaim } from "../run/tracker.ts";
import { sleep } from "../run/sleep.ts";
import { claimBatch, type ClaimDeps } from "./claim_batch.ts";
import { type DueJob, planTick, type RoundInput, slotsToRun, takeRound, unclaimed } from "./plan_tick.ts";
import { limitRuns } from "./max_runs.ts";
import { own } from "../../core/own.ts";
import { keepShape } from "../../core/kept.ts";
import { setOwn } from "../../store/_validate.ts";
import { noteAll, type ReportDraft } from "./report.ts";
import { queueRun, RunGroup, type RunsDeps } from "./runs.ts";
import { nextTurn, QUEUE_CHUNK } from "./turn.ts";

/** How many jobs of other nodes' shares one read checks before this node helps with them. */
const HELP_WINDOW = 1_000;
/**
 * How long after the slot a node waits before helping with other nodes' shares (so a busy
 * node still gets its share), plus how late this node itself began the tick: a node that
 * ticks late on a loaded machine gives the others as much more time as it took itself.
 */
export const HELP_DELAY_MS = 2_000;
/** The most jobs one claim batch takes: a statement's size stays bounded whatever the budget. */
export const MAX_BATCH = 2_000;

/** A tick's plan while slots of it wait to be claimed. */
interface Plan {
  now: number;
  batch: string;
  due: DueJob[];
  /** The next job to take. */
  next: number;
  /** Slots to run not taken yet. */
  deferred: number;
  /** Where the other nodes' shares begin, and the end of the part of them read so far. */
  helpFrom: number;
  /** When helping may begin: HELP_DELAY_MS after the slot, plus this node's own lateness. */
  helpAt: number;
  checkedUntil: number;
  /** Jobs of the part read so far that no node has claimed. */
  open: Set<DueJob>;
  /**
   * Other nodes' jobs the tick did not read (it read this node's share only), in helping
   * order: read and planned a window at a time when helping, then appended to `due`.
   */
  unread: readonly ResolvedJob[];
  /** Asked once, as helping begins: the jobs of `unread` whose owners noted their share claimed (`share_marks.ts`). */
  claimedBy: (() => Promise<((job: ResolvedJob) => boolean) | undefined>) | undefined;
  /** Notes this node's share claimed, once its own part is and no batch of it failed; then unset. */
  noteShare: (() => Promise<void>) | undefined;
  /** A round of this plan failed: its share is not noted. */
  failed: boolean;
  /** Which of `unread` to read when helping (the others have no slot to take); applied a window at a time. */
  pending: (job: ResolvedJob) => boolean;
  /** The next of `unread` to read. */
  nextUnread: number;
  /** Whether a round of this plan ran. */
  started: boolean;
  /** Claimed ahead of its slot (`claimAhead`): runs won start at `now`, not before. */
  ahead: boolean;
  /** The first claim waits until this instant (the node's turn in the lead, {@link claimTurn}). */
  claimFrom: number;
}

/**
 * The newest slot of `job` due by `now` (its start, with jitter, not after `now`);
 * undefined when it has none or its schedule throws.
 */
export function newestDue(job: ResolvedJob, now: number): number | undefined {
  try {
    let slot = job.schedule.prev(now + 1);
    // A jittered slot starts after it, and only the newest can still be waiting for its start.
    if (slot !== null && job.jitterMs > 0 && startOf(job, slot) > now) slot = job.schedule.prev(slot);
    return slot ?? undefined;
  } catch {
    return undefined;
  }
}

/** Whether every job of `p` was taken (or found claimed): nothing left to read or claim. */
const done = (p: Plan): boolean => p.next >= p.due.length && p.nextUnread >= p.unread.length;

const always = (): boolean => true;

/** A tick's plan, before its first round. */
function newPlan(
  now: number,
  batch: string,
  due: DueJob[],
  helpFrom: number,
  helpAt: number,
  opts: PlanOptions,
): Plan {
  const { unread = [], pending = always, ahead = false, claimFrom = -Infinity } = opts;
  return {
    now,
    batch,
    due,
    next: 0,
    deferred: slotsToRun(due, 0),
    helpFrom,
    helpAt,
    checkedUntil: helpFrom,
    open: new Set(),
    unread,
    claimedBy: opts.claimedBy,
    noteShare: opts.noteShare,
    failed: false,
    pending,
    nextUnread: 0,
    started: false,
    ahead,
    claimFrom,
  };
}

/**
 * A plan kept so the plans' hidden class is (`core/kept.ts`): the rounds' code reads a plan
 * on every batch, and a minute's plan is gone before the next. Each field a round writes
 * is written here once too: V8 marks a field written after its object was made as no longer
 * constant, with a new hidden class, and the kept plan would hold the old one.
 */
const KEPT_PLAN = keepShape(
  newPlan(0.5, "", [], Infinity, 0.5, { claimedBy: async () => undefined, noteShare: async () => {} }),
);
KEPT_PLAN.next = 1;
KEPT_PLAN.deferred = 1;
KEPT_PLAN.checkedUntil = 1;
KEPT_PLAN.nextUnread = 1;
KEPT_PLAN.open = new Set();
KEPT_PLAN.unread = [];
KEPT_PLAN.claimedBy = undefined;
KEPT_PLAN.noteShare = undefined;
KEPT_PLAN.failed = true;
KEPT_PLAN.started = true;

/** The optional parts of a plan (`Rounds.begin`). */
export interface PlanOptions {
  /** Other nodes' jobs not planned yet, in helping order. */
  unread?: readonly ResolvedJob[];
  /** Which of `unread` may have a slot to take. */
  pending?: (job: ResolvedJob) => boolean;
  /** Claimed ahead of its slot (`claimAhead`). */
  ahead?: boolean;
  /** Claims begin no sooner than this instant ({@link claimTurn}). */
  claimFrom?: number;
  /** The jobs of `unread` whose owners noted their share claimed; asked once, as helping begins. */
  claimedBy?: (() => Promise<((job: ResolvedJob) => boolean) | undefined>) | undefined;
  /** Notes this node's share claimed (`share_marks.ts`), once its own part is. */
  noteShare?: (() => Promise<void>) | undefined;
}

/** The longest gap between two nodes' turns to claim ahead ({@link claimTurn}). */
export const CLAIM_TURN_MS = 200;

/**
 * When `node` begins its claims ahead of a slot at `slot`, the lead having begun at `from`,
 * while `others` tick the minute too: each node in name order a turn after the one before
 * it, a turn being the lead over twice the nodes, at most {@link CLAIM_TURN_MS}. Nodes that
 * wake together for a lead would otherwise all claim at once, and on a SQLite file most of
 * their claim batches meet another node's write lock and are retried (7-11 of a node's
 * 11-15 in the 4-process bench). The turns end in the first half of the lead, so claims
 * made ahead still land before the slot; a node alone claims at once.
 */
export function claimTurn(node: string, others: readonly string[], from: number, slot: number): number {
  if (others.length === 0 || slot <= from) return from;
  const rank = others.reduce((n, other) => other < node ? n + 1 : n, 0);
  const turn = Math.min(CLAIM_TURN_MS, (slot - from) / (2 * (others.length + 1)));
  return from + Math.floor(rank * turn);
}

/** What rounds use. */
export interface RoundsDeps extends ClaimDeps, RunsDeps {}

/** The plan of the last tick and its rounds. */
export interface Rounds {
  /**
   * Replaces the plan with a new tick's: `due` in claim order, other nodes' shares from
   * `helpFrom`, then `unread` (other nodes' jobs not planned yet; read when helping, those
   * `pending` accepts: the filter runs a window at a time then, not on the way to the first claim).
   */
  begin(now: number, due: DueJob[], helpFrom: number, opts?: PlanOptions): void;
  /** Forgets the plan (a tick that failed before planning). */
  clear(): void;
  /** The `now` of the plan, while it has slots left. */
  readonly at: number | undefined;
  /**
   * The `now` of the newest plan this node took to its end: every slot due by then has a
   * row (claimed here, or found claimed by another node). Undefined before the first.
   */
  readonly covered: number | undefined;
  /**
   * Claims the next round of the plan at `now` into `draft` and queues the won runs into
   * `runs`; sets `deferred` when slots are left. The won claims by job (for orphans), or
   * the store's failure as an `Error`. A round that must wait to help waits until `until`
   * at most (default: as long as it takes).
   */
  round(
    draft: ReportDraft,
    now: number,
    runs: Promise<unknown>[],
    until?: number,
  ): Promise<ReadonlyMap<string, unknown> | Error>;
  /**
   * Resolves when the clock reaches `at` (a slot claimed ahead), or at once after
   * `halt("stop")`; with `drain`, after `halt("drain")` too.
   */
  gate(at: number, drain?: boolean): Promise<void>;
  /**
   * `halt("drain")`: no round claims any more, and a wait to claim (a turn in the lead, a
   * wait to help) ends now; claims already won still start, those made ahead at their
   * slot (the scheduler is stopping). `halt("stop")` also ends every `gate()` wait now,
   * and the claims won ahead are released, not run (the stop's grace has passed).
   * `halt("stopped")` (the stop is over) lets a `tick()` called after it claim again; the
   * claims it won ahead are still released. `halt(false)`: the scheduler starts again.
   */
  halt(mode: "drain" | "stop" | "stopped" | false): void;
}

/** Creates the rounds of one ticker. */
export function createRounds(deps: RoundsDeps): Rounds {
  const { store, clock, node, registry, lease, tracker, queue } = deps;
  let plan: Plan | undefined;
  let covered: number | undefined;
  /** Aborted by `halt(true)`: gates open, and runs won ahead are released instead of queued. */
  // Made on first use: workerd refuses an AbortController made at global scope, where a
  // Worker may build its scheduler.
  let halting: AbortController | undefined;
  const halted = (): AbortSignal => (halting ??= new AbortController()).signal;
  /** Aborted by `halt("drain")` and `halt("stop")`: no more claims, and waits to claim end. */
  let draining: AbortController | undefined;
  const drained = (): AbortSignal => (draining ??= new AbortController()).signal;
  const sleepDeps = { clock, tracker };
  const gate = (at: number, drain = false): Promise<void> =>
    sleep(sleepDeps, at - clock.now(), drain ? drained() : halted());
  /**
   * The one input every round gives `takeRound`, set field by field before each call
   * (`takeRound` is synchronous and keeps none of it). An object literal per round had a
   * hidden class V8 held weakly: once a minute's last round input was collected, so was
   * the class, and `takeRound`'s optimised code with it; every minute compiled it again
   * (test/integration/warm_test.ts).
   */
  let leaseFrom = 0;
  const input: RoundInput = {
    now: 0,
    node,
    batch: "",
    capacity: 0,
    until: 0,
    // Leases count from the clock: `now` may be a late trigger's scheduled time.
    leaseUntil: (job: ResolvedJob) => lease.until(leaseFrom, job),
    // A later round skips a job removed or redefined since the plan (the next tick plans
    // it afresh), and, when helping, a job another node has claimed (`open`).
    current: (job: ResolvedJob) => registry.get(job.name) === job,
    open: undefined,
  };
  /**
   * Notes `p`'s share claimed once its own part is, with no batch of it failed. Not
   * awaited: the write is the others' shortcut, and its runs do not wait for it.
   */
  const noteShare = (p: Plan): void => {
    if (p.noteShare === undefined || p.failed || p.next < p.helpFrom) return;
    void p.noteShare();
    p.noteShare = undefined;
  };
  /** Forgets a plan taken to its end, noting what it covered. */
  const finished = (p: Plan): void => {
    if (plan === p) plan = undefined;
    covered = Math.max(covered ?? -Infinity, p.now);
  };

  /**
   * The next batch of `p`; `stop` when the round should end before claiming (stopping,
   * replaced, or `until` came before helping may begin).
   */
  const take = async (p: Plan, now: number, budget: number, until: number) => {
    // A stop waits for the runs it let start: nothing it claimed now could start, nor be
    // let go (its queue was dropped), so the row stayed `running` and the job skipped on.
    if (tracker.stopping) return "stop" as const;
    // Claimed ahead, this node's turn in the lead; a stop ends the wait, and nothing is claimed.
    // (A tick that has read goes on with its claims while the node stops, and what it won
    // starts; a wait to claim ends, and claims nothing.)
    if (p.claimFrom > clock.now()) {
      await gate(p.claimFrom, true);
      if (tracker.stopping || drained().aborted || plan !== p) return "stop" as const;
    }
    // Each owner gets HELP_DELAY_MS from the slot to start its share, or half the time to
    // `until` (timer mode's next slot) when that is sooner: the next slot's tick plans
    // afresh, so with slots a second apart help that waited the whole delay never came, and
    // a killed node's share got no row until its presence ended, minutes later.
    const helpAt = until > p.now ? Math.min(p.helpAt, p.now + (until - p.now) / 2) : p.helpAt;
    for (;;) {
      // Past `helpAt`, a share not yet taken (planned, or not read yet) is treated as its
      // owner's who is slow or gone. The wait ends at `until`, which gets a tick of its own.
      if (p.next >= p.helpFrom && !done(p) && budget > 0 && clock.now() < helpAt) {
        await sleep(sleepDeps, Math.min(helpAt, until) - clock.now(), drained());
        if (tracker.stopping || drained().aborted || plan !== p || clock.now() < helpAt) return "stop" as const;
      }
      // The shares their owners noted claimed for this tick are left out, unread and unprobed.
      if (p.next >= p.due.length && !done(p) && budget > 0 && p.claimedBy !== undefined) {
        const claimedBy = p.claimedBy;
        p.claimedBy = undefined;
        const skip = await claimedBy();
        if (skip !== undefined) {
          const left = p.unread.slice(p.nextUnread).filter((job) => !skip(job));
          p.deferred -= p.unread.length - p.nextUnread - left.length;
          p.unread = left;
          p.nextUnread = 0;
        }
      }
      // Jobs of other shares this tick did not read: read a window now and plan it. What the
      // owners claimed meanwhile has its slot recorded, so the plan holds only what is left.
      if (p.next >= p.due.length && !done(p) && budget > 0) {
        const window = p.unread.slice(p.nextUnread, p.nextUnread + HELP_WINDOW);
        p.nextUnread += window.length;
        const left = await planUnread(p, window.filter(p.pending));
        p.open = new Set(left);
        for (const d of left) p.due.push(d);
        p.checkedUntil = p.due.length;
        p.deferred += slotsToRun(left, 0) - window.length;
      }
      // Other nodes' shares: one read-only look first, so that helping costs no claim for
      // the jobs their owners already took (the common case); only the rest is claimed.
      if (p.next >= p.checkedUntil && p.next < p.due.length && budget > 0) {
        const window = p.due.slice(p.next, p.next + HELP_WINDOW);
        p.open = await openOf(window);
        p.checkedUntil = p.next + window.length;
      }
      const helping = p.next >= p.helpFrom;
      leaseFrom = Math.max(now, clock.now());
      input.now = now;
      input.batch = p.batch;
      input.capacity = Math.min(budget, MAX_BATCH);
      input.until = helping ? p.checkedUntil : p.helpFrom;
      input.open = helping ? p.open : undefined;
      const taken = takeRound(p.due, p.next, input);
      p.next = taken.next;
      p.deferred -= taken.passed;
      if (taken.requests.length > 0 || done(p) || budget === 0) return taken;
    }
  };

  /**
   * Plans `window` (other nodes' jobs) from a read of them: the slots no node has recorded
   * yet. A job no node has noted yet (its owner never read it: gone, or new) gets its
   * state row from a snapshot of those names, as its owner's tick would have given it.
   */
  const planUnread = async (p: Plan, window: readonly ResolvedJob[]): Promise<DueJob[]> => {
    const jobs = await unrecorded(window.filter((job) => registry.get(job.name) === job), p.now);
    if (jobs.length === 0) return [];
    const names = jobs.map((job) => job.name);
    const view = await store.read(names);
    const missing = names.filter((name) => !Object.hasOwn(view.jobs, name));
    if (missing.length > 0) {
      const added = await store.snapshot(missing, p.now);
      for (const name of missing) {
        const state = own(added.jobs, name);
        if (state !== undefined) setOwn(view.jobs, name, state);
        const mark = own(added.watermarks, name);
        if (mark !== undefined) setOwn(view.watermarks, name, mark);
      }
    }
    registry.syncPart(view, new Set(names));
    const planned = planTick(jobs, view, { now: p.now, lateAt: clock.now() });
    await limitRuns(planned, view, store);
    return planned.idle.concat(planned.runnable);
  };

  /**
   * Of `jobs` (other nodes' jobs, not read yet), those whose newest slot due by `now` has
   * no row: the others were claimed (or recorded) by their owners, and a job whose newest
   * due slot is recorded has nothing left to plan (its watermark reaches it). One probe
   * per job through `store.recorded()`, instead of a read of every job's state; a store
   * without it, or a job whose newest slot is unknown, is read in full.
   */
  const unrecorded = async (jobs: ResolvedJob[], now: number): Promise<ResolvedJob[]> => {
    if (store.recorded === undefined || jobs.length === 0) return jobs;
    const asked: ResolvedJob[] = [];
    const slots: SlotKey[] = [];
    const out: ResolvedJob[] = [];
    for (const job of jobs) {
      const slot = newestDue(job, now);
      if (slot === undefined) out.push(job);
      else {
        asked.push(job);
        slots.push({ job: job.name, slot });
      }
    }
    const recorded = slots.length === 0 ? [] : await store.recorded(slots);
    asked.forEach((job, i) => void (recorded[i] !== true && out.push(job)));
    return out;
  };

  /**
   * The jobs of `window` (other nodes' shares, planned) that another node has not claimed:
   * one probe of each job's newest planned slot (`store.recorded()`), or, without it, a
   * read of their watermarks.
   */
  const openOf = async (window: readonly DueJob[]): Promise<Set<DueJob>> => {
    if (store.recorded === undefined) {
      return unclaimed(window, (await store.read(window.map((d) => d.job.name))).watermarks);
    }
    const recorded = await store.recorded(window.map((d) => ({ job: d.job.name, slot: d.run[d.run.length - 1]! })));
    return new Set(window.filter((_, i) => recorded[i] !== true));
  };

  // Queues what a round won; a turn every QUEUE_CHUNK jobs, so 100 000 won jobs do not hold the loop.
  // Slots of a plan claimed ahead are queued at its slot, or released if the node stops first.
  const queueAll = async (
    draft: ReportDraft,
    won: Map<string, HeldClaim[]>,
    runs: Promise<unknown>[],
    p: Plan,
  ): Promise<void> => {
    if (p.ahead && won.size > 0) {
      await gate(p.now);
      if (halted().aborted) {
        await Promise.all([...won.values()].map((claims) => lease.release(claims)));
        return;
      }
    }
    let n = 0;
    let stopped = false;
    const left: HeldClaim[] = [];
    const group = new RunGroup();
    for (const [name, claims] of won) {
      if (!stopped && ++n % QUEUE_CHUNK === 0) {
        await nextTurn();
        // The node stopped meanwhile and dropped its queue: the rest is let go with it, not
        // queued behind it (where it held the outcome writes back and waited for a start()).
        stopped = halted().aborted;
      }
      if (stopped) {
        left.push(...claims);
        continue;
      }
      const job = registry.get(name);
      // Removed since its claim (a data job undefined while the claim waited for its
      // slot): not run, and let go, not held and renewed for as long as the node lives.
      if (job === undefined) runs.push(lease.release(claims));
      else queueRun(deps, job, claims, draft.job(name), group);
    }
    runs.push(group.close());
    if (left.length > 0) runs.push(lease.release(left));
  };

  return {
    begin(now, due, helpFrom, opts = {}) {
      const helpAt = now + HELP_DELAY_MS + Math.max(0, clock.now() - now);
      plan = newPlan(now, crypto.randomUUID(), due, helpFrom, helpAt, opts);
      // Each job not read may have a slot due: the timer keeps coming back until they are read.
      plan.deferred += plan.unread.length;
    },
    clear() {
      plan = undefined;
    },
    get at() {
      return plan?.now;
    },
    get covered() {
      return covered;
    },
    async round(draft, now, runs, until = Infinity) {
      const p = plan;
      const won = new Map<string, HeldClaim[]>();
      if (p === undefined) return won;
      if (done(p)) {
        finished(p);
        return won;
      }
      // A tick's first round claims this node's own part only: when that is empty it
      // returns at once (slots deferred), and helping waits in a later round, so timer mode
      // re-arms without waiting HELP_DELAY_MS.
      if (p.next >= p.helpFrom && !p.started && clock.now() < p.helpAt) {
        p.started = true;
        noteShare(p);
        draft.report.deferred = Math.max(1, p.deferred);
        return won;
      }
      p.started = true;
      // Batch after batch while the budget lasts; the help phase (other nodes' shares) only
      // in a round of its own, so a tick's first round never waits for it.
      // A node that knows of no other node ticking the minute claims it all at once (in
      // batches): no one else would take what it left. With others it claims at its
      // measured pace, so a node missing from another's list still gets a part of its share.
      // Claimed ahead of its slot (`claimAhead`), a node's own share is claimed whole: its
      // runs start at the slot from the queue, and waiting for capacity would claim the
      // rest after the slot.
      const alone = p.helpFrom >= p.due.length && p.unread.length === 0;
      const ahead = p.ahead && p.now > clock.now();
      for (let first = true;; first = false) {
        // What this round already won is not queued yet: it counts against the budget.
        const budget = alone || ahead ? Infinity : Math.max(0, queue.budget() - won.size);
        if (!first && (budget === 0 || done(p) || p.next >= p.helpFrom)) break;
        // A store that answers from memory would chain every batch in one turn.
        if (!first) await nextTurn();
        let taken;
        try {
          taken = await take(p, now, budget, until);
        } catch (e) {
          p.failed = true;
          await queueAll(draft, won, runs, p);
          return new Error("read failed", { cause: e });
        }
        if (taken === "stop") break;
        for (const { job, planned } of taken.jobs) noteAll(draft.job(job.name), "planned", planned);
        const claimed = await claimBatch(deps, taken.requests as ClaimRequest[], draft);
        if (claimed instanceof Error) {
          // What earlier batches won is held: it runs, and the tick reports the failure.
          p.failed = true;
          await queueAll(draft, won, runs, p);
          return claimed;
        }
        for (const [name, claims] of claimed) won.set(name, claims);
        if (taken.requests.length === 0) break;
      }
      noteShare(p);
      // Runs start once the round's claims are made: runs started between its batches
      // would hold the later claims back (the handlers of a large minute share the event loop).
      await queueAll(draft, won, runs, p);
      if (done(p)) finished(p);
      if (p.deferred > 0) draft.report.deferred = p.deferred;
      return won;
    },
    gate,
    halt(mode) {
      if (mode === false || mode === "stopped") {
        if (mode === false && halting?.signal.aborted === true) halting = undefined;
        if (draining?.signal.aborted === true) draining = undefined;
        return;
      }
      (draining ??= new AbortController()).abort();
      if (mode === "stop") (halting ??= new AbortController()).abort();
    },
  };
}
