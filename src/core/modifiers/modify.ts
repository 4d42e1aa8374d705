/**
 * Schedule modifiers (`except`, `startAt`, `endAt`) around any schedule. Exclusions are
 * judged on the wall time a slot actually fires at in the schedule's zone; an excluded
 * slot is skipped by jumping past the whole stretch of wall time the exclusions cover,
 * then asking the schedule for its next slot from there.
 */
import { DAY_SECONDS } from "../civil.ts";
import { quote, SchedulerError } from "../errors.ts";
import { toEpochMs, toWholeEpochMs } from "../instant.ts";
import type { InstantInput } from "../instant.ts";
import { scheduleMethods } from "../iterate.ts";
import type { ModifierSpec, Schedule, ScheduleSpec } from "../types.ts";
import { zoneOffsets } from "../zone/offsets.ts";
import { compileExclusion, datesExclusion, dayOf } from "./exclusion.ts";
import type { Exclusion, TimeSets } from "./exclusion.ts";
import { freeSearch, MAX_STEPS } from "./search.ts";
import type { FreeSearch } from "./search.ts";

/** The modifier options `cron()`, `every()` and `schedule()` accept. */
export interface ModifierOptions {
  /**
   * Slots to leave out: cron expressions (the same grammar, `H` hashing the same key, read
   * in the schedule's zone) and `YYYY-MM-DD` local dates (the whole day). No default.
   */
  except?: string | readonly string[];
  /** No slot before this instant (epoch ms, `Date`, ISO string with offset). No default. */
  startAt?: InstantInput;
  /** No slot at or after this instant. No default. */
  endAt?: InstantInput;
}

/** Most exclusions one schedule takes; a holiday list for decades fits. */
export const MAX_EXCLUSIONS = 1_000;

// 29 years (and a day): every shape of every month occurs in such a span.
const CYCLE_MS = (29 * 366 + 1) * DAY_SECONDS * 1000;

/** Whether `options` asks for any modifier. */
export function hasModifiers(options: ModifierOptions): boolean {
  return options.except !== undefined || options.startAt !== undefined || options.endAt !== undefined;
}

/**
 * `base` with the modifiers of `options` applied; `base` itself when there are none.
 * `context.main` is the base's time of day (cron), which lets whole-day exclusions skip
 * by days; `context.hashKey` is what `H` in an exclusion hashes.
 *
 * @throws {SchedulerError} `invalid-spec` for a bad exclusion, `endAt` not after
 *   `startAt`, or when every fire time is excluded; `invalid-instant` for a bad
 *   `startAt`/`endAt`
 */
