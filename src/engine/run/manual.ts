/** Manual runs: `scheduler.run(name, { mode })`, always through a claim. */
import { planSlots } from "../tick/plan.ts";
import { type RunnerDeps, runSlot } from "./runner.ts";
import type { ManualRunResult } from "../types.ts";
import { own } from "../../core/own.ts";
import { quote, SchedulerError } from "../../core/errors.ts";
import { storedDef } from "../jobs/registry.ts";

/**
 * Runs a job now and resolves with its outcome, or refuses with a reason.
 *
 * - `"force"`: claims slot = now with kind `manual` (allowed while paused: it is an
 *   explicit operator action);
 * - `"due"`: claims the newest scheduled slot at or before now that no node has
 *   recorded yet (`not due` when there is none, `paused` while paused), and records
 *   the older unrecorded slots inside the catch-up window `missed` in the same batch:
 *   the due slot moves the watermark past them, so no tick would ever plan them.
 *
 * Never a second concurrent run: refused with `already running` while any node holds a
 * live claim on the job, and the claim itself carries the overlap check.
 *
 * @throws {SchedulerError} `store-error` when the store cannot be reached.
 */
export async function manualRun(
  deps: RunnerDeps & { node: string },
  name: string,
  mode: "force" | "due",
): Promise<ManualRunResult> {
  const { store, clock, registry, lease, emit } = deps;
  let job = registry.get(name);
  const now = clock.now();
  if (job === undefined) {
    const def = await storedDef(store, name);
    if (def === undefined) return { ok: false, job: name, reason: "unknown job" };
    job = registry.resolveDef(def);
    if (job === undefined) return { ok: false, job: name, reason: "unknown job" };
    registry.setData(name, job);
  }
  const snapshot = await store.snapshot([name], now);
  registry.sync({ jobs: snapshot.jobs });
  // A job with an unreadable stored row does not run, not even by hand, until the row is fixed.
  if (own(snapshot.jobs, name)?.broken !== undefined) return { ok: false, job: name, reason: "broken" };
  const live = snapshot.running.some((r) => r.job === name && r.leaseUntil !== null && r.leaseUntil >= now);
  if (live) return { ok: false, job: name, reason: "already running" };

  let slot = now;
  let older: number[] = [];
  if (mode === "due") {
    const js = own(snapshot.jobs, name);
    if (js?.paused === true) return { ok: false, job: name, reason: "paused" };
    const due = job.schedule.prev(now + 1);
    // Open bound; a never-recorded job's first-seen instant itself is due (closed there).
    const lower = own(snapshot.watermarks, name) ?? (js?.firstSeen ?? now) - 1;
    if (due === null || due <= lower) return { ok: false, job: name, reason: "not due" };
    slot = due;
    const from = Math.max(lower, now - job.catchUp.windowMs);
    const catchUp = { ...job.catchUp, mode: "latest", windowMs: Number.POSITIVE_INFINITY } as const;
    older =
      planSlots({ schedule: job.schedule, catchUp, now: slot, watermark: from, firstSeen: from, paused: false }).missed;
  }

  const leaseUntil = lease.until(now, job);
  const base = { job: name, overlap: "skip", node: deps.node, batch: crypto.randomUUID(), now, leaseUntil } as const;
  const results = await store.claim([
    ...older.map((s) => ({ ...base, slot: s, kind: "scheduled", status: "missed" } as const)),
    { ...base, slot, kind: mode === "force" ? "manual" : "scheduled", status: "running" },
  ]);
  const counters = registry.counters(name);
  for (const r of results.slice(0, -1)) {
    if (r.outcome !== "missed") continue;
    counters.missed++;
    emit({ type: "missed", job: name, slot: r.slot });
  }
  const claim = results.at(-1);
  if (claim?.outcome === "skipped") {
    counters.skipped++;
    emit({ type: "skipped", job: name, slot });
    return { ok: false, job: name, reason: "already running" };
  }
  if (claim?.outcome !== "won") {
    counters.lost++;
    emit({ type: "lost", job: name, slot });
    return { ok: false, job: name, reason: mode === "due" ? "not due" : "lost" };
  }
  emit({ type: "claimed", job: name, slot });
  const held = lease.hold({ job: name, slot, attempt: 1, node: deps.node }, leaseUntil, "manual");
  const outcome = await deps.tracker.track(runSlot(deps, job, held), name);
  if (outcome === undefined) return { ok: false, job: name, reason: "lost" };
  return { ok: true, job: name, slot, outcome };
}

/**
 * `scheduler.run(name, { mode })`: {@link manualRun} once the store is ready; `mode`
 * defaults to `"force"`.
 *
 * @throws {SchedulerError} `invalid-spec` naming `mode` when it is neither; `store-error`
 *   when the store cannot be reached.
 */
export function createManualRuns(
  deps: RunnerDeps & { node: string; ready: () => Promise<void> },
): (name: string, options?: { mode?: "force" | "due" }) => Promise<ManualRunResult> {
  return async (name, options = {}) => {
    if (options === null || typeof options !== "object") {
      throw new SchedulerError("invalid-spec", `run: expected { mode }, got ${quote(options)}`, { path: "run" });
    }
    const mode = options.mode ?? "force";
    // Anything else ran as "force", which is not what was asked.
    if (mode !== "force" && mode !== "due") {
      throw new SchedulerError("invalid-spec", `mode: expected "force" or "due", got ${quote(mode)}`, { path: "mode" });
    }
    await deps.ready();
    return manualRun(deps, name, mode);
  };
}
