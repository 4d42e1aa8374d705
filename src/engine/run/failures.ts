/**
 * `pauseOnFailure: n`: after a run ends `error` or `timeout`, the job's newest runs are
 * read from the store (so runs on every node count), and when the n newest all failed
 * the job is paused with a note, on every node.
 */
import type { Outcome, RunRecord } from "../../store/types.ts";
import { errorText, jobLabel } from "../text.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import type { RunnerDeps } from "./runner.ts";

/** Outcomes of a run that ran (skipped and missed slots never ran, so they neither count nor break a streak). */
const RAN: ReadonlySet<string> = new Set(["ok", "error", "timeout", "abandoned", "cancelled"]);
const FAILED: ReadonlySet<string> = new Set(["error", "timeout"]);

/** The note a job paused by `pauseOnFailure` carries. */
export const failureNote = (n: number): string => `paused after ${n} consecutive failures`;

/** Whether the newest `n` runs among `rows` (newest first) all ended `error` or `timeout`. */
export function failedInARow(rows: readonly RunRecord[], n: number): boolean {
  const ran = rows.filter((r) => RAN.has(r.status)).slice(0, n);
  return ran.length === n && ran.every((r) => FAILED.has(r.status));
}

/** After `outcome` of a run of `job`: pauses the job when its last runs all failed. Never rejects. */
export async function checkFailures(deps: RunnerDeps, job: ResolvedJob, outcome: Outcome | undefined): Promise<void> {
  const n = job.pauseOnFailure;
  if (n === undefined || outcome === undefined || !FAILED.has(outcome)) return;
  try {
    // Skipped and missed rows sit between runs: read well past n.
    const rows = await deps.store.runs(job.name, { limit: Math.min(1000, n * 4 + 20) });
    if (!failedInARow(rows, n)) return;
    const state = (await deps.store.read([job.name])).jobs;
    if (Object.hasOwn(state, job.name) && state[job.name]!.paused) return;
    const reason = failureNote(n);
    await deps.store.setPaused(job.name, true, deps.clock.now(), { note: reason, by: "pauseOnFailure" });
    deps.emit({ type: "paused", job: job.name, reason, by: "pauseOnFailure" });
  } catch (e) {
    deps.log.warn(`${jobLabel(job.name)}: checking pauseOnFailure failed; the next failure checks again`, {
      error: errorText(e),
    });
  }
}
