/** Manual runs: `scheduler.run(name, { mode })`, always through a claim. */
import { countersOf, type EngineState, findJob, storeCall, track } from "./_state.ts";
import { resolveDef } from "./data_jobs.ts";
import { runSlot } from "./runner.ts";
import type { ManualRunResult } from "./types.ts";

/**
 * Runs a job now and resolves with its outcome, or refuses with a reason.
 *
 * - `"force"`: claims slot = now with kind `manual` (allowed while paused: it is an
 *   explicit operator action);
 * - `"due"`: claims the newest scheduled slot at or before now that no node has
 *   recorded yet (`not due` when there is none, `paused` while paused).
 *
 * Never a second concurrent run: refused with `already running` while any node holds a
 * live claim on the job, and the claim itself carries the overlap check.
 *
 * @throws {SchedulerError} `store-error` when the store cannot be reached.
 */
export async function manualRun(state: EngineState, name: string, mode: "force" | "due"): Promise<ManualRunResult> {
  let job = findJob(state, name);
  const now = state.clock.now();
  if (job === undefined) {
    const def = await storeCall(state, () => state.store.getDef(name));
    if (def === undefined) return { ok: false, job: name, reason: "unknown job" };
    job = resolveDef(state, def);
    if (job === undefined) return { ok: false, job: name, reason: "unknown job" };
    state.data.set(name, job);
  }
  const snapshot = await storeCall(state, () => state.store.snapshot([name], now));
  const live = snapshot.running.some((r) => r.job === name && r.leaseUntil !== null && r.leaseUntil >= now);
  if (live) return { ok: false, job: name, reason: "already running" };

  let slot = now;
  if (mode === "due") {
    const js = snapshot.jobs[name];
    if (js?.paused === true) return { ok: false, job: name, reason: "paused" };
    const due = job.schedule.prev(now + 1);
    const lower = snapshot.watermarks[name] ?? js?.firstSeen ?? now;
    if (due === null || due <= lower) return { ok: false, job: name, reason: "not due" };
    slot = due;
  }

  const leaseUntil = now + job.timeoutMs + state.leaseGraceMs;
  const [claim] = await storeCall(state, () =>
    state.store.claim([{
      job: name,
      slot,
      kind: mode === "force" ? "manual" : "scheduled",
      status: "running",
      overlap: "skip",
      node: state.node,
      batch: crypto.randomUUID(),
      now,
      leaseUntil,
    }]));
  if (claim?.outcome === "skipped") {
    countersOf(state, name).skipped++;
    state.emit({ type: "skipped", job: name, slot });
    return { ok: false, job: name, reason: "already running" };
  }
  if (claim?.outcome !== "won") {
    countersOf(state, name).lost++;
    state.emit({ type: "lost", job: name, slot });
    return { ok: false, job: name, reason: mode === "due" ? "not due" : "lost" };
  }
  state.emit({ type: "claimed", job: name, slot });
  const outcome = await track(state, runSlot(state, job, slot, 1));
  if (outcome === undefined) return { ok: false, job: name, reason: "lost" };
  return { ok: true, job: name, slot, outcome };
}
