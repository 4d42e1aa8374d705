/**
 * A tick's plan, as a pure function of the jobs and the store's snapshot: which slots
 * each due job claims as `running` and which it records `missed`, in the order this
 * node claims them. The tick then claims the plan in rounds sized by its free capacity
 * (`takeRound`), from this one plan: a later round re-reads nothing, since the store's
 * claim decides every slot anyway.
 */
import { own } from "../../core/own.ts";
import type { ClaimRequest, TickSnapshot } from "../../store/types.ts";
import { type PlanInput, planSlots } from "./plan.ts";
import { startOf } from "./jitter.ts";
import { spread, type SpreadInput } from "./spread.ts";
import { keepShape } from "../../core/kept.ts";
import type { ResolvedJob } from "../jobs/spec.ts";

/** What `planTick` needs besides the jobs and the snapshot. */
export interface TickPlanInput {
  now: number;
  /** The clock's time, when later than `now` (a late trigger): `catchUp: "none"` measures lateness at it. */
  lateAt?: number;
}

/** One due job: the slots it claims to run and to record `missed`, each ascending. */
export interface DueJob {
  job: ResolvedJob;
  run: readonly number[];
  missed: readonly number[];
}

/** One job's planned slots. */
export interface JobPlan {
  job: ResolvedJob;
  /** Every slot planned (missed and run), ascending. */
  planned: readonly number[];
}

/** The tick's plan, in job order (see `claimOrder`). */
export interface TickPlan {
  /** Due jobs with only `missed` slots: they cost no capacity. */
  idle: DueJob[];
  /** Due jobs with slots to run. */
  runnable: DueJob[];
  /** Schedules that threw (a user-supplied Schedule object) and catch-up windows too long to plan. */
  warnings: { job: string; error?: string; dropped?: number }[];
}

/**
 * Plans every enabled job known to the snapshot: one pass over the jobs, whatever the
 * node's capacity (rounds take from the plan; see `takeRound`).
 *
 * @example planTick(jobs, snapshot, { now })
 */
export function planTick(jobs: readonly ResolvedJob[], snapshot: TickSnapshot, input: TickPlanInput): TickPlan {
  const { now } = input;
  const warnings: TickPlan["warnings"] = [];
  const idle: DueJob[] = [];
  const runnable: DueJob[] = [];
  const at = scratch;
  at.now = now;
  at.lateAt = input.lateAt;
  for (const job of jobs) {
    const js = own(snapshot.jobs, job.name);
    if (!job.enabled || js === undefined) continue;
    let slots;
    try {
      at.schedule = job.schedule;
      at.catchUp = job.catchUp;
      at.watermark = own(snapshot.watermarks, job.name);
      at.firstSeen = js.firstSeen;
      at.paused = js.paused;
      // No spread per job: a large minute plans thousands.
      at.startOf = job.jitterMs > 0 ? (slot: number) => startOf(job, slot) : undefined;
      slots = planSlots(at);
    } catch (e) {
      // Only a user-supplied Schedule object can throw; it must not stop the other jobs.
      warnings.push({ job: job.name, error: e instanceof Error ? e.message : String(e) });
      continue;
    }
    if (slots.dropped > 0) warnings.push({ job: job.name, dropped: slots.dropped });
    if (slots.run.length + slots.missed.length === 0) continue;
    (slots.run.length > 0 ? runnable : idle).push({ job, run: slots.run, missed: slots.missed });
  }
  at.schedule = at.catchUp = at.startOf = undefined!;
  return { idle, runnable, warnings };
}

// One of each shape a tick's plan and rounds make, kept: they are gone before the next
// tick, and the planning and claiming code optimised for them with them (`core/kept.ts`).
// The values are of the kinds a tick's are (epoch milliseconds are not small integers).
keepShape<TickPlanInput>({ now: 0.5, lateAt: 0.5 });
keepShape<TickPlan>({ idle: [], runnable: [], warnings: [] });
// A round of a one-job plan with a slot missed and one to run, taken by takeRound itself:
// it keeps the due job, the job plan, the round and both shapes of claim request.
const KEPT_JOB = { name: "", overlap: "allow", bufferLimit: 1, maxRuns: undefined } as unknown as ResolvedJob;
const KEPT_DUE: DueJob[] = [{ job: KEPT_JOB, run: [0.5], missed: [0.25] }];
keepShape([KEPT_DUE, takeRound(KEPT_DUE, 0, { now: 0.5, node: "", batch: "", capacity: 1, leaseUntil: () => 0.5 })]);

/**
 * The one input planTick gives planSlots, set field by field for each job (planSlots keeps
 * none of it): a literal per job had a hidden class that died between two minutes, and the
 * planning code optimised for it with it (`core/kept.ts`).
 */
