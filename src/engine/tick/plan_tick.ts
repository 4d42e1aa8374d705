/**
 * A tick's plan, as a pure function of the jobs, the store's snapshot and the node's
 * free capacity: which slots to claim as `running`, which to record `missed`, and
 * which to leave for other nodes.
 */
import { own } from "../../core/own.ts";
import type { ClaimRequest, TickSnapshot } from "../../store/types.ts";
import { planSlots } from "./plan.ts";
import { startOf } from "./jitter.ts";
import type { ResolvedJob } from "../jobs/spec.ts";

/** What `planTick` needs besides the jobs and the snapshot. */
export interface TickPlanInput {
  now: number;
  node: string;
  /** The claim batch id. */
  batch: string;
  /** The lease end of a `running` request of `job`. */
  leaseUntil: (job: ResolvedJob) => number;
  /** How many more runs this node may take on (a job's slots run one after another: one run). */
  capacity: number;
  /** Where to start in the job list when capacity runs short (spreads nodes over different jobs). */
  offset: number;
}

/** One job's planned slots. */
export interface JobPlan {
  job: ResolvedJob;
  /** Every slot planned (missed and run), ascending. */
  planned: readonly number[];
}

/** The tick's plan. */
export interface TickPlan {
  /** One claim batch, in job order. */
  requests: ClaimRequest[];
  /** Jobs with slots in `requests`. */
  jobs: JobPlan[];
  /** Slots due to run that this node leaves unclaimed (capacity: jobs past it are left whole). */
  deferred: number;
  /** Schedules that threw (a user-supplied Schedule object) and catch-up windows too long to plan. */
  warnings: { job: string; error?: string; dropped?: number }[];
}

/**
 * Plans every enabled job known to the snapshot. With more jobs due to run than
 * `capacity`, jobs are taken from `offset` on until the capacity is used; the rest are
 * `deferred`, whole (no request: the next tick, on any node, plans them again).
 *
 * @example planTick(jobs, snapshot, { now, node, batch, leaseUntil: () => now + 15_000, capacity: 500, offset: 0 })
 */
export function planTick(jobs: readonly ResolvedJob[], snapshot: TickSnapshot, input: TickPlanInput): TickPlan {
  const { now, node, batch } = input;
  const plan: TickPlan = { requests: [], jobs: [], deferred: 0, warnings: [] };
  const due: { job: ResolvedJob; run: number[]; missed: number[] }[] = [];
  let runs = 0; // jobs with a slot to run: each is one run in flight
  for (const job of jobs) {
    const js = own(snapshot.jobs, job.name);
    if (!job.enabled || js === undefined) continue;
    let slots;
    try {
      slots = planSlots({
        schedule: job.schedule,
        catchUp: job.catchUp,
        now,
        watermark: own(snapshot.watermarks, job.name),
        firstSeen: js.firstSeen,
        paused: js.paused,
        ...(job.jitterMs > 0 ? { startOf: (slot: number) => startOf(job, slot) } : {}),
      });
    } catch (e) {
      // Only a user-supplied Schedule object can throw; it must not stop the other jobs.
      plan.warnings.push({ job: job.name, error: e instanceof Error ? e.message : String(e) });
      continue;
    }
    if (slots.dropped > 0) plan.warnings.push({ job: job.name, dropped: slots.dropped });
    if (slots.run.length + slots.missed.length === 0) continue;
    due.push({ job, run: slots.run, missed: slots.missed });
    if (slots.run.length > 0) runs++;
  }

  let free = input.capacity;
  const start = runs > free && due.length > 0 ? input.offset % due.length : 0;
  for (let k = 0; k < due.length; k++) {
    const { job, run, missed } = due[(start + k) % due.length]!;
    if (run.length > 0) {
      if (free === 0) {
        plan.deferred += run.length;
        continue;
      }
      free--;
    }
    const { name, overlap, bufferLimit } = job;
    const leaseUntil = input.leaseUntil(job);
    // Request literals, not a spread of a shared base: a spread copies key by key per slot.
    for (const slot of missed) {
      plan.requests.push({ job: name, kind: "scheduled", node, batch, now, overlap, slot, status: "missed", leaseUntil: now });
    }
    for (const slot of run) {
      plan.requests.push({ job: name, kind: "scheduled", node, batch, now, overlap, slot, status: "running", leaseUntil, bufferLimit });
    }
    plan.jobs.push({ job, planned: ascending(missed, run) });
  }
  return plan;
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
