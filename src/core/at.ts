/** `at()`: a one-shot schedule. */
import { quote, SchedulerError } from "./errors.ts";
import { toEpochMs, toWholeEpochMs } from "./instant.ts";
import type { InstantInput } from "./instant.ts";
import { scheduleMethods } from "./iterate.ts";
import type { Schedule } from "./types.ts";

/**
 * A schedule that fires once, at `instant` (epoch ms, `Date`, `Temporal.Instant`, or an
 * ISO string with `Z` or an offset).
 *
 * @throws {SchedulerError} `invalid-instant: at: expected ..., got "tomorrow"`; `invalid-spec` for
 *   a second argument (it takes no options)
 * @example
 * ```ts
 * import { at } from "edgecron";
 *
 * console.log(at("2026-12-24T18:00:00+01:00").next(0)); // 1798131600000
 * ```
 */
export function at(instant: InstantInput): Schedule {
  // A JavaScript caller's options (`at(t, { endAt })`, `{ timezone }`) were dropped unread.
  const options: unknown = arguments[1];
  if (options !== undefined) {
    const given = typeof options === "object" && options !== null
      ? `{ ${Object.keys(options).join(", ")} }`
      : quote(options);
    throw new SchedulerError(
      "invalid-spec",
      `options: at() takes no options, got ${given}; its instant is the one slot (give it an offset for a zone)`,
      { path: "options" },
    );
  }
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
