/** A checked view of a user-supplied `Schedule` object, so the engine can trust what it returns. */
import { SchedulerError } from "../../core/errors.ts";
import type { Schedule } from "../../core/types.ts";

/**
 * Wraps a `Schedule` the engine did not build (a job's `schedule` given as an object
 * with `next` and `between`) so that every instant it returns is checked: `next()` must
 * give null or a safe integer after its argument, `prev()` null or one before it,
 * `nextRuns()` ascending instants after its argument, and `between(from, to)` strictly
 * ascending safe integers in `(from, to]`. Garbage throws instead of flowing on: a NaN
 * or a past `next()` would arm a zero-delay timer and spin, a fractional or out-of-range
 * slot would fail the whole tick's claim batch or run a slot early, and a `between()`
 * that never ends would hang the tick. The tick and the timer already treat a throwing
 * schedule as "nothing planned for this job" and log it. `toString()` never throws.
 *
 * @throws {SchedulerError} `invalid-spec` (path `jobs.<name>.schedule`) from the
 * wrapped methods when the inner schedule returns an invalid instant.
 * @example guardSchedule("custom", mySchedule).next(Date.now())
 */
export function guardSchedule(name: string, inner: Schedule): Schedule {
  const guarded = guardedView(name, inner);
  GUARDED.add(guarded);
  return guarded;
}

/** The schedules {@link guardSchedule} made: a user's, whose `next()` and `between()` need not agree. */
const GUARDED = new WeakSet<Schedule>();

/** Whether `schedule` is a user-supplied one ({@link guardSchedule}); the engine's own keep `next()` and `between()` in step. */
export const isGuarded = (schedule: Schedule): boolean => GUARDED.has(schedule);

function guardedView(name: string, inner: Schedule): Schedule {
  const path = `jobs.${name}.schedule`;
  const fail = (method: string, value: unknown, rule: string): SchedulerError =>
    new SchedulerError("invalid-spec", `${path}: ${method} returned ${describe(value)}, expected ${rule}`, { path });
  const instant = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value);

  return {
    kind: inner.kind,
    timezone: inner.timezone,
    next(after) {
      const value: unknown = inner.next(after);
      if (value === null || (instant(value) && value > after)) return value as number | null;
      throw fail("next()", value, `null or an integer instant after ${after}`);
    },
    nextRuns(after, n) {
      const values: unknown = inner.nextRuns(after, n);
      if (!Array.isArray(values)) throw fail("nextRuns()", values, "an array");
      let last = after;
      for (const value of values) {
        if (!instant(value) || value <= last) {
          throw fail("nextRuns()", value, `ascending integer instants after ${after}`);
        }
        last = value;
      }
      return values.slice(0, Math.max(0, n)) as number[];
    },
    prev(before) {
      const value: unknown = inner.prev(before);
      if (value === null || (instant(value) && value < before)) return value as number | null;
      throw fail("prev()", value, `null or an integer instant before ${before}`);
    },
    *between(from, to) {
      let last = from;
      for (const value of inner.between(from, to) as Iterable<unknown>) {
        // Strictly ascending inside (from, to] also bounds how long a broken iterator can run.
        if (!instant(value) || value <= last || value > to) {
          throw fail("between()", value, `strictly ascending integer instants in (${from}, ${to}]`);
        }
        last = value;
        yield value;
      }
    },
    toString() {
      try {
        return String(inner.toString());
      } catch {
        return "custom schedule";
      }
    },
    toJSON: () => inner.toJSON(),
  };
}

function describe(value: unknown): string {
  return typeof value === "number" ? String(value) : typeof value;
}
