/**
 * Staleness gauges for `GET /metrics`, read from the store through `summaries()` so
 * every node reports the same: `edgecron_last_success_timestamp_seconds{job}`,
 * `edgecron_next_run_timestamp_seconds{job}` and `edgecron_skipped_total{job,reason}`
 * (reason `overlap`, `buffer-full` or `catch-up`).
 */
import type { JobSummary, Scheduler } from "../engine/types.ts";
import { labelValue } from "./metrics_format.ts";

/** Rows a scrape reads back for a job whose newest outcome is not `ok`, looking for its last success. */
const SUCCESS_LOOKBACK = 1000;

/** Collects the jobs of one scrape's pages, then renders the staleness series. */
export interface StalenessCollector {
  /**
   * Adds a page of jobs: their lines are rendered now (one string per family and page),
   * reading the run history only of jobs whose newest outcome is not a success.
   */
  addPage(jobs: readonly JobSummary[]): Promise<void>;
  /** The three families' exposition text, in pieces of at most a page each, every line ending in a newline. */
  pieces(): string[];
}

/**
 * Creates a collector for one scrape. The last success is the newest `ok` row's finish
 * (the job list's last outcome, or a read of up to 1 000 rows when that one failed);
 * the next run is the job's next slot (absent while paused, disabled, ended or
 * completed); skips count `skipped` rows a full buffer dropped as `buffer-full`, the
 * other `skipped` rows as `overlap` and `missed` rows as `catch-up`, over the retained
 * history. Each job is rendered once, as its page comes: a scrape
 * keeps text, not the jobs.
 */
export function createStalenessCollector(scheduler: Scheduler): StalenessCollector {
  const success: string[] = [], next: string[] = [], skipped: string[] = [];
  // Each family's page is gathered as one line per job (the skips' three lines as one)
  // and joined once: the joined page is flat, so the stream encodes it without first
  // flattening a rope. A string per line joins faster than its five parts did (a join
  // pays per piece: 24 pieces a job made the joins most of the family's time). The
  // three line lists are kept from page to page (overwritten, not rebuilt), so they
  // grow once per scrape instead of once per page.
  const s: string[] = [], n: string[] = [], k: string[] = [];
  return {
    async addPage(jobs) {
      // Written by index and cut to length before the join: a list keeps its backing store.
      let a = 0, b = 0, c = 0;
      for (const job of jobs) {
        const name = labelValue(job.name);
        // Most jobs' newest outcome says it all; only the others cost an await and a read.
        const known = successOf(job);
        const at = known === LOOK ? await lastSuccess(scheduler, job) : known;
        if (at !== undefined) s[a++] = `edgecron_last_success_timestamp_seconds{job="${name}"} ${at / 1000}\n`;
        if (job.next !== undefined) n[b++] = `edgecron_next_run_timestamp_seconds{job="${name}"} ${job.next / 1000}\n`;
        const counts = job.statusCounts;
        if (counts !== undefined) {
          const skipped = counts["skipped"] ?? 0;
          const full = Math.min(job.bufferFull ?? 0, skipped);
          k[c++] = `edgecron_skipped_total{job="${name}",reason="overlap"} ${skipped - full}\n` +
            `edgecron_skipped_total{job="${name}",reason="buffer-full"} ${full}\n` +
            `edgecron_skipped_total{job="${name}",reason="catch-up"} ${counts["missed"] ?? 0}\n`;
        }
      }
      s.length = a;
      n.length = b;
      k.length = c;
      success.push(s.join(""));
      next.push(n.join(""));
      skipped.push(k.join(""));
    },
    pieces() {
      return [
        "# HELP edgecron_last_success_timestamp_seconds When the newest successful run of a job finished.\n",
        "# TYPE edgecron_last_success_timestamp_seconds gauge\n",
        ...success,
        "# HELP edgecron_next_run_timestamp_seconds The next slot of a job.\n",
        "# TYPE edgecron_next_run_timestamp_seconds gauge\n",
        ...next,
        "# HELP edgecron_skipped_total Slots recorded without running, by reason (retained history).\n",
        "# TYPE edgecron_skipped_total counter\n",
        ...skipped,
      ];
    },
  };
}

/** Marks a job whose last success only its run history can tell. */
const LOOK = Symbol("look");

/** The last success as the job list tells it, or LOOK when the newest outcome failed after a success. */
function successOf(job: JobSummary): number | undefined | typeof LOOK {
  const last = job.lastOutcome;
  if (last?.status === "ok") return last.finishedAt ?? last.startedAt;
  if (last === undefined || (job.statusCounts !== undefined && (job.statusCounts["ok"] ?? 0) === 0)) return undefined;
  return LOOK;
}

async function lastSuccess(scheduler: Scheduler, job: JobSummary): Promise<number | undefined> {
  const rows = await scheduler.runs(job.name, { limit: SUCCESS_LOOKBACK });
  const ok = rows.find((r) => r.status === "ok");
  return ok === undefined ? undefined : ok.finishedAt ?? ok.startedAt;
}
