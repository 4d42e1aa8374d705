/** `at()`: a one-shot schedule. */
import { toEpochMs, toWholeEpochMs } from "./instant.ts";
import type { InstantInput } from "./instant.ts";
import { scheduleMethods } from "./iterate.ts";
import type { Schedule } from "./types.ts";

/**
 * A schedule that fires once, at `instant` (epoch ms, `Date`, `Temporal.Instant`, or an
 * ISO string with `Z` or an offset).
 *
 * @throws {SchedulerError} `invalid-instant: at: expected ..., got "tomorrow"`
 * @example
 * ```ts
 * import { at } from "edgecron";
 *
 * console.log(at("2026-12-24T18:00:00+01:00").next(0)); // 1798131600000
 * ```
 */
export function at(instant: InstantInput): Schedule {
  const ms = toWholeEpochMs(instant, { field: "at" });
  return scheduleMethods({
    kind: "at",
    timezone: "UTC",
    next: (afterMs: number): number | null => (toEpochMs(afterMs, { field: "after" }) < ms ? ms : null),
    prev: (beforeMs: number): number | null => (ms < toEpochMs(beforeMs, { field: "before" }) ? ms : null),
    toString: () => new Date(ms).toISOString(),
    toJSON: () => ({ at: ms }),
  });
}
