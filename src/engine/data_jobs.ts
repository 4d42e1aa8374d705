/** Data-defined jobs: kept in step with the store's definitions, delivered as webhooks. */
import type { JobDef } from "../store/types.ts";
import type { EngineState } from "./_state.ts";
import { errorText, jobLabel } from "./events.ts";
import { resolveDataJob, type ResolvedJob } from "./spec.ts";
import type { DataJobSpec } from "./types.ts";

/**
 * Replaces the state's data jobs with `defs`, re-validating only definitions whose
 * version changed. A stored definition that no longer validates is logged and left
 * out (it cannot run), never thrown.
 */
export function syncDefs(state: EngineState, defs: readonly JobDef[]): void {
  const seen = new Set<string>();
  for (const def of defs) {
    seen.add(def.name);
    const known = state.data.get(def.name);
    if (known?.def?.version === def.version && known.def.updatedAt === def.updatedAt) continue;
    const job = resolveDef(state, def);
    if (job === undefined) state.data.delete(def.name);
    else state.data.set(def.name, job);
    if (job !== undefined && state.code.has(def.name)) {
      state.log.warn(`${jobLabel(def.name)} is both code- and data-defined; the code job wins on this node`);
    }
  }
  for (const name of [...state.data.keys()]) if (!seen.has(name)) state.data.delete(name);
}

/** Resolves one stored definition, or logs why it cannot run. */
export function resolveDef(state: EngineState, def: JobDef): ResolvedJob | undefined {
  try {
    return resolveDataJob(def.name, def.spec as unknown as DataJobSpec, state.defaults, def);
  } catch (e) {
    state.log.error(`stored definition of ${jobLabel(def.name)} is invalid; it will not run`, { error: errorText(e) });
    return undefined;
  }
}