export function withModifiers(
  base: Schedule,
  options: ModifierOptions,
  context: { hashKey?: string | undefined; main?: TimeSets | undefined } = {},
): Schedule {
  if (!hasModifiers(options)) return base;
  const list = options.except === undefined
    ? []
    : typeof options.except === "string"
    ? [options.except]
    : options.except;
  if (!Array.isArray(list)) {
    throw new SchedulerError(
      "invalid-spec",
      `except: expected a string or an array of strings, got ${quote(options.except)}`,
      { path: "except" },
    );
  }
  if (list.length > MAX_EXCLUSIONS) {
    throw new SchedulerError("invalid-spec", `except: at most ${MAX_EXCLUSIONS} entries, got ${list.length}`, {
      path: "except",
    });
  }
  const exclusions = list.map((text, i) => compileExclusion(text, i, context.hashKey, context.main));
  const startAt = options.startAt === undefined ? undefined : toWholeEpochMs(options.startAt, { field: "startAt" });
  const endAt = options.endAt === undefined ? undefined : toWholeEpochMs(options.endAt, { field: "endAt" });
  if (startAt !== undefined && endAt !== undefined && endAt <= startAt) {
    throw new SchedulerError(
      "invalid-spec",
      `endAt: must be after startAt (${quote(new Date(startAt).toISOString())}), got ${
        quote(new Date(endAt).toISOString())
      }`,
      { path: "endAt" },
    );
  }
  const zone = zoneOffsets(base.timezone);
  // Dates are searched as one set: a holiday list of any length costs one lookup.
  const days = new Set(exclusions.map(dayOf).filter((d): d is number => d !== undefined));
  const searched = days.size === 0
    ? exclusions
    : [...exclusions.filter((x) => dayOf(x) === undefined), datesExclusion("dates", days)];
  const free = exclusions.length === 0 ? undefined : freeSearch(base, zone, searched);

  const next = (afterMs: number): number | null => {
    let after = toEpochMs(afterMs, { field: "after" });
    if (startAt !== undefined && after < startAt) after = startAt - 1;
    const t = free === undefined ? base.next(after) : free.next(after, Infinity);
    return t === null || (endAt !== undefined && t >= endAt) ? null : t;
  };
  const prev = (beforeMs: number): number | null => {
    let before = toEpochMs(beforeMs, { field: "before" });
    if (endAt !== undefined && before > endAt) before = endAt;
    const t = free === undefined ? base.prev(before) : free.prev(before);
    return t === null || (startAt !== undefined && t < startAt) ? null : t;
  };

  if (free !== undefined) assertSomeFire(base, free, startAt, exclusions);

  const baseSpec = base.toJSON() as ScheduleSpec & ModifierSpec;
  // On a schedule that has modifiers both sets apply, so the spec keeps both (it kept the new only).
  const extra: ModifierSpec = {};
  if (exclusions.length > 0) extra.except = [...(baseSpec.except ?? []), ...exclusions.map((x) => x.text)];
  if (startAt !== undefined) extra.startAt = Math.max(startAt, baseSpec.startAt ?? startAt);
  if (endAt !== undefined) extra.endAt = Math.min(endAt, baseSpec.endAt ?? endAt);
  // `H` in an exclusion needs the key back, even when the expression itself has none.
  if (
    context.hashKey !== undefined && baseSpec.hashKey === undefined &&
    exclusions.some((x) => /(?:^|[\s,])H/.test(x.text))
  ) {
    extra.hashKey = context.hashKey;
  }
  const spec = { ...baseSpec, ...extra } as ScheduleSpec;
  return scheduleMethods({
    kind: base.kind,
    timezone: base.timezone,
    next,
    prev,
    // The text form has no room for modifiers: toJSON() is the form that round-trips.
    toString(): string {
      return base.toString();
    },
    toJSON(): ScheduleSpec {
      return { ...spec };
    },
  });
}

// Refused like an expression that never fires: nothing would ever run. What an exclusion
// matches depends on the month, its length and the weekday it starts on, and every such
// month occurs in any 29 consecutive years: 29 years past the last year an exclusion
// names decide.
function assertSomeFire(
  base: Schedule,
  free: FreeSearch,
  startAt: number | undefined,
  exclusions: readonly Exclusion[],
): void {
  const from = startAt ?? 0;
  // From the first fire: from the epoch, an at() or a first slot decades on lay past the
  // horizon, and any cron exclusion was refused as "every fire time is excluded".
  const first = base.next(from - 1);
  if (first === null) return;
  let last = first;
  for (const x of exclusions) if (x.lastYear !== undefined) last = Math.max(last, Date.UTC(x.lastYear + 1, 0, 1));
  const budget = { left: MAX_STEPS };
  if (free.next(from - 1, last + CYCLE_MS, budget) === null) {
    const list = exclusions.map((x) => quote(x.text)).join(", ");
    // Out of steps is not proof that nothing fires, and is said so: the exclusions interlock too finely.
    const why = budget.left > 0
      ? "every fire time is excluded"
      : `no fire time found within ${MAX_STEPS} steps; the exclusions interlock too finely`;
    throw new SchedulerError("invalid-spec", `except: ${why} (${list})`, { path: "except" });
  }
}
