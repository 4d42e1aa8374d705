/**
 * Outcome writes with group commit. A write that arrives while another batch is on its
 * way to the store waits and goes with the next one, as ONE `updateMany` (writes that
 * start within a few milliseconds of each other share a transaction, with no timer). A
 * batch that fails falls back to the per-write path: each write retried for up to the
 * lease grace and read back, so nothing is lost or recorded twice.
 */
import type { AttemptKey, RunPatch, Store } from "../../store/types.ts";
import { errorText, jobLabel } from "../text.ts";
import type { Clock, Logger } from "../types.ts";

/** Records final outcomes. */
export interface OutcomeWriter {
  /**
   * Compare-and-set of `patch` on the running row held by `key`: true when recorded,
   * false when the row is no longer that attempt. Rejects with the last store error
   * once the lease grace has run out.
   */
  write(key: AttemptKey, patch: RunPatch): Promise<boolean>;
}

interface Pending {
  key: AttemptKey;
  patch: RunPatch;
  resolve: (recorded: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Creates a writer over `store` (its `updateMany` when it has one; one `update` per
 * write otherwise). `graceMs` bounds the per-write retries.
 */
export function createOutcomeWriter(deps: { store: Store; clock: Clock; log: Logger; graceMs: number; sleep: (ms: number) => Promise<void> }): OutcomeWriter {
  const { store } = deps;
  let queue: Pending[] = [];
  let flushing = false;

  const flush = async (): Promise<void> => {
    flushing = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      if (batch.length === 1 || typeof store.updateMany !== "function") {
        await Promise.all(batch.map((w) => writeOne(deps, w.key, w.patch, false).then(w.resolve, w.reject)));
        continue;
      }
      let results: boolean[] | undefined;
      try {
        results = await store.updateMany(batch.map(({ key, patch }) => ({ key, patch })));
      } catch (e) {
        deps.log.warn(`recording ${batch.length} outcomes in one batch failed; recording them one by one`, { error: errorText(e) });
      }
      if (results !== undefined) {
        batch.forEach((w, i) => w.resolve(results[i] === true));
        continue;
      }
      // The batch's fate is unknown (it may have landed before its answer was lost): each
      // write reads its row back after a refusal.
      await Promise.all(batch.map((w) => writeOne(deps, w.key, w.patch, true).then(w.resolve, w.reject)));
    }
    flushing = false;
  };

  return {
    write(key, patch) {
      return new Promise<boolean>((resolve, reject) => {
        queue.push({ key, patch, resolve, reject });
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
 * One outcome write: retried (250 ms, doubling) for up to the lease grace, which exists
 * for exactly this bookkeeping after the timeout. After a failed write (or a failed
 * batch, `unknown`) the row is read back, since the write may have landed before its
 * answer was lost. Rejects with the last store error when the grace runs out.
 */
async function writeOne(
  deps: { store: Store; clock: Clock; log: Logger; graceMs: number; sleep: (ms: number) => Promise<void> },
  key: AttemptKey,
  patch: RunPatch,
  unknown: boolean,
): Promise<boolean> {
  const { store, clock, log } = deps;
  const deadline = clock.now() + deps.graceMs;
  let failed = unknown;
  for (let wait = 250;; wait *= 2) {
    try {
      if (await store.update(key, patch)) return true;
      if (!failed) return false;
      const row = await store.getRun(key.job, key.slot);
      return row !== undefined && row.status === patch.status && row.attempt === key.attempt && row.node === key.node;
    } catch (e) {
      if (clock.now() + wait > deadline) throw e;
      failed = true;
      log.warn(`${jobLabel(key.job)}: recording slot ${key.slot} failed; retrying`, { error: errorText(e) });
      await deps.sleep(wait);
    }
  }
}
