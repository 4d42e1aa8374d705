/**
 * Staleness gauges for `GET /metrics`, read from the store through the job list so
 * every node reports the same: `edgecron_last_success_timestamp_seconds{job}`,
 * `edgecron_next_run_timestamp_seconds{job}` and `edgecron_skipped_total{job,reason}`
 * (reason `overlap`, `buffer-full` or `catch-up`).
 */
import type { JobInfo, Scheduler } from "../engine/types.ts";
import { labels } from "./metrics_format.ts";

/** Rows a scrape reads back for a job whose newest outcome is not `ok`, looking for its last success. */
const SUCCESS_LOOKBACK = 1000;

/**
 * The skips of a job by reason label, from its store counts (an excluded slot has no
 * row: not a skip): `skipped` rows a full buffer dropped are `buffer-full`, the other
 * `skipped` rows `overlap`, `missed` rows `catch-up`. Undefined without counts.
 */
function skipsByReason(job: JobInfo): [string, number][] | undefined {
  const counts = job.statusCounts;
  if (counts === undefined) return undefined;
  const skipped = counts["skipped"] ?? 0;
  const full = Math.min(job.bufferFull ?? 0, skipped);
  return [["overlap", skipped - full], ["buffer-full", full], ["catch-up", counts["missed"] ?? 0]];
}

/** Collects the jobs of one scrape's pages, then renders the staleness series. */
export interface StalenessCollector {
  add(job: JobInfo): void;
  /** The exposition lines; reads the run history of jobs whose newest outcome is not a success. */
  lines(): Promise<string[]>;
}

/**
 * Creates a collector for one scrape. The last success is the newest `ok` row's finish
 * (the job list's last outcome, or a read of up to 1 000 rows when that one failed);
 * the next run is the job's next slot (absent while paused, disabled, ended or
 * completed); skips count `skipped` rows a full buffer dropped as `buffer-full`, the
 * other `skipped` rows as `overlap` and `missed` rows as `catch-up`, over the retained
 * history.
 */
export function createStalenessCollector(scheduler: Scheduler): StalenessCollector {
  const jobs: JobInfo[] = [];
  return {
    add(job) {
      jobs.push(job);
    },
    async lines() {
      const success: string[] = [], next: string[] = [], skipped: string[] = [];
      for (const job of jobs) {
        const at = await lastSuccess(scheduler, job);
        if (at !== undefined) {
          success.push(`edgecron_last_success_timestamp_seconds${labels({ job: job.name })} ${at / 1000}`);
        }
        const slot = job.next[0];
        if (slot !== undefined) {
          next.push(`edgecron_next_run_timestamp_seconds${labels({ job: job.name })} ${slot / 1000}`);
        }
        for (const [reason, n] of skipsByReason(job) ?? []) {
          skipped.push(`edgecron_skipped_total${labels({ job: job.name, reason })} ${n}`);
        }
      }
      return [
        "# HELP edgecron_last_success_timestamp_seconds When the newest successful run of a job finished.",
        "# TYPE edgecron_last_success_timestamp_seconds gauge",
        ...success,
        "# HELP edgecron_next_run_timestamp_seconds The next slot of a job.",
        "# TYPE edgecron_next_run_timestamp_seconds gauge",
        ...next,
        "# HELP edgecron_skipped_total Slots recorded without running, by reason (retained history).",
        "# TYPE edgecron_skipped_total counter",
        ...skipped,
      ];
    },
  };
}

async function lastSuccess(scheduler: Scheduler, job: JobInfo): Promise<number | undefined> {
  const last = job.lastOutcome;
  if (last?.status === "ok") return last.finishedAt ?? last.startedAt;
  if (last === undefined || (job.statusCounts !== undefined && (job.statusCounts["ok"] ?? 0) === 0)) return undefined;
  const rows = await scheduler.runs(job.name, { limit: SUCCESS_LOOKBACK });
  const ok = rows.find((r) => r.status === "ok");
  return ok === undefined ? undefined : ok.finishedAt ?? ok.startedAt;
}
