/** History pruning after a tick: at most hourly, never inside the longest catch-up window. */
import type { Store } from "../../store/types.ts";
import { errorText } from "../text.ts";
import type { JobRegistry } from "../jobs/registry.ts";
import type { Logger } from "../types.ts";

const HOUR = 3_600_000;

/**
 * A pruner: call it with each settled tick's `now`. It removes finished runs older than
 * the retention (or the longest catch-up window, if longer) and trims jobs with
 * `maxRows`, at most once an hour. Never rejects: a failure is logged and retried an hour later.
 */
export function createPruner(deps: {
  store: Store;
  registry: JobRegistry;
  log: Logger;
  retentionMs: number;
}): (now: number) => Promise<void> {
  const { store, registry, log } = deps;
  let lastPrune: number | undefined;
  return async (now) => {
    if (lastPrune !== undefined && now - lastPrune < HOUR) return;
    lastPrune = now;
    // A loop, not Math.max(...jobs): a spread of 100 000 arguments risks the call stack.
    let longestWindow = 0;
    for (const job of registry.all()) longestWindow = Math.max(longestWindow, job.catchUp.windowMs);
    try {
      let removed = await store.prune(now - Math.max(deps.retentionMs, longestWindow));
      for (const job of registry.all()) {
        if (job.maxRows !== undefined) removed += await store.pruneRows(job.name, job.maxRows);
      }
      if (removed > 0) log.debug(`pruned ${removed} finished runs`);
    } catch (e) {
      log.warn("pruning run history failed; will retry in an hour", { error: errorText(e) });
    }
  };
}
