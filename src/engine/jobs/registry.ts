/**
 * The job registry: code jobs, data jobs as last read from the store (each resolved
 * once per stored version, with its webhook handler attached), and per-job counters.
 */
import { SchedulerError } from "../../core/errors.ts";
import type { JobDef } from "../../store/types.ts";
import { errorText, jobLabel } from "../text.ts";
import { type DataJob, type DataJobResolved, resolveDataJob, resolveJob, type ResolvedJob } from "./spec.ts";
import type { DataJobSpec, JobCounters, JobPolicy, JobSpec, Logger, RunContext } from "../types.ts";

/** Every job this node knows, by name. */
export interface JobRegistry {
  /** Registers a code job. @throws {SchedulerError} `invalid-spec`, `invalid-name` (also when already registered). */
  addCode(name: string, spec: JobSpec): void;
  /** A code job, else a data job. */
  get(name: string): ResolvedJob | undefined;
  isCode(name: string): boolean;
  /** Code jobs first, then data jobs not shadowed by a code job. */
  all(): ResolvedJob[];
  /** The names of {@link all}, in its order. */
  names(): string[];
  /** Replaces the data jobs with `defs`, re-resolving only changed versions. */
  syncDefs(defs: readonly JobDef[]): void;
  /** Resolves one stored definition (handler attached), or logs why it cannot run. */
  resolveDef(def: JobDef): ResolvedJob | undefined;
  /** Sets or removes one data job (after `define()` / `undefine()`). */
  setData(name: string, job: ResolvedJob | undefined): void;
  /** This node's counters for `name`, created on first use. */
  counters(name: string): JobCounters;
  /** Bumped on every change of any job, so caches of derived data know to drop. */
  readonly version: number;
}

/** Creates a registry; `deliver` is the handler every data job gets (webhook delivery). */
export function createJobRegistry(deps: {
  defaults: JobPolicy;
  log: Logger;
  deliver: (job: DataJobResolved, ctx: RunContext) => unknown;
}): JobRegistry {
  const { defaults, log, deliver } = deps;
  const code = new Map<string, ResolvedJob>();
  const data = new Map<string, ResolvedJob>();
  const counters = new Map<string, JobCounters>();
  let version = 0;

  const resolveDef = (def: JobDef): DataJob | undefined => {
    try {
      const job = resolveDataJob(def.name, def.spec as unknown as DataJobSpec, defaults, def);
      // Attached once here, so the run path never comes back to the scheduler for it.
      return { ...job, run: (ctx: RunContext): unknown => deliver(job, ctx) };
    } catch (e) {
      log.error(`stored definition of ${jobLabel(def.name)} is invalid; it will not run`, { error: errorText(e) });
      return undefined;
    }
  };

  const registry: JobRegistry = {
    addCode(name, spec) {
      const job = resolveJob(name, spec, defaults);
      if (code.has(name)) throw new SchedulerError("invalid-name", `${jobLabel(name)} is already registered`, { path: "name" });
      code.set(name, job);
      registry.counters(name);
      version++;
    },
    get: (name) => code.get(name) ?? data.get(name),
    isCode: (name) => code.has(name),
    all() {
      const jobs = [...code.values()];
      for (const job of data.values()) if (!code.has(job.name)) jobs.push(job);
      return jobs;
    },
    names() {
      const names = [...code.keys()];
      for (const name of data.keys()) if (!code.has(name)) names.push(name);
      return names;
    },
    syncDefs(defs) {
      const seen = new Set<string>();
      for (const def of defs) {
        seen.add(def.name);
        const known = data.get(def.name);
        if (known?.source === "data" && known.def?.version === def.version && known.def?.updatedAt === def.updatedAt) continue;
        const job = resolveDef(def);
        registry.setData(def.name, job);
        if (job !== undefined && code.has(def.name)) {
          log.warn(`${jobLabel(def.name)} is both code- and data-defined; the code job wins on this node`);
        }
      }
      for (const name of [...data.keys()]) if (!seen.has(name)) registry.setData(name, undefined);
    },
    resolveDef,
    setData(name, job) {
      if (job === undefined) {
        if (data.delete(name)) version++;
        return;
      }
      data.set(name, job);
      version++;
    },
    counters(name) {
      let c = counters.get(name);
      if (c === undefined) {
        c = { runs: 0, ok: 0, errors: 0, timeouts: 0, skipped: 0, missed: 0, lost: 0, abandoned: 0 };
        counters.set(name, c);
      }
      return c;
    },
    get version() {
      return version;
    },
  };
  return registry;
}
