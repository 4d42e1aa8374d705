/**
 * The job registry: code jobs, data jobs as last read from the store (each resolved
 * once per stored version, with its webhook handler attached), and per-job counters.
 */
import { SchedulerError, UNSTORABLE } from "../../core/errors.ts";
import type { JobDef, JobState, Store } from "../../store/types.ts";
import { errorText, jobLabel } from "../text.ts";
import { type DataJob, type DataJobResolved, resolveDataJob, type ResolvedJob, resolveJob, withRun } from "./spec.ts";
import type { DataJobSpec, JobCounters, JobPolicy, JobSpec, Logger, RunContext } from "../types.ts";

/**
 * The stored definition of `name`, if any. A name no store can hold (a NUL, a lone
 * surrogate) is no job, not a bad argument of a store call the caller never made.
 */
export function storedDef(store: Store, name: string): Promise<JobDef | undefined> {
  return UNSTORABLE.test(name) ? Promise.resolve(undefined) : store.getDef(name);
}

/** A job that does not run because one of its stored rows cannot be read or resolved. */
export interface BrokenJob {
  name: string;
  source: "code" | "data";
  /** Why, naming the row and the column (or the spec field). */
  reason: string;
  /** The resolved job when only its state is unreadable (a code job, or a data job whose run rows are bad). */
  job: ResolvedJob | undefined;
  /** The stored definition of a data job, as read. */
  def: JobDef | undefined;
}

/** Every job this node knows, by name. */
export interface JobRegistry {
  /** Registers a code job. @throws {SchedulerError} `invalid-spec`, `invalid-name` (also when already registered). */
  addCode(name: string, spec: JobSpec): void;
  /** A code job, else a data job. */
  get(name: string): ResolvedJob | undefined;
  isCode(name: string): boolean;
  /** True when any data-defined job is known (resolved or broken). */
  hasData(): boolean;
  /** The jobs that run: code jobs first, then data jobs not shadowed by a code job; broken jobs are left out. */
  all(): ResolvedJob[];
  /** Every job name to read state for: those of {@link all}, in its order, then the broken ones. */
  names(): string[];
  /**
   * Replaces the data jobs with `snapshot.defs` when given (re-resolving only changed versions) and
   * marks jobs whose stored rows cannot be read broken (logged once per reason): they
   * stop running alone, every other job goes on.
   */
  sync(snapshot: { defs?: readonly JobDef[]; jobs?: Record<string, JobState> }): void;
  /**
   * Like {@link sync}, for a read of some names only (`read(names)`, a page of
   * `listDefs`): a data job named in `covers` and missing from `defs` was deleted; the
   * others are left alone. Costs the names covered, not the registry.
   */
  syncPart(snapshot: { defs: readonly JobDef[]; jobs?: Record<string, JobState> }, covers: ReadonlySet<string>): void;
  /** How many jobs {@link all} returns, without building the list (cached per version). */
  count(): number;
  /** The jobs that do not run because a stored row is unreadable or invalid, by name order. */
  broken(): BrokenJob[];
  /** Resolves one stored definition (handler attached), or logs why it cannot run. */
  resolveDef(def: JobDef): DataJob | undefined;
  /** Sets or removes one data job (after `define()` / `undefine()`). */
  setData(name: string, job: DataJob | undefined): void;
  /** This node's counters for `name`, created on first use. */
  counters(name: string): JobCounters;
  /** Bumped on every change of any job, so caches of derived data know to drop. */
  readonly version: number;
  /** Calls `listener` after each bump of {@link version} (synchronously: batch the work). */
  onChange(listener: () => void): void;
}

