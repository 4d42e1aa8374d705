/**
 * The job options that modify a schedule: `except`, `startAt`, `endAt` (core schedule
 * modifiers, applied to the job's schedule), `maxRuns` (counted in the store) and
 * `jitter` (a deterministic delay of each slot's start).
 */
import * as v from "valibot";
import { parseDuration } from "../../core/duration.ts";
import { quote, SchedulerError } from "../../core/errors.ts";
import { MAX_EXCLUSIONS } from "../../core/modifiers/modify.ts";
import type { ModifierOptions } from "../../core/modifiers/modify.ts";
import { INSTANT_EXPECTED, type InstantInput } from "../../core/instant.ts";
import { duration, got, text } from "./_valibot.ts";

/** The modifier options of a job (code- or data-defined). */
export interface JobModifiers {
  /**
   * Slots to leave out: cron expressions (read in the job's zone, `H` hashing the job's
   * name) and `YYYY-MM-DD` local dates. No default.
   */
  except?: string | string[];
  /** No slot before this instant (epoch ms, `Date`, ISO string with offset). */
  startAt?: InstantInput;
  /** No slot at or after this instant; after it the job's `state` is `"ended"`. */
  endAt?: InstantInput;
  /**
   * Run at most this many slots that reached an outcome (`ok`, `error`, `timeout`,
   * `cancelled`), counted in the store across nodes, a slot's retries once; then the
   * job's `state` is `"completed"` and `remainingRuns` 0. No default (no limit).
   */
  maxRuns?: number;
  /**
   * Delay each slot's start by a deterministic amount in `[0, jitter)` (a hash of the job's
   * name and the slot), at most 90% of the gap to the next slot. The slot keeps its
   * identity (`ctx.slot`). A duration like `"5m"` or ms; default none.
   */
  jitter?: string | number;
}

/** The longest `except` text accepted per entry. */
const EXCEPT_TEXT = 256;

const instant = v.union(
  [v.number(), text(64), v.date()],
  (issue) => `expected ${INSTANT_EXPECTED}, got ${got(issue)}`,
);
const exceptEntry = v.pipe(text(EXCEPT_TEXT), v.minLength(1, () => "expected a cron expression or a YYYY-MM-DD date"));

/** Valibot entries of the modifier options, spread into the job schemas. */
export const modifierEntries = {
  except: v.optional(v.union([
    exceptEntry,
    v.pipe(
      v.array(exceptEntry, (issue) => `expected a string or an array of strings, got ${got(issue)}`),
      v.maxLength(MAX_EXCLUSIONS, () => `at most ${MAX_EXCLUSIONS} entries`),
    ),
  ], (issue) => `expected a cron expression, a YYYY-MM-DD date or an array of them, got ${got(issue)}`)),
  startAt: v.optional(instant),
  endAt: v.optional(instant),
  maxRuns: v.optional(v.pipe(
    v.number((issue) => `expected a whole number of at least 1, got ${got(issue)}`),
    v.integer((issue) => `expected a whole number of at least 1, got ${got(issue)}`),
    v.minValue(1, (issue) => `expected a whole number of at least 1, got ${got(issue)}`),
  )),
  jitter: v.optional(duration),
};

/** The same modifiers inside a stored `{ cron }`, `{ every }` or `{ at }` schedule (its `toJSON()`). */
export const specModifierEntries = {
  except: modifierEntries.except,
  startAt: v.optional(
    v.union([v.number(), text(64)], (issue) => `expected epoch ms or an ISO instant with offset, got ${got(issue)}`),
  ),
  endAt: v.optional(
    v.union([v.number(), text(64)], (issue) => `expected epoch ms or an ISO instant with offset, got ${got(issue)}`),
  ),
};

/** The core schedule modifiers among a job's options (only the keys that are set). */
export function scheduleModifiers(spec: JobModifiers): ModifierOptions {
  const out: ModifierOptions = {};
  if (spec.except !== undefined) out.except = spec.except;
  if (spec.startAt !== undefined) out.startAt = spec.startAt;
  if (spec.endAt !== undefined) out.endAt = spec.endAt;
  return out;
}

/**
 * `jitter` in ms (0 when unset) and `maxRuns` (undefined when unset) of a validated spec.
 *
 * @throws {SchedulerError} `invalid-spec` naming `jobs.<name>.jitter`
 */
export function runModifiers(name: string, spec: JobModifiers): { jitterMs: number; maxRuns: number | undefined } {
  const path = `jobs.${name}.jitter`;
  const jitterMs = spec.jitter === undefined
    ? 0
    : parseDuration(spec.jitter, { code: "invalid-spec", field: path, path });
  if (!Number.isSafeInteger(jitterMs)) {
    throw new SchedulerError("invalid-spec", `${path}: expected a duration in whole ms, got ${quote(spec.jitter)}`, {
      path,
    });
  }
  return { jitterMs, maxRuns: spec.maxRuns };
}
