/** Store initialisation, once per scheduler (`scheduler.ready()`), retried after a failure. */
import type { Store } from "../../store/types.ts";
import { warnHistory } from "../jobs/history.ts";
import type { JobRegistry } from "../jobs/registry.ts";
import type { Clock, Logger } from "../types.ts";

/** What initialisation uses: the store, and what the start-up history warning reads. */
export interface InitDeps {
  store: Store;
  registry: JobRegistry;
  clock: Clock;
  log: Logger;
  retentionMs: number;
  /** `historyWarnRows`, resolved. */
  historyWarnRows: number;
}

/**
 * Returns `ready()`: runs `store.init()` (schema creation and migrations) on the first
 * call, then warns when the registered jobs would keep more history than
 * `historyWarnRows`. Later calls share that promise; after a failure the next call tries
 * again, so a store that was down at start is initialised once it is back.
 *
 * @throws {SchedulerError} `store-error` (as a rejection) when the store cannot be initialised.
 */
export function createInit(deps: InitDeps): () => Promise<void> {
  let initialised: Promise<void> | undefined;
  return () =>
    initialised ??= deps.store.init().then(() =>
      warnHistory(deps.registry.all(), deps.clock.now(), deps.retentionMs, deps.historyWarnRows, deps.log)
    ).catch((e: unknown) => {
      initialised = undefined;
      throw e;
    });
}
