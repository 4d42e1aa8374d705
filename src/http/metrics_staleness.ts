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
  /** Each job's lines as this scrape rendered them: pass it to the next scrape's collector. */
  rendered(): StalenessCache;
}

/** Each job's staleness lines by name, with the values they were rendered from. */
export type StalenessCache = Map<string, JobLines>;

/** One job's three families' lines (each "" when the job has none) and the values behind them. */
interface JobLines {
  at: number | undefined;
  next: number | undefined;
  /** skipped − full, full, missed; undefined without `statusCounts`. */
  skips: [number, number, number] | undefined;
  success: string;
  nextRun: string;
  skipped: string;
}

/**
 * Creates a collector for one scrape. The last success is the newest `ok` row's finish
 * (the job list's last outcome, or a read of up to 1 000 rows when that one failed);
 * the next run is the job's next slot (absent while paused, disabled, ended or
 * completed); skips count `skipped` rows a full buffer dropped as `buffer-full`, the
 * other `skipped` rows as `overlap` and `missed` rows as `catch-up`, over the retained
 * history. Each job is rendered once, as its page comes: a scrape keeps text, not the
 * jobs. A job whose values are those `previous` rendered it with reuses its lines
 * (most jobs, between two scrapes: no number is formatted and no label escaped again).
 */
export function createStalenessCollector(
  scheduler: Scheduler,
  previous: StalenessCache = new Map(),
): StalenessCollector {
  const success: string[] = [], next: string[] = [], skipped: string[] = [];
  const rendered: StalenessCache = new Map();
  // Each family's page is one join of its jobs' lines (flat strings, so the stream
  // encodes the joined page without flattening thousands of small pieces). The three
  // lists are kept from page to page (overwritten, not rebuilt).
  const s: string[] = [], n: string[] = [], k: string[] = [];
  return {
    async addPage(jobs) {
      // Written by index and cut to length before the join: a list keeps its backing store.
      let a = 0, b = 0, c = 0;
      for (const job of jobs) {
        // Most jobs' newest outcome says it all; only the others cost an await and a read.
        const known = successOf(job);
        const at = known === LOOK ? await lastSuccess(scheduler, job) : known;
        const counts = job.statusCounts;
        let lines = previous.get(job.name);
        if (lines === undefined || lines.at !== at || lines.next !== job.next || !sameSkips(lines.skips, job)) {
          lines = render(job, at);
        }
        rendered.set(job.name, lines);
        if (lines.success !== "") s[a++] = lines.success;
        if (lines.nextRun !== "") n[b++] = lines.nextRun;
        if (counts !== undefined) k[c++] = lines.skipped;
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
    rendered: () => rendered,
  };
}

/** The skip counts a job's `edgecron_skipped_total` lines show: overlap, buffer-full, catch-up. */
function skipsOf(job: JobSummary): [number, number, number] | undefined {
  const counts = job.statusCounts;
  if (counts === undefined) return undefined;
  const skipped = counts["skipped"] ?? 0;
  const full = Math.min(job.bufferFull ?? 0, skipped);
  return [skipped - full, full, counts["missed"] ?? 0];
}

function sameSkips(seen: [number, number, number] | undefined, job: JobSummary): boolean {
  const counts = job.statusCounts;
  if (seen === undefined || counts === undefined) return seen === undefined && counts === undefined;
  const skipped = counts["skipped"] ?? 0;
  const full = Math.min(job.bufferFull ?? 0, skipped);
  return seen[0] === skipped - full && seen[1] === full && seen[2] === (counts["missed"] ?? 0);
}

/** A job's three families' lines. */
function render(job: JobSummary, at: number | undefined): JobLines {
  const label = `{job="${labelValue(job.name)}"`;
  const skips = skipsOf(job);
  return {
    at,
    next: job.next,
    skips,
    success: at === undefined ? "" : `edgecron_last_success_timestamp_seconds${label}} ${at / 1000}\n`,
    nextRun: job.next === undefined ? "" : `edgecron_next_run_timestamp_seconds${label}} ${job.next / 1000}\n`,
    skipped: skips === undefined ? "" : `edgecron_skipped_total${label},reason="overlap"} ${skips[0]}\n` +
      `edgecron_skipped_total${label},reason="buffer-full"} ${skips[1]}\n` +
      `edgecron_skipped_total${label},reason="catch-up"} ${skips[2]}\n`,
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
