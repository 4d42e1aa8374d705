import { keepShape } from "../core/kept.ts";
import type { TickSnapshot } from "./types.ts";

/**
 * A snapshot to fill in, of one shape for every store: the engine reads a tick's snapshot
 * for every job it plans, and the snapshot is gone before the next tick, so one is kept
 * for the shape's sake (`core/kept.ts`).
 */
export function emptySnapshot(defs: TickSnapshot["defs"] = [], running: TickSnapshot["running"] = []): TickSnapshot {
  return { jobs: {}, watermarks: {}, defs, running };
}

keepShape(emptySnapshot());
