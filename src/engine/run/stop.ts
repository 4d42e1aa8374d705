/** Graceful stop: let runs finish, abort their signals after a grace period, give up at a deadline. */
import { parseDuration } from "../../core/duration.ts";
import type { Lease } from "./lease.ts";
import type { RunTracker } from "./tracker.ts";
import type { Triggers } from "../trigger.ts";
import type { Clock, Scheduler, SchedulerEvent } from "../types.ts";

/** What `stop()` uses: the runs, the clock, the lease, and the triggers to halt first. */
export interface StopDeps {
  tracker: RunTracker;
  clock: Clock;
  lease: Lease;
  /** Halted first; a `start()` meanwhile (a new `restarted`) ends the stop. */
  triggers: Pick<Triggers, "halt" | "restarted">;
  emit: (event: SchedulerEvent) => void;
}

/**
 * `scheduler.stop({ grace, deadline })`: halts the triggers, letting the claims this node
 * has won start until `grace` (default 10 s): those made ahead (`claimAhead`) at their
 * slot, those queued as capacity frees. Then {@link stopRuns} with what is left of
 * `grace` and `deadline` (default 30 s), then gives up the runs still going. A `start()`
 * made meanwhile ends the stop there: nothing more is aborted, released or given up.
 *
 * @throws {SchedulerError} `invalid-spec` naming `grace` or `deadline` (before anything stops).
 */
export function createStop(
  deps: StopDeps,
): (options?: Parameters<Scheduler["stop"]>[0], caller?: string) => Promise<void> {
  const at = (field: string) => ({ code: "invalid-spec" as const, field, path: field });
  return async (options = {}, caller = "stop() reached its deadline") => {
    const graceMs = parseDuration(options.grace ?? "10s", at("grace"));
    const deadlineMs = parseDuration(options.deadline ?? "30s", at("deadline"));
    const from = deps.clock.now();
    const { triggers } = deps;
    // Replaced at each start(): a start() since (even one another stop() then halted) ends this stop.
    const epoch = triggers.restarted;
    await triggers.halt(Math.min(graceMs, deadlineMs));
    if (triggers.restarted !== epoch) return;
    const spent = Math.max(0, deps.clock.now() - from);
    await stopRuns(deps.tracker, deps.clock, {
      graceMs: Math.max(0, graceMs - spent),
      deadlineMs: Math.max(0, deadlineMs - spent),
    }, epoch);
    // Runs still going past the deadline are given up: no more renewals, so their
    // leases end within one lease and any node takes the slots over. Each is said: a run
    // that succeeded but whose outcome the store had not taken (a lock held past the
    // deadline) was re-run by another node as attempt 2, with nothing logged here.
    if (triggers.restarted !== epoch) return;
    for (const claim of deps.lease.abandon()) {
      deps.emit({
        type: "lost",
        job: claim.job,
        slot: claim.slot,
        attempt: claim.attempt,
        reason: `${caller} ${
          claim.settling ? "before the store took the outcome" : "with the run still going"
        }; unless its outcome lands first, once its lease ends the slot is recorded abandoned, and run again if the job has retries left`,
      });
    }
  };
}

/**
 * Waits for this node's runs to settle. After `graceMs` every running handler's
 * signal aborts (reason: an `AbortError` "scheduler stopped"); a handler that then
 * rejects is recorded `error` without retry. Resolves when every run has its outcome
 * recorded or `deadlineMs` (from the call) has passed; a run still going then keeps
 * its `running` row, which any node records `abandoned` once its lease ends.
 * While stopping, no retry starts: a run waiting out a retry's backoff is left with its
 * `running` row for the next attempt, which any node takes once its lease ends
 * (`abandoned`, then re-run while attempts are left). Ends early, aborting nothing more,
 * when `restarted` resolves. Never rejects.
 */
export async function stopRuns(
  tracker: RunTracker,
  clock: Clock,
  options: { graceMs: number; deadlineMs: number },
  restarted: Promise<void>,
): Promise<void> {
  if (tracker.running === 0) return;
  const settled = tracker.settledOf();
  // Also wakes what waits on a timer (a retry's backoff, an outcome's retry wait).
  const abortAll = (): void => {
    for (const controller of tracker.controllers) controller.abort(new DOMException("scheduler stopped", "AbortError"));
  };
  // No wait at all (`deadline: 0`, `close()` before `stop()`): given up at once, with no timer
  // (a manual clock would otherwise hold it until advanced), and nothing left to hold the
  // process until its timer fires.
  if (options.deadlineMs <= 0) return abortAll();
  tracker.stopping = true;
  const graceHandle = clock.setTimeout(abortAll, options.graceMs);
  let deadlineHandle: unknown;
  const deadline = new Promise<void>((resolve) => {
    deadlineHandle = clock.setTimeout(resolve, Math.max(options.deadlineMs, 0));
  });
  try {
    await Promise.race([settled, deadline, restarted]);
  } finally {
    clock.clearTimeout(graceHandle);
    clock.clearTimeout(deadlineHandle);
    tracker.stopping = false;
  }
}
