/**
 * Buffered slots with no live run anywhere: their run settled on a node that died or
 * stopped, or a backfill's node went away. A tick's first round (the one with a fresh
 * snapshot) starts them here, within this node's capacity.
 */
import { own } from "../../core/own.ts";
import type { TickSnapshot } from "../../store/types.ts";
import { startable } from "../run/overlap.ts";
import type { ReportDraft } from "./report.ts";
import { drain, type RunsDeps } from "./runs.ts";

/** Starts the orphaned buffered slots of `snapshot` into `runs`, skipping jobs `won` has runs of. */
export function startOrphans(
  deps: RunsDeps & { concurrency: number },
  snapshot: TickSnapshot,
  now: number,
  draft: ReportDraft,
  won: ReadonlyMap<string, unknown>,
  runs: Promise<unknown>[],
): void {
  const { tracker, registry } = deps;
  for (const name of startable(snapshot, now)) {
    // A node at its capacity leaves them to another node (or its next tick).
    if (tracker.handlers + deps.queue.length >= deps.concurrency) break;
    const job = registry.get(name);
    if (job === undefined || !job.enabled || own(snapshot.jobs, name)?.paused === true || won.has(name)) continue;
    runs.push(drain(deps, job, draft.job(name), true)!);
  }
}
