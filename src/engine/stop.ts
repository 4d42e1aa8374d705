/** Graceful stop: let runs finish, abort their signals after a grace period, give up at a deadline. */
import type { EngineState } from "./_state.ts";

/**
 * Waits for this node's runs to settle. After `graceMs` every running handler's
 * signal aborts (reason: an `AbortError` "scheduler stopped"); a handler that then
 * rejects is recorded `error` without retry. Resolves when every run has its outcome
 * recorded or `deadlineMs` (from the call) has passed; a run still going then keeps
 * its `running` row, which any node records `abandoned` once its lease ends.
 * While stopping, no retry starts. Never rejects.
 */
export async function stopRuns(state: EngineState, options: { graceMs: number; deadlineMs: number }): Promise<void> {
  if (state.active.size === 0) return;
  const { clock } = state;
  state.stopping = true;
  const graceHandle = clock.setTimeout(() => {
    for (const controller of state.controllers) controller.abort(new DOMException("scheduler stopped", "AbortError"));
  }, options.graceMs);
  let deadlineHandle: unknown;
  const deadline = new Promise<void>((resolve) => {
    deadlineHandle = clock.setTimeout(resolve, Math.max(options.deadlineMs, 0));
  });
  try {
    await Promise.race([Promise.allSettled([...state.active]), deadline]);
  } finally {
    clock.clearTimeout(graceHandle);
    clock.clearTimeout(deadlineHandle);
    state.stopping = false;
  }
}
