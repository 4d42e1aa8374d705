/** The mutable state one scheduler owns, shared by its tick, runner, timer and API parts. */
import { SchedulerError } from "../core/errors.ts";
import type { Store } from "../store/types.ts";
import type { ResolvedJob } from "./spec.ts";
import type { Clock, JobCounters, JobPolicy, Logger, RunContext, SchedulerEvent } from "./types.ts";

/** Everything a scheduler's parts read and update; created once by `createScheduler`. */
export interface EngineState {
  readonly store: Store;
  readonly clock: Clock;
  readonly node: string;
  readonly log: Logger;
  readonly emit: (event: SchedulerEvent) => void;
  readonly defaults: JobPolicy;
  readonly leaseGraceMs: number;
  readonly retentionMs: number;
  /** The handler a job runs: its `run`, or webhook delivery for data-defined jobs. */
  readonly handlerOf: (job: ResolvedJob) => (ctx: RunContext) => unknown;
  readonly code: Map<string, ResolvedJob>;
  /** Data-defined jobs, by name, as last read from the store. */
  readonly data: Map<string, ResolvedJob>;
  readonly counters: Map<string, JobCounters>;
  /** Runs in flight on this node (settle when the slot's outcome is recorded). */
  readonly active: Set<Promise<unknown>>;
  /** Abort controllers of handlers running now; `stop()` aborts them. */
  readonly controllers: Set<AbortController>;
  stopping: boolean;
  storeOk: boolean;
  lastError: string | undefined;
  lastTick: number | undefined;
  lastPrune: number | undefined;
}

/** This node's counters for `job`, created on first use. */
export function countersOf(state: EngineState, job: string): JobCounters {
  let counters = state.counters.get(job);
  if (counters === undefined) {
    counters = { runs: 0, ok: 0, errors: 0, timeouts: 0, skipped: 0, missed: 0, lost: 0, abandoned: 0 };
    state.counters.set(job, counters);
  }
  return counters;
}

/** A code job, else a data job, by name. */
export function findJob(state: EngineState, name: string): ResolvedJob | undefined {
  return state.code.get(name) ?? state.data.get(name);
}

/** Every known job: code jobs first, then data jobs not shadowed by a code job. */
export function allJobs(state: EngineState): ResolvedJob[] {
  const jobs = [...state.code.values()];
  for (const job of state.data.values()) if (!state.code.has(job.name)) jobs.push(job);
  return jobs;
}

/** The names of every known job, in the order of {@link allJobs}. */
export function jobNames(state: EngineState): string[] {
  const names = [...state.code.keys()];
  for (const name of state.data.keys()) if (!state.code.has(name)) names.push(name);
  return names;
}

/** Records a store failure for `health()`. */
export function storeFailed(state: EngineState, error: string): void {
  state.storeOk = false;
  state.lastError = error;
  state.emit({ type: "store-error", error });
}

/** Runs one store call, keeping `health()` in step with how it went; rethrows failures. */
export async function storeCall<T>(state: EngineState, call: () => Promise<T>): Promise<T> {
  try {
    const result = await call();
    state.storeOk = true;
    state.lastError = undefined;
    return result;
  } catch (e) {
    // A refusal the store reasons about (a version conflict, a bad argument) is an answer, not an outage.
    if (!(e instanceof SchedulerError) || e.code === "store-error") storeFailed(state, e instanceof Error ? e.message : String(e));
    throw e;
  }
}

/** Tracks a run until it settles, for `stop()`. */
export function track<T>(state: EngineState, run: Promise<T>): Promise<T> {
  state.active.add(run);
  const done = (): void => {
    state.active.delete(run);
  };
  run.then(done, done);
  return run;
}