/** Creates a registry; `deliver` is the handler every data job gets (webhook delivery). */
export function createJobRegistry(deps: {
  defaults: JobPolicy;
  log: Logger;
  deliver: (job: DataJobResolved, ctx: RunContext) => unknown;
}): JobRegistry {
  const { defaults, log, deliver } = deps;
  const code = new Map<string, ResolvedJob>();
  const data = new Map<string, DataJob>();
  const counters = new Map<string, JobCounters>();
  let version = 0;
  const changeListeners: (() => void)[] = [];
  const bump = (): void => {
    version++;
    for (const listener of changeListeners) listener();
  };
  const { badDefs, badStates, markDef, syncStates } = createBrokenRows(log, bump);

  const resolveDef = (def: JobDef): DataJob | undefined => {
    if (def.broken !== undefined) {
      markDef(def, def.broken);
      return undefined;
    }
    try {
      const job = resolveDataJob(def.name, def.spec as unknown as DataJobSpec, defaults, def);
      markDef(def, undefined);
      // Attached once here, so the run path never comes back to the scheduler for it.
      return withRun(job, (ctx: RunContext): unknown => deliver(job, ctx));
    } catch (e) {
      markDef(def, `its stored definition (version ${def.version}) is invalid: ${errorText(e)}`);
      return undefined;
    }
  };

  // Re-resolves a definition only when its stored version changed.
  const applyDef = (def: JobDef): void => {
    const known = data.get(def.name)?.def ?? badDefs.get(def.name)?.def;
    if (known?.version === def.version && known.updatedAt === def.updatedAt) return;
    const job = resolveDef(def);
    registry.setData(def.name, job);
    if (job !== undefined && code.has(def.name)) {
      log.warn(`${jobLabel(def.name)} is both code- and data-defined; the code job wins on this node`);
    }
  };

  const syncDefs = (defs: readonly JobDef[]): void => {
    const seen = new Set<string>();
    for (const def of defs) {
      seen.add(def.name);
      applyDef(def);
    }
    for (const name of [...data.keys()]) if (!seen.has(name)) registry.setData(name, undefined);
    for (const name of [...badDefs.keys()]) if (!seen.has(name) && badDefs.delete(name)) bump();
  };
  // A read of a few names checks those names only: its cost follows the read, not the registry.
  const syncNamed = (defs: readonly JobDef[], names: ReadonlySet<string>): void => {
    const found = new Map(defs.map((def) => [def.name, def]));
    for (const name of names) {
      const def = found.get(name);
      if (def !== undefined) applyDef(def);
      else {
        if (data.has(name)) registry.setData(name, undefined);
        if (badDefs.delete(name)) bump();
      }
    }
  };
  let counted: { version: number; n: number } | undefined;

  const registry: JobRegistry = {
    addCode(name, spec) {
      const job = resolveJob(name, spec, defaults);
      if (code.has(name)) {
        throw new SchedulerError("invalid-name", `${jobLabel(name)} is already registered`, { path: "name" });
      }
      code.set(name, job);
      registry.counters(name);
      bump();
    },
    get: (name) => code.get(name) ?? data.get(name),
    isCode: (name) => code.has(name),
    hasData: () => data.size > 0 || badDefs.size > 0,
    all() {
      // With no broken state (the usual case) the code jobs are copied whole, not tested one by one.
      const jobs: ResolvedJob[] = badStates.size === 0 ? [...code.values()] : [];
      if (badStates.size > 0) { for (const job of code.values()) if (!badStates.has(job.name)) jobs.push(job); }
      for (const job of data.values()) if (!code.has(job.name) && !badStates.has(job.name)) jobs.push(job);
      return jobs;
    },
    names() {
      const names = [...code.keys()];
      for (const name of data.keys()) if (!code.has(name)) names.push(name);
      for (const name of badDefs.keys()) if (!code.has(name)) names.push(name);
      return names;
    },
    sync(snapshot) {
      if (snapshot.defs !== undefined) syncDefs(snapshot.defs);
      if (snapshot.jobs !== undefined) syncStates(snapshot.jobs);
    },
    syncPart(snapshot, covers) {
      syncNamed(snapshot.defs, covers);
      if (snapshot.jobs !== undefined) syncStates(snapshot.jobs);
    },
    count() {
      if (counted?.version !== version) {
        let n = 0;
        for (const name of code.keys()) if (!badStates.has(name)) n++;
        for (const name of data.keys()) if (!code.has(name) && !badStates.has(name)) n++;
        counted = { version, n };
      }
      return counted.n;
    },
    broken() {
      const out: BrokenJob[] = [];
      for (const [name, reason] of badStates) {
        const job = registry.get(name);
        if (job !== undefined) {
          out.push({ name, source: job.source, reason, job, def: job.source === "data" ? job.def : undefined });
        }
      }
      for (const [name, { def, reason }] of badDefs) {
        if (!code.has(name) && !badStates.has(name)) out.push({ name, source: "data", reason, job: undefined, def });
      }
      return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    resolveDef,
    setData(name, job) {
      if (job === undefined) {
        if (!data.delete(name)) return;
        // Its counters go with it: a job defined again under the name starts from zero.
        if (!code.has(name) && !badDefs.has(name)) counters.delete(name);
        return bump();
      }
      data.set(name, job);
      bump();
    },
    counters(name) {
      let c = counters.get(name);
      if (c === undefined) {
        c = {
          runs: 0,
          ok: 0,
          errors: 0,
          timeouts: 0,
          skipped: 0,
          missed: 0,
          lost: 0,
          abandoned: 0,
          buffered: 0,
          cancelled: 0,
        };
        counters.set(name, c);
      }
      return c;
    },
    get version() {
      return version;
    },
    onChange(listener) {
      changeListeners.push(listener);
    },
  };
  return registry;
}

/**
 * The jobs a bad stored row disables, each logged once per reason: data jobs whose
 * definition cannot be read or resolved, and jobs whose state cannot be read. `changed`
 * runs on every change (the registry's version).
 */
function createBrokenRows(log: Logger, changed: () => void): {
  badDefs: Map<string, { def: JobDef; reason: string }>;
  badStates: Map<string, string>;
  markDef(def: JobDef, reason: string | undefined): void;
  syncStates(jobs: Record<string, JobState>): void;
} {
  const badDefs = new Map<string, { def: JobDef; reason: string }>();
  const badStates = new Map<string, string>();
  const logBroken = (name: string, reason: string): void => {
    log.error(`${jobLabel(name)} is disabled: ${reason}; every other job keeps running`);
  };
  return {
    badDefs,
    badStates,
    markDef(def, reason) {
      const known = badDefs.get(def.name);
      if (reason === undefined) {
        if (known !== undefined && badDefs.delete(def.name)) changed();
        return;
      }
      badDefs.set(def.name, { def, reason });
      if (known?.reason === reason) return;
      logBroken(def.name, reason);
      changed();
    },
    syncStates(jobs) {
      // A loop over keys, not Object.values(): a tick's snapshot holds every job (100 000).
      for (const key in jobs) {
        const state = jobs[key]!;
        if (state.broken === undefined) {
          if (badStates.size > 0 && badStates.delete(state.name)) changed();
          continue;
        }
        const known = badStates.get(state.name);
        if (known === state.broken) continue;
        logBroken(state.name, state.broken);
        badStates.set(state.name, state.broken);
        changed();
      }
    },
  };
}
