/** Shared types of the pure core. */

/** How day-of-month and day-of-week combine when both are restricted. */
export type DayMatch = "or" | "and";

/**
 * The serialisable form of the schedule modifiers: `except` (cron expressions and
 * `YYYY-MM-DD` dates), `startAt` and `endAt` (epoch ms), and the key `H` hashes in them.
 */
export interface ModifierSpec {
  except?: string[];
  startAt?: number;
  endAt?: number;
  hashKey?: string;
}

/** A serialisable schedule spec; `schedule(spec)` turns it back into a `Schedule`. */
export type ScheduleSpec =
  | ({ cron: string; timezone?: string; dayMatch?: DayMatch; hashKey?: string; format?: "cron" | "aws" } & ModifierSpec)
  | ({ every: string; anchor?: number | string; timezone?: string } & ModifierSpec)
  | ({ at: number } & ModifierSpec);

/** Something that fires at instants (epoch milliseconds). */
export interface Schedule {
  readonly kind: "cron" | "every" | "at";
  /** IANA zone the schedule is read in (`"UTC"` for `at`). */
  readonly timezone: string;
  /** First fire strictly after `afterMs`, or null when there is none. */
  next(afterMs: number): number | null;
  /** The first `n` fires strictly after `afterMs`, ascending (fewer if the schedule ends). */
  nextRuns(afterMs: number, n: number): number[];
  /** Last fire strictly before `beforeMs`, or null. */
  prev(beforeMs: number): number | null;
  /** Fires in `(fromMs, toMs]`, ascending. */
  between(fromMs: number, toMs: number): Iterable<number>;
  /** A text `schedule()` parses back to an equal schedule. */
  toString(): string;
  /** A spec `schedule()` turns back into an equal schedule. */
  toJSON(): ScheduleSpec;
}
