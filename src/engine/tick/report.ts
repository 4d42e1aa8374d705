/** The tick report: one per tick or round, filled in as claims are made and runs settle. */
import type { Outcome } from "../../store/types.ts";
import { errorText } from "../text.ts";
import type { JobTickReport, SchedulerEvent, TickReport } from "../types.ts";
import { keepShape } from "../../core/kept.ts";

/** A report being filled in: `job(name)` is that job's part, created on first use. */
export interface ReportDraft {
  report: TickReport;
  job(name: string): JobTickReport;
  /** Marks the report failed with `e`'s text. */
  fail(e: unknown): void;
  /**
   * The earliest lease end asked for by a claim another node won (the lease it would have
   * had here): about when that node's lease ends, for timer mode's lease wake.
   */
  lostLeaseEnd: number | undefined;
}

/** A new, empty report of a tick (or a later round) at `now` on `node`. */
export function draftReport(now: number, node: string): ReportDraft {
  return new Draft(now, node);
}

/**
 * A report being filled in. A class, not a literal with a closure per tick: `job()` is
 * called for every job a tick claims, and code optimised for one tick's closure was thrown
 * away with it (`core/kept.ts`).
 */
class Draft implements ReportDraft {
  /**
   * A draft of each shape a report takes, kept so their hidden classes are (`core/kept.ts`):
   * as made, with `deferred` (rounds.ts) and failed.
   */
  static readonly kept = keepShape([new Draft(0.5, ""), new Draft(0.5, ""), new Draft(0.5, "")]);
  readonly report: TickReport;
  lostLeaseEnd: number | undefined = undefined;
  readonly #jobs: Record<string, JobTickReport>;

  constructor(now: number, node: string) {
    this.report = { now, node, ok: true, jobs: Object.create(null) };
    this.#jobs = this.report.jobs;
  }

  job(name: string): JobTickReport {
    return (this.#jobs[name] ??= emptyJobReport());
  }

  fail(e: unknown): void {
    this.report.ok = false;
    this.report.error = errorText(e);
  }
}

Draft.kept[1]!.report.deferred = 1;
Draft.kept[2]!.fail("");

/** The lists of slots of a job's report. */
export type SlotList = Exclude<keyof JobTickReport, "outcomes">;

/**
 * Adds `slot` to a list of a job's report. A list's first slot replaces the shared empty
 * list with an array of exactly one element (a first `push()` gives an array room for
 * 16): a large minute writes thousands of job reports, most of whose lists stay empty or
 * hold one slot.
 */
export function note(r: JobTickReport, list: SlotList, slot: number): void {
  const slots = r[list];
  if (slots === NONE) r[list] = [slot];
  else slots.push(slot);
}

/** Adds `slots` to a list of a job's report, as {@link note} adds one: a copy of their size onto the shared empty list. */
export function noteAll(r: JobTickReport, list: SlotList, slots: readonly number[]): void {
  if (slots.length === 0) return;
  const into = r[list];
  if (into === NONE) r[list] = slots.slice();
  else into.push(...slots);
}

/** Notes a slot's outcome in its job's report (nothing when the run had none: it was lost). */
export function record(r: JobTickReport, slot: number, outcome: Outcome | undefined): void {
  if (outcome !== undefined) r.outcomes[slot] = outcome;
}

/**
 * The list of a job report with no slot yet, shared by every report until `note()` gives
 * it one of its own (eight arrays per job and tick, most of them never used); frozen, so
 * no slot is ever added to it in place.
 */
const NONE = Object.freeze([]) as unknown as number[];

/** The `tick` event of `report`: one shape, kept (`core/kept.ts`). */
export function tickEvent(report: TickReport): SchedulerEvent {
  return { type: "tick", now: report.now, report };
}

keepShape(tickEvent(Draft.kept[0]!.report));

const emptyJobReport = (): JobTickReport => ({
  planned: NONE,
  won: NONE,
  lost: NONE,
  run: NONE,
  skipped: NONE,
  missed: NONE,
  abandoned: NONE,
  buffered: NONE,
  outcomes: {},
});

/** Adds a later round's job reports to the first round's (a `tick()` in rounds). */
export function mergeRounds(into: TickReport, round: TickReport): void {
  for (const [name, r] of Object.entries(round.jobs)) {
    const target = into.jobs[name];
    if (target === undefined) {
      into.jobs[name] = r;
      continue;
    }
    for (const key of ["planned", "won", "lost", "run", "skipped", "missed", "abandoned", "buffered"] as const) {
      noteAll(target, key, r[key]);
    }
    Object.assign(target.outcomes, r.outcomes);
  }
}
