/**
 * Capacity by design: how many run-history rows a job set keeps at steady state, so a
 * node can warn at start when it is more than a store should hold (500 per-second jobs
 * at the default 7-day retention are about 3×10⁸ rows).
 */
import { quote, SchedulerError } from "../../core/errors.ts";
import type { ResolvedJob } from "./spec.ts";

/** The longest window sampled to estimate a schedule's rate. */
const SAMPLE_MS = 24 * 3_600_000;
/** Slots counted per job at most while sampling: a dense schedule's rate comes from its first 1 000 slots. */
const SAMPLE_MAX = 1_000;

/** One job's expected history. */
export interface JobHistory {
  name: string;
  /** Rows kept at steady state: the slots of one retention period, at most `maxRows`. */
  rows: number;
}

/**
 * The rows `jobs` keep at steady state under `retentionMs`, largest first: each job's
 * rate over its next day from `now` (or its next 1 000 slots, when sooner), scaled to the
 * retention, capped by its `maxRows`. A schedule that throws counts nothing.
 */
export function expectedHistory(
  jobs: readonly ResolvedJob[],
  now: number,
  retentionMs: number,
): { total: number; jobs: JobHistory[] } {
  const out: JobHistory[] = [];
  let total = 0;
  const sample = Math.min(SAMPLE_MS, retentionMs);
  // Jobs with equal schedules (10 000 `* * * * *` jobs) share one sample.
  const rates = new Map<string, { count: number; span: number }>();
  for (const job of jobs) {
    const key = scheduleKey(job);
    let rate = key === undefined ? undefined : rates.get(key);
    if (rate === undefined) {
      rate = sampleRate(job, now, sample);
      if (key !== undefined) rates.set(key, rate);
    }
    const rows = Math.min(Math.round((rate.count * retentionMs) / rate.span), job.maxRows ?? Infinity);
    total += rows;
    out.push({ name: job.name, rows });
  }
  out.sort((a, b) => b.rows - a.rows);
  return { total, jobs: out };
}

/** Slots of `job` in the `sample` ms after `now` (or its first 1 000, over the span they take); none when it throws. */
function sampleRate(job: ResolvedJob, now: number, sample: number): { count: number; span: number } {
  let count = 0;
  let span = sample;
  try {
    for (const slot of job.schedule.between(now, now + sample)) {
      if (++count < SAMPLE_MAX) continue;
      span = Math.max(1, slot - now);
      break;
    }
  } catch {
    count = 0;
  }
  return { count, span };
}

/**
 * A key equal for equal schedules: the spec `toJSON()` gives, which by the `Schedule`
 * contract turns back into an equal schedule (modifiers included, unlike the text form).
 * Undefined when it throws or gives nothing: that schedule is sampled alone.
 */
function scheduleKey(job: ResolvedJob): string | undefined {
  try {
    return JSON.stringify(job.schedule.toJSON());
  } catch {
    return undefined;
  }
}

/** Default `historyWarnRows`. */
export const HISTORY_WARN_ROWS = 1_000_000;

/** Logs one warning when the expected history of `jobs` is above `threshold` (default {@link HISTORY_WARN_ROWS}). */
export function warnHistory(
  jobs: readonly ResolvedJob[],
  now: number,
  retentionMs: number,
  threshold: number | undefined,
  log: { warn(message: string, fields?: Record<string, unknown>): void },
): void {
  const limit = threshold ?? HISTORY_WARN_ROWS;
  const { total, jobs: largest } = expectedHistory(jobs, now, retentionMs);
  if (total <= limit) return;
  const top = largest.slice(0, 5).map((j) => `${JSON.stringify(j.name)} ~${j.rows}`).join(", ");
  log.warn(
    `run history is expected to reach ~${total} rows under the retention (more than ${limit}); largest: ${top}. ` +
      `Set maxRows on those jobs (or in defaults), or a shorter retention`,
    { rows: total },
  );
}

/**
 * Resolves `historyWarnRows` (default {@link HISTORY_WARN_ROWS}; `Infinity` for no warning).
 *
 * @throws {SchedulerError} `invalid-spec` unless a number >= 0.
 */
export function historyWarnRowsOf(value: unknown): number {
  if (value === undefined) return HISTORY_WARN_ROWS;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new SchedulerError(
      "invalid-spec",
      `historyWarnRows: expected a number >= 0 (or Infinity), got ${quote(value)}`,
      { path: "historyWarnRows" },
    );
  }
  return value;
}
