/** Graceful stop: let runs finish, abort their signals after a grace period, give up at a deadline. */
import type { RunTracker } from "./tracker.ts";
import type { Clock } from "../types.ts";

/**
 * Waits for this node's runs to settle. After `graceMs` every running handler's
 * signal aborts (reason: an `AbortError` "scheduler stopped"); a handler that then
 * rejects is recorded `error` without retry. Resolves when every run has its outcome
 * recorded or `deadlineMs` (from the call) has passed; a run still going then keeps
 * its `running` row, which any node records `abandoned` once its lease ends.
 * While stopping, no retry starts. Never rejects.
 */
export async function stopRuns(
  tracker: RunTracker,
  clock: Clock,
  options: { graceMs: number; deadlineMs: number },
): Promise<void> {
  const active = tracker.active();
  if (active.length === 0) return;
  tracker.stopping = true;
  const graceHandle = clock.setTimeout(() => {
    for (const controller of tracker.controllers) controller.abort(new DOMException("scheduler stopped", "AbortError"));
  }, options.graceMs);
  let deadlineHandle: unknown;
  const deadline = new Promise<void>((resolve) => {
    deadlineHandle = clock.setTimeout(resolve, Math.max(options.deadlineMs, 0));
  });
  try {
    await Promise.race([Promise.allSettled(active), deadline]);
  } finally {
    clock.clearTimeout(graceHandle);
    clock.clearTimeout(deadlineHandle);
    tracker.stopping = false;
  }
}
