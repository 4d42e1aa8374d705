/**
 * Outcome writes with group commit. A write that arrives while another batch is on its
 * way to the store waits and goes with the next one, as ONE `updateMany` (writes that
 * start within a few milliseconds of each other share a transaction, with no timer). A
 * batch that fails falls back to the per-write path: each write retried until the store
 * answers (the lease keeps the claim renewed meanwhile) and read back, so nothing is
 * lost or recorded twice.
 */
import type { AttemptKey, RunPatch, Store } from "../../store/types.ts";
import { errorText, jobLabel } from "../text.ts";
import type { Logger } from "../types.ts";

/** Records final outcomes. */
export interface OutcomeWriter {
  /**
   * Compare-and-set of `patch` on the running row held by `key`: true when recorded,
   * false when the row is no longer that attempt. A failed write is retried while
   * `live()` holds (the claim is still this node's); rejects with the last store error
   * once it does not.
   */
  write(key: AttemptKey, patch: RunPatch, live: () => boolean): Promise<boolean>;
}

interface Pending {
  key: AttemptKey;
  patch: RunPatch;
  live: () => boolean;
  resolve: (recorded: boolean) => void;
  reject: (error: unknown) => void;
}

/** What the writer needs; `maxWaitMs` caps the wait between retries (a heartbeat), so a write lands soon after the store is back. */
export interface OutcomeWriterDeps {
  store: Store;
  log: Logger;
  maxWaitMs: number;
  sleep: (ms: number) => Promise<void>;
}

/** Creates a writer over `store`: batches go as one `updateMany`, single writes as `update`. */
export function createOutcomeWriter(deps: OutcomeWriterDeps): OutcomeWriter {
  const { store } = deps;
  let queue: Pending[] = [];
  let flushing = false;

  const flush = async (): Promise<void> => {
    flushing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      if (batch.length === 1) {
        await Promise.all(batch.map((w) => writeOne(deps, w, false).then(w.resolve, w.reject)));
        continue;
      }
      let results: boolean[] | undefined;
      try {
        results = await store.updateMany(batch.map(({ key, patch }) => ({ key, patch })));
      } catch (e) {
        deps.log.warn(`recording ${batch.length} outcomes in one batch failed; recording them one by one`, {
          error: errorText(e),
        });
      }
      if (results !== undefined) {
        batch.forEach((w, i) => w.resolve(results[i] === true));
        continue;
      }
      // The batch's fate is unknown (it may have landed before its answer was lost): each
      // write reads its row back after a refusal.
      await Promise.all(batch.map((w) => writeOne(deps, w, true).then(w.resolve, w.reject)));
    }
    flushing = false;
  };

  return {
    write(key, patch, live) {
      return new Promise<boolean>((resolve, reject) => {
        queue.push({ key, patch, live, resolve, reject });
        // Writes queued in this turn go together; later ones join the next batch.
        if (!flushing) {
          flushing = true;
          queueMicrotask(() => void flush());
        }
      });
    },
  };
}

/**
 * One outcome write: retried (250 ms, doubling up to `maxWaitMs`) for as long as the
 * claim is live: the node knows the outcome, and giving up would leave a row that ran
 * to be recorded `abandoned`. After a failed write (or a failed batch, `unknown`) the
 * row is read back, since the write may have landed before its answer was lost.
 * Rejects with the last store error once `live()` turns false.
 */
async function writeOne(deps: OutcomeWriterDeps, w: Pending, unknown: boolean): Promise<boolean> {
  const { store, log } = deps;
  const { key, patch } = w;
  let failed = unknown;
  for (let wait = 250;; wait = Math.min(wait * 2, Math.max(250, deps.maxWaitMs))) {
    try {
      if (await store.update(key, patch)) return true;
      if (!failed) return false;
      const row = await store.getRun(key.job, key.slot);
      return row !== undefined && row.status === patch.status && row.attempt === key.attempt && row.node === key.node;
    } catch (e) {
      if (!w.live()) throw e;
      if (!failed) {
        log.warn(`${jobLabel(key.job)}: recording slot ${key.slot} failed; retrying until the store answers`, {
          error: errorText(e),
        });
      }
      failed = true;
      await deps.sleep(wait);
    }
  }
}
