/**
 * Runs one claimed slot through its attempts: timeout (aborting the signal), outcome
 * recorded with a compare-and-set `update()`, retries with doubling backoff.
 */
import type { AttemptKey, Outcome } from "../store/types.ts";
import { countersOf, type EngineState, storeFailed } from "./_state.ts";
import { errorText, jobLabel, safeLogger } from "./events.ts";
import type { ResolvedJob } from "./spec.ts";

/**
 * The longest wait before a retry: the longest delay a Web timer honours (about 24.8
 * days). Doubling goes past it after a few dozen retries, and past safe-integer
 * leases soon after.
 */
export const MAX_BACKOFF_MS = 2_147_483_647;

type AttemptResult = { status: "ok" } | { status: "error" | "timeout"; error: string; stopped: boolean };

/**
 * Runs `slot` of `job`, starting at `attempt`, on a row this node already holds as
 * `running`. Resolves with the recorded outcome, or `undefined` when the row was
 * taken away (reaped after its lease) or the store failed, or the scheduler stopped
 * during a retry backoff: the row then stays `running` until its lease ends and any
 * node records it `abandoned` (and re-runs it when retries are left). Never rejects.
 */
export async function runSlot(
  state: EngineState,
  job: ResolvedJob,
  slot: number,
  attempt: number,
): Promise<Outcome | undefined> {
  const { clock, node, store } = state;
  const counters = countersOf(state, job.name);
  try {
    for (let current = attempt;; current++) {
      const key: AttemptKey = { job: job.name, slot, attempt: current, node };
      const started = clock.now();
      state.emit({ type: "started", job: job.name, slot, attempt: current });
      counters.runs++;
      const result = await attemptOnce(state, job, slot, current);
      const now = clock.now();
      if (result.status === "ok") {
        counters.ok++;
        state.emit({ type: "succeeded", job: job.name, slot, attempt: current, durationMs: now - started });
        const recorded = await writeOutcome(state, key, { status: "ok", finishedAt: now, leaseUntil: null, error: null });
        return recorded ? "ok" : undefined;
      }
      const willRetry = current <= job.retries.attempts && !result.stopped && !state.stopping;
      if (result.status === "timeout") {
        counters.timeouts++;
        state.emit({ type: "timed-out", job: job.name, slot, attempt: current, willRetry });
      } else {
        counters.errors++;
        state.emit({ type: "failed", job: job.name, slot, attempt: current, error: result.error, willRetry });
      }
      if (!willRetry) {
        const patch = { status: result.status, finishedAt: now, leaseUntil: null, error: result.error };
        return (await writeOutcome(state, key, patch)) ? result.status : undefined;
      }
      // Retry k waits backoff * 2^(k-1), at most MAX_BACKOFF_MS; the lease covers the wait and the next attempt.
      const delay = Math.min(job.retries.backoffMs * 2 ** (current - 1), MAX_BACKOFF_MS);
      const leaseUntil = now + delay + job.timeoutMs + state.leaseGraceMs;
      if (!(await store.update(key, { attempt: current + 1, leaseUntil, error: result.error }))) return undefined;
      await sleep(state, delay);
      if (state.stopping) return undefined;
      const next: AttemptKey = { ...key, attempt: current + 1 };
      const restart = clock.now();
      const renewed = await store.update(next, { startedAt: restart, leaseUntil: restart + job.timeoutMs + state.leaseGraceMs });
      if (!renewed) return undefined;
    }
  } catch (e) {
    // The row stays `running`; once its lease ends any node records it `abandoned`.
    state.log.error(`${jobLabel(job.name)}: could not record the outcome of slot ${slot}; its lease will expire`);
    storeFailed(state, errorText(e));
    return undefined;
  }
}

type FinalPatch = { status: Outcome; finishedAt: number; leaseUntil: null; error: string | null };

/**
 * Records a run's final outcome. A failed write is retried (250 ms, doubling) for up to
 * the lease grace, which exists for exactly this bookkeeping after the timeout: giving
 * up at once would leave the row `running`, to be reaped and, with retries left,
 * re-run elsewhere although the handler already finished. After a failed write the
 * row is read back, since the write may have landed before its answer was lost.
 * Rejects with the last store error when the grace runs out.
 */
async function writeOutcome(state: EngineState, key: AttemptKey, patch: FinalPatch): Promise<boolean> {
  const deadline = state.clock.now() + state.leaseGraceMs;
  let failed = false;
  for (let wait = 250;; wait *= 2) {
    try {
      if (await state.store.update(key, patch)) return true;
      if (!failed) return false;
      const row = await state.store.getRun(key.job, key.slot);
      return row?.status === patch.status && row.attempt === key.attempt && row.node === key.node;
    } catch (e) {
      if (state.clock.now() + wait > deadline) throw e;
      failed = true;
      state.log.warn(`${jobLabel(key.job)}: recording slot ${key.slot} failed; retrying`, { error: errorText(e) });
      await sleep(state, wait);
    }
  }
}

/** One call of the handler, raced against the timeout. Never rejects. */
function attemptOnce(state: EngineState, job: ResolvedJob, slot: number, attempt: number): Promise<AttemptResult> {
  const { clock } = state;
  const controller = new AbortController();
  state.controllers.add(controller);
  const log = safeLogger(state.log, { job: job.name, slot, attempt });
  const ctx = { job: job.name, slot, attempt, signal: controller.signal, payload: job.payload, log };
  const startedAt = clock.now();
  let settled = false;
  let timedOut = false;

  const handler = state.handlerOf(job);
  const outcome = new Promise<unknown>((resolve) => resolve(handler(ctx)));
  const finished = outcome.then(
    (): AttemptResult => ({ status: "ok" }),
    (e: unknown): AttemptResult => ({
      status: "error",
      error: controller.signal.aborted && !timedOut ? `aborted: scheduler stopped (${errorText(e)})` : errorText(e),
      stopped: controller.signal.aborted && !timedOut,
    }),
  );
  let timer: unknown;
  const timeout = new Promise<AttemptResult>((resolve) => {
    timer = clock.setTimeout(() => {
      timedOut = true;
      const error = `timed out after ${job.timeoutMs}ms`;
      controller.abort(new DOMException(error, "TimeoutError"));
      resolve({ status: "timeout", error, stopped: false });
    }, job.timeoutMs);
  });
  void finished.then(() => {
    settled = true;
  });

  return Promise.race([finished, timeout]).then((result) => {
    clock.clearTimeout(timer);
    state.controllers.delete(controller);
    if (result.status === "timeout") watchStuck(state, job, slot, attempt, startedAt, () => settled, finished);
    return result;
  });
}

/** One `stuck` event when a timed-out handler still has not settled when its lease grace ends. */
function watchStuck(
  state: EngineState,
  job: ResolvedJob,
  slot: number,
  attempt: number,
  since: number,
  isSettled: () => boolean,
  finished: Promise<unknown>,
): void {
  const handle = state.clock.setTimeout(() => {
    if (!isSettled()) state.emit({ type: "stuck", job: job.name, slot, attempt, since });
  }, state.leaseGraceMs);
  void finished.then(() => state.clock.clearTimeout(handle));
}

/** Waits `ms` on the scheduler's clock; wakes early when the scheduler stops. */
function sleep(state: EngineState, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const handle = state.clock.setTimeout(() => {
      state.controllers.delete(wake);
      resolve();
    }, ms);
    const wake = new AbortController();
    wake.signal.addEventListener("abort", () => {
      state.clock.clearTimeout(handle);
      state.controllers.delete(wake);
      resolve();
    });
    state.controllers.add(wake);
  });
}
