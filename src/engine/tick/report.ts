/** The tick report: one per tick or round, filled in as claims are made and runs settle. */
import type { Outcome } from "../../store/types.ts";
import { errorText } from "../text.ts";
import type { JobTickReport, TickReport } from "../types.ts";

/** A report being filled in: `job(name)` is that job's part, created on first use. */
export interface ReportDraft {
  report: TickReport;
  job(name: string): JobTickReport;
  /** Marks the report failed with `e`'s text. */
  fail(e: unknown): void;
}

/** A new, empty report of a tick (or a later round) at `now` on `node`. */
export function draftReport(now: number, node: string): ReportDraft {
  const report: TickReport = { now, node, ok: true, jobs: Object.create(null) };
  return {
    report,
    job: (name) => (report.jobs[name] ??= emptyJobReport()),
    fail(e) {
      report.ok = false;
      report.error = errorText(e);
    },
  };
}

/** The lists of slots of a job's report. */
export type SlotList = Exclude<keyof JobTickReport, "outcomes">;

/**
 * Adds `slot` to a list of a job's report. A list's first slot replaces its empty array
 * with one of exactly one element: a first `push()` gives the array room for 16, and a
 * large minute writes thousands of job reports, most of whose lists hold one slot.
 */
export function note(r: JobTickReport, list: SlotList, slot: number): void {
  const slots = r[list];
  if (slots.length === 0) r[list] = [slot];
  else slots.push(slot);
}

/** Notes a slot's outcome in its job's report (nothing when the run had none: it was lost). */
export function record(r: JobTickReport, slot: number, outcome: Outcome | undefined): void {
  if (outcome !== undefined) r.outcomes[slot] = outcome;
}

const emptyJobReport = (): JobTickReport => ({
  planned: [],
  won: [],
  lost: [],
  run: [],
  skipped: [],
  missed: [],
  abandoned: [],
  buffered: [],
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
      target[key].push(...r[key]);
    }
    Object.assign(target.outcomes, r.outcomes);
  }
}