const scratch: PlanInput = {
  schedule: undefined!,
  catchUp: undefined!,
  now: 0.5,
  watermark: undefined,
  firstSeen: 0.5,
  paused: false,
  startOf: undefined,
  lateAt: undefined,
};

/**
 * The plan in claim order: jobs with nothing to run first (they cost no capacity), then
 * this node's rendezvous share of the runnable ones, then the others' (`spreadOrder`),
 * over `input.nodes` and the nodes whose leases are live in the snapshot.
 *
 * @example claimOrder(plan, snapshot, now, { node: "n1", nodes: ["n2"], offset: 0 })
 */
export function claimOrder(plan: TickPlan, snapshot: TickSnapshot, now: number, input: SpreadInput): ClaimOrder {
  const nodes = [...input.nodes];
  for (const row of snapshot.running) if (row.leaseUntil !== null && row.leaseUntil >= now) nodes.push(row.node);
  const { order, own } = spread(plan.runnable, (d) => d.job.name, { ...input, nodes });
  return { due: plan.idle.concat(order), helpFrom: plan.idle.length + own };
}

/** Due jobs in claim order, and where helping with other nodes' shares begins. */
export interface ClaimOrder {
  due: DueJob[];
  /** Index in `due` of the first job of another node's share (`due.length` when alone). */
  helpFrom: number;
}

/**
 * The jobs of `window` that still have a slot to run with no row: a job whose newest
 * recorded slot (`watermarks`, from a read-only `store.read`) reaches its newest planned
 * slot was claimed by another node meanwhile.
 */
export function unclaimed(window: readonly DueJob[], watermarks: Readonly<Record<string, number>>): Set<DueJob> {
  const out = new Set<DueJob>();
  for (const d of window) {
    const mark = own(watermarks, d.job.name);
    if (mark === undefined || mark < d.run[d.run.length - 1]!) out.add(d);
  }
  return out;
}

/** What one round claims and how much of the plan it leaves. */
export interface Round {
  /** One claim batch, in plan order. */
  requests: ClaimRequest[];
  /** Jobs with slots in `requests`. */
  jobs: JobPlan[];
  /** Index in the plan's `due` of the first job left for a later round. */
  next: number;
  /** Slots to run of the jobs this round went past (claimed, or dropped as no longer current). */
  passed: number;
}

/** What a round needs to know to build its requests. */
export interface RoundInput {
  now: number;
  /** Index in the plan where this round stops at the latest (default: the end). */
  until?: number;
  node: string;
  batch: string;
  /** How many more runs this node may take on (a job's slots run one after another: one run). */
  capacity: number;
  /** The lease end of a `running` request of `job`. */
  leaseUntil: (job: ResolvedJob) => number;
  /** False for a job that must not be claimed from this plan any more (removed or changed since). */
  current?: (job: ResolvedJob) => boolean;
  /** When given, only these due jobs are claimed; the others are passed (another node claimed them). */
  open?: ReadonlySet<DueJob> | undefined;
}

/**
 * The next round of a plan: from `due[from]` on, every job until `capacity` jobs with
 * slots to run are taken. Its cost is what it claims: it never looks at the jobs past it.
 *
 * @example takeRound(plan.due, 0, { now, node, batch, capacity: 200, leaseUntil: () => now + 15_000 })
 */
export function takeRound(due: readonly DueJob[], from: number, input: RoundInput): Round {
  const { now, node, batch } = input;
  const requests: ClaimRequest[] = [];
  const jobs: JobPlan[] = [];
  let free = input.capacity;
  let passed = 0;
  let i = from;
  const end = Math.min(due.length, input.until ?? due.length);
  for (; i < end; i++) {
    const { job, run, missed } = due[i]!;
    if (run.length > 0) {
      if (free === 0) break;
      passed += run.length;
      if (input.open !== undefined && !input.open.has(due[i]!)) continue;
      if (input.current !== undefined && !input.current(job)) continue;
      free--;
    }
    const { name, overlap, bufferLimit, maxRuns } = job;
    const leaseUntil = input.leaseUntil(job);
    // Request literals, not a spread of a shared base: a spread copies key by key per slot.
    for (const slot of missed) {
      requests.push({
        job: name,
        kind: "scheduled",
        node,
        batch,
        now,
        overlap,
        slot,
        status: "missed",
        leaseUntil: now,
      });
    }
    for (const slot of run) {
      requests.push({
        job: name,
        kind: "scheduled",
        node,
        batch,
        now,
        overlap,
        slot,
        status: "running",
        leaseUntil,
        bufferLimit,
        maxRuns,
      });
    }
    jobs.push({ job, planned: ascending(missed, run) });
  }
  return { requests, jobs, next: i, passed };
}

/** Slots to run in `due` from `from` on. */
export function slotsToRun(due: readonly DueJob[], from: number): number {
  let n = 0;
  for (let i = from; i < due.length; i++) n += due[i]!.run.length;
  return n;
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
