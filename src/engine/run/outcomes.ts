/**
 * Outcome writes with group commit. A write that arrives while another batch is on its
 * way to the store waits and goes with the next one, as ONE `updateMany` (writes that
 * start within a few milliseconds of each other share a transaction, with no timer).
 * While the node is starting a large minute (runs waiting in its queue: `hold()`),
 * batches wait too, at most `HOLD_MS` from the oldest write, so a minute's outcomes go
 * in a few large transactions after its claims and starts instead of dozens between
 * them (each one a write lock the other nodes' claims queue behind, and, on an embedded
 * database, a stretch of the event loop the waiting runs do not start in). A batch is
 * at most `MAX_HELD` writes: more go as several, one after another. A held outcome is
 * no less safe than one in flight: its claim stays renewed until it lands, and if the
 * node dies first the row's lease ends and it is recorded `abandoned`, as for any run
 * whose outcome was not written. A batch that fails falls back to the per-write path:
 * each write retried until the store answers (the lease keeps the claim renewed
 * meanwhile) and read back, so nothing is lost or recorded twice.
 */
import type { AttemptKey, RunPatch, Store } from "../../store/types.ts";
import { errorText, jobLabel } from "../text.ts";
import { landedOf } from "../../store/_landed.ts";
import type { Clock, Logger } from "../types.ts";

/** The longest a held write waits for the hold to end. */
export const HOLD_MS = 1_000;
/** The most writes one batch takes (one statement's size stays bounded): more go as several. */
export const MAX_HELD = 2_000;

/**
 * One outcome write as the writer holds it until it ends: its row, its patch, and who
 * hears how it ended. A run of a large minute is its own pending write (`runs.ts`): no
 * promise, resolver or closure per run waits for the group commit.
 */
export interface PendingWrite {
  readonly key: AttemptKey;
  readonly patch: RunPatch;
  /** Whether a failed write is still retried: the claim is still this node's. */
  live(): boolean;
  /** The write ended: true when recorded, false when the row is no longer that attempt. */
  recorded(recorded: boolean): void;
  /** The store failed for good, once `live()` turned false. */
  failed(error: unknown): void;
}

/** Records final outcomes. */
export interface OutcomeWriter {
  /**
   * Compare-and-set of `patch` on the running row held by `key`: true when recorded,
   * false when the row is no longer that attempt. A failed write is retried while
   * `live()` holds (the claim is still this node's); rejects with the last store error
   * once it does not.
   */
  write(key: AttemptKey, patch: RunPatch, live: () => boolean): Promise<boolean>;
  /** {@link write} heard through `pending` itself, which is called once, never within this call. */
  send(pending: PendingWrite): void;
  /**
   * Holds batches back until the returned release is called (holds nest; the last release
   * sends what waits, `MAX_HELD` writes a batch), for at most `HOLD_MS` per write.
   */
  hold(): () => void;
  /**
   * Writes waiting out a retry's wait try again now; resolves once each of them has tried
   * (whatever the store answered). A tick calls it first: after a lock or an outage, the
   * row of a run that ended meanwhile read `running` to the tick's overlap check until
   * the retry's wait (up to a heartbeat) was over, and the job's next slots were skipped.
   */
  retryNow(): Promise<void>;
}

/** The writes waiting out a retry's wait, and the signal that ends every wait at once. */
interface Retries {
  /** Made on first use: workerd refuses an `AbortController` made at global scope, where a Worker may make its scheduler. */
  alarm: AbortController | undefined;
  /** Resolves once the waiting write has tried again (its next attempt answered or failed). */
  waiting: Set<Promise<void>>;
}

/** The longest a tick waits for the outcome writes it retried. */
const RETRY_NOW_MAX_WAIT_MS = 1_000;

/** Hears a write's end, guarded: one listener that throws must not leave the rest of its batch unheard. */
function hear(log: Logger, w: PendingWrite, recorded: boolean): void {
  try {
    w.recorded(recorded);
  } catch (e) {
    log.error(`recording the outcome of ${jobLabel(w.key.job)} failed after it landed`, { error: errorText(e) });
  }
}

/**
 * Hears that a write failed for good, guarded as {@link hear}: a listener that threw here
 * rejected the flush, which nothing awaits (an unhandled rejection ends a Node process).
 */
function hearFailure(log: Logger, w: PendingWrite, error: unknown): void {
  try {
    w.failed(error);
  } catch (e) {
    log.error(`giving up the outcome of ${jobLabel(w.key.job)} failed`, { error: errorText(e) });
  }
}

