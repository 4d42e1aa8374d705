/** `list()` and `get()`: what each job is, when it fires next, and how it went. */
import { allJobs, countersOf, type EngineState, storeCall } from "./_state.ts";
import { syncDefs } from "./data_jobs.ts";
import { redactDef } from "./redact.ts";
import type { ResolvedJob } from "./spec.ts";
import type { JobInfo } from "./types.ts";
import { own } from "../core/own.ts";

/** How many next slots `list()` and `get()` show by default. */
export const DEFAULT_NEXT = 5;

/**
 * Describes `jobs` (default: every job), reading the store once for paused flags and
 * live runs and once for last outcomes. `next` (default 5, at most 100) slots each.
 *
 * @throws {SchedulerError} `store-error` when the store cannot be reached.
 */
export async function describeJobs(
  state: EngineState,
  only: string | undefined,
  next: number = DEFAULT_NEXT,
): Promise<JobInfo[]> {
  const now = state.clock.now();
  const count = Math.max(0, Math.min(100, Math.floor(Number.isFinite(next) ? next : DEFAULT_NEXT)));
  const defs = await storeCall(state, () => state.store.listDefs());
  syncDefs(state, defs);
  const jobs = allJobs(state).filter((j) => only === undefined || j.name === only);
  if (jobs.length === 0) return [];
  const names = jobs.map((j) => j.name);
  const snapshot = await storeCall(state, () => state.store.snapshot(names, now));
  const last = await storeCall(state, () => state.store.lastOutcomes(names));
  return jobs.map((job) => info(state, job, {
    paused: own(snapshot.jobs, job.name)?.paused ?? false,
    runningSince: liveSince(snapshot.running, job.name, now),
    lastOutcome: own(last, job.name),
    next: nextRuns(job, now, count),
  }));
}

function nextRuns(job: ResolvedJob, now: number, count: number): number[] {
  try {
    return job.schedule.nextRuns(now, count);
  } catch {
    return []; // a broken user-supplied Schedule; ticks log it
  }
}

function liveSince(running: { job: string; slot: number; leaseUntil: number | null }[], name: string, now: number): number | undefined {
  const live = running.filter((r) => r.job === name && r.leaseUntil !== null && r.leaseUntil >= now);
  return live.length === 0 ? undefined : Math.min(...live.map((r) => r.slot));
}

function info(
  state: EngineState,
  job: ResolvedJob,
  live: Pick<JobInfo, "paused" | "runningSince" | "lastOutcome" | "next">,
): JobInfo {
  const out: JobInfo = {
    name: job.name,
    source: job.source,
    description: job.description,
    schedule: job.schedule.toString(),
    spec: job.schedule.toJSON(),
    timezone: job.timezone,
    enabled: job.enabled,
    ...live,
    counters: { ...countersOf(state, job.name) },
  };
  if (job.def !== undefined) out.def = redactDef(job.def);
  return out;
}
