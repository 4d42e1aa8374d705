/** Store initialisation, once per scheduler (`scheduler.ready()`), retried after a failure. */
import type { Store } from "../../store/types.ts";
import { warnHistory } from "../jobs/history.ts";
import type { JobRegistry } from "../jobs/registry.ts";
import { errorText } from "../text.ts";
import { storeErrorLine } from "../events.ts";
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

/** Store initialisation: `ready()`, and how many of its last attempts failed in a row. */
export interface Init {
  /**
   * Runs `store.init()` (schema creation and migrations) on the first call, then warns
   * when the registered jobs would keep more history than `historyWarnRows`. Later calls
   * share that promise; after a failure the next call tries again, so a store that was
   * down at start is initialised once it is back.
   *
   * @throws {SchedulerError} `store-error` (as a rejection) when the store cannot be initialised.
   */
  ready(): Promise<void>;
  /** Failed attempts since the last success (0 once initialised). */
  readonly failures: number;
}

/** How long timer mode waits to try init again after `failures` failed attempts in a row: 1 s, doubling, at most 60 s. */
export function initRetryMs(failures: number): number {
  return failures === 0 ? 0 : Math.min(60_000, 1_000 * 2 ** Math.min(failures - 1, 6));
}

/**
 * Creates the store's initialisation. Its failures are logged here, not per attempt: the
 * first, a changed error, and then the 2nd, 4th, 8th... of a streak (a store down for an
 * hour logged one line per timer wake); a success after failures says so once.
 *
 * @example const { ready } = createInit({ store, registry, clock, log, retentionMs, historyWarnRows: 100_000 })
 */
export function createInit(deps: InitDeps): Init {
  let initialised: Promise<void> | undefined;
  let failures = 0;
  let lastError: string | undefined;
  const failed = (e: unknown): void => {
    const error = errorText(e);
    failures += 1;
    const news = error !== lastError || (failures & (failures - 1)) === 0;
    lastError = error;
    if (!news) return;
    const streak = failures === 1 ? "" : ` (init failed ${failures} times in a row; retried with back-off)`;
    deps.log.error(storeErrorLine(error) + streak);
  };
  const succeeded = (): void => {
    if (failures > 0) deps.log.info(`store initialised after ${failures} failed attempts`);
    failures = 0;
    lastError = undefined;
  };
  return {
    ready: () =>
      initialised ??= deps.store.init().then(() => {
        succeeded();
        warnHistory(deps.registry.all(), deps.clock.now(), deps.retentionMs, deps.historyWarnRows, deps.log);
      }).catch((e: unknown) => {
        initialised = undefined;
        failed(e);
        throw e;
      }),
    get failures() {
      return failures;
    },
  };
}