/** What the writer needs; `maxWaitMs` caps the wait between retries (a heartbeat), so a write lands soon after the store is back. */
export interface OutcomeWriterDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  maxWaitMs: number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Creates a writer over `store`: batches go as one `updateMany`, single writes as `update`. */
export function createOutcomeWriter(deps: OutcomeWriterDeps): OutcomeWriter {
  const { store, clock } = deps;
  let queue: PendingWrite[] = [];
  /** When the oldest write of `queue` arrived. */
  let since = 0;
  let flushing = false;
  let holds = 0;
  let timer: unknown;
  const retries: Retries = { alarm: undefined, waiting: new Set() };

  /** Sends the next batch now, or arms the timer for when a hold stops keeping it back. */
  const schedule = (): void => {
    if (flushing || queue.length === 0) return;
    const waited = clock.now() - since;
    if (holds > 0 && waited < HOLD_MS) {
      timer ??= clock.setTimeout(() => {
        timer = undefined;
        schedule();
      }, HOLD_MS - waited);
      return;
    }
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    flushing = true;
    // Writes queued in this turn go together; later ones join the next batch.
    queueMicrotask(() => void flush().finally(schedule));
  };

  const flush = async (): Promise<void> => {
    const batch = queue.length <= MAX_HELD ? queue : queue.slice(0, MAX_HELD);
    // The rest (older than any write to come) goes next, as soon as this batch is done.
    queue = queue.length <= MAX_HELD ? [] : queue.slice(MAX_HELD);
    try {
      if (batch.length === 1) {
        const w = batch[0]!;
        await writeOne(deps, retries, w, false).then(
          (recorded) => hear(deps.log, w, recorded),
          (e) => hearFailure(deps.log, w, e),
        );
        return;
      }
      let results: readonly boolean[] | undefined;
      let landed: readonly boolean[] = [];
      try {
        results = await store.updateMany(batch.map(({ key, patch }) => ({ key, patch })));
      } catch (e) {
        // A store that split the group says which of its first writes committed.
        landed = (landedOf(e) ?? []).slice(0, batch.length);
        deps.log.warn(
          `recording ${batch.length} outcomes in one batch failed${
            landed.length > 0 ? ` after ${landed.length} were recorded` : ""
          }; recording the rest one by one`,
          { error: errorText(e) },
        );
      }
      if (results !== undefined) {
        for (let i = 0; i < batch.length; i++) hear(deps.log, batch[i]!, results[i] === true);
        return;
      }
      landed.forEach((recorded, i) => hear(deps.log, batch[i]!, recorded));
      // The rest's fate is unknown (it may have landed before its answer was lost): each
      // write reads its row back after a refusal.
      const rest = batch.slice(landed.length);
      await Promise.all(
        rest.map((w) =>
          writeOne(deps, retries, w, true).then(
            (recorded) => hear(deps.log, w, recorded),
            (e) => hearFailure(deps.log, w, e),
          )
        ),
      );
    } finally {
      flushing = false;
    }
  };

  const send = (pending: PendingWrite): void => {
    if (queue.length === 0) since = clock.now();
    queue.push(pending);
    schedule();
  };

  return {
    write(key, patch, live) {
      return new Promise<boolean>((recorded, failed) => send({ key, patch, live, recorded, failed }));
    },
    send,
    hold() {
      holds++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds--;
        if (holds === 0) schedule();
      };
    },
    retryNow() {
      if (retries.waiting.size === 0) return Promise.resolve();
      const tried = [...retries.waiting];
      retries.alarm?.abort();
      retries.alarm = undefined;
      // Bounded: a retry that does not answer (a row lock held elsewhere, a hung call) must
      // not hold every tick of the node for the store's timeout, or for ever.
      let timer: unknown;
      const bound = new Promise<void>((resolve) => (timer = deps.clock.setTimeout(resolve, RETRY_NOW_MAX_WAIT_MS)));
      return Promise.race([Promise.all(tried), bound]).then(() => deps.clock.clearTimeout(timer));
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
async function writeOne(
  deps: OutcomeWriterDeps,
  retries: Retries,
  w: PendingWrite,
  unknown: boolean,
): Promise<boolean> {
  const { store, log } = deps;
  const { key, patch } = w;
  let failed = unknown;
  /** Ends `retryNow()`'s wait for this write once its next attempt has answered. */
  let tried: (() => void) | undefined;
  for (let wait = 250;; wait = Math.min(wait * 2, Math.max(250, deps.maxWaitMs))) {
    try {
      const recorded = await attempt(store, key, patch, failed);
      tried?.();
      return recorded;
    } catch (e) {
      tried?.();
      if (!w.live()) throw e;
      if (!failed) {
        log.warn(
          `${jobLabel(key.job)}: recording slot ${
            new Date(key.slot).toISOString()
          } failed; retrying until the store answers`,
          { error: errorText(e) },
        );
      }
      failed = true;
      const next = new Promise<void>((resolve) => (tried = resolve));
      retries.waiting.add(next);
      await deps.sleep(wait, (retries.alarm ??= new AbortController()).signal);
      retries.waiting.delete(next);
    }
  }
}

/** One try of an outcome write; after a failure (`readBack`) a refusal is checked against the row. */
async function attempt(store: Store, key: AttemptKey, patch: RunPatch, readBack: boolean): Promise<boolean> {
  if (await store.update(key, patch)) return true;
  if (!readBack) return false;
  const row = await store.getRun(key.job, key.slot);
  return row !== undefined && row.status === patch.status && row.attempt === key.attempt && row.node === key.node;
}
