/** The iteration methods every schedule shares, derived from its `next()`. */
import { quote, SchedulerError } from "./errors.ts";
import { toEpochMs } from "./instant.ts";
import type { Schedule } from "./types.ts";

/** The part of a `Schedule` each kind implements itself. */
export type ScheduleCore = Omit<Schedule, "nextRuns" | "between">;

/** Largest `n` accepted by `nextRuns`. */
export const MAX_RUNS = 100_000;

/**
 * Completes a schedule with `nextRuns(after, n)` and `between(from, to)`.
 *
 * @throws {SchedulerError} (from the returned methods) `invalid-instant` for bad instants,
 *   `invalid-spec` for a count that is not an integer in 0..100000
 */
export function scheduleMethods(core: ScheduleCore): Schedule {
  return {
    kind: core.kind,
    timezone: core.timezone,
    next: core.next,
    prev: core.prev,
    nextRuns(afterMs: number, n: number): number[] {
      if (!Number.isInteger(n) || n < 0 || n > MAX_RUNS) {
        throw new SchedulerError("invalid-spec", `n: expected an integer 0-${MAX_RUNS}, got ${quote(n)}`, {
          path: "n",
        });
      }
      const out: number[] = [];
      let t: number | null = toEpochMs(afterMs, { field: "after" });
      while (out.length < n && (t = core.next(t)) !== null) out.push(t);
      return out;
    },
    between(fromMs: number, toMs: number): Iterable<number> {
      const from = toEpochMs(fromMs, { field: "from" });
      const to = toEpochMs(toMs, { field: "to" });
      return new Fires(core.next, from, to);
    },
    toString: core.toString,
    toJSON: core.toJSON,
  };
}

/** The slots in (from, to], oldest first, each asked of `next`. */
class Fires implements Iterable<number> {
  /**
   * One kept for the module's life. V8 holds weakly the hidden classes that optimised code
   * was specialised on, and gives a class's instances theirs as the first one is built:
   * when planning's iterables all lived for one tick (an object literal per call, before),
   * the collections between minutes took their class and planning's optimised code with
   * it, and every node compiled its planning again every minute (test/integration/warm_test.ts).
   */
  static readonly kept: Fires = new Fires(() => null, Number.NaN, Number.NaN);

  constructor(
    readonly next: (after: number) => number | null,
    readonly from: number,
    readonly to: number,
  ) {}

  [Symbol.iterator](): Iterator<number> {
    return new FiresPass(this.next, this.from, this.to);
  }
}

/** The end of every pass. */
const DONE: IteratorReturnResult<undefined> = Object.freeze({ value: undefined, done: true });

/**
 * One pass over the slots in (from, to]: a plain iterator (a generator cost a frame per
 * pass, and a large minute plans thousands of jobs, each one pass). Each step answers a
 * result of its own, as built-in iterators do: a caller may keep one (one result object
 * reused for every step changed the value of a result already handed out).
 */
class FiresPass implements Iterator<number> {
  /** Kept for the module's life, for the reason `Fires.kept` is. */
  static readonly kept: FiresPass = new FiresPass(() => null, Number.NaN, Number.NaN);
  private at: number | null;

  constructor(
    private readonly step: (after: number) => number | null,
    from: number,
    private readonly to: number,
  ) {
    this.at = from;
  }

  next(): IteratorResult<number> {
    const t = this.at === null ? null : this.step(this.at);
    if (t === null || !(t <= this.to)) {
      this.at = null;
      return DONE;
    }
    this.at = t;
    return { value: t, done: false };
  }
}
