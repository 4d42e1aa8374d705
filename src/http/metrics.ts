/**
 * `createMetrics()`: Prometheus counters and histograms fed by `SchedulerEvent`s,
 * rendered in the text exposition format (version 0.0.4) at `GET /metrics`.
 */
import type { Scheduler, SchedulerEvent } from "../engine/types.ts";
import { createHistogram, type Histogram, labels, labelValue } from "./metrics_format.ts";
import { createStalenessCollector } from "./metrics_staleness.ts";
import { hostTurn } from "../engine/jobs/sort.ts";

/** What the router's `GET /metrics` adds at scrape time: jobs by state. */
export type JobStateCounts = Record<"active" | "paused" | "disabled" | "running", number>;

/** A metrics sink: pass `onEvent` to `createScheduler()` and the object to the router. */
export interface Metrics {
  /** The scheduler's `onEvent` listener. Never throws. */
  onEvent(event: SchedulerEvent): void;
  /** The exposition text; `jobs` adds the `edgecron_jobs{state}` gauge. */
  render(jobs?: JobStateCounts): string;
  /**
   * What `GET /metrics` answers: `render()` with the jobs of `scheduler` counted by
   * state, read page by page; runs series of jobs that no longer exist are dropped.
   */
  scrape(scheduler: Scheduler, now?: number): Promise<string>;
  /**
   * `scrape()`'s text in pieces of at most a page of jobs each (joined, they are the
   * text), so a server can send a large node's answer without encoding it in one go.
   */
  scrapeChunks(scheduler: Scheduler, now?: number): Promise<string[]>;
}

/** Options of `createMetrics()`. */
export interface MetricsOptions {
  /** Clock (epoch ms) for lateness and tick duration; default `Date.now`. */
  now?: () => number;
}

const OUTCOME_OF: Partial<Record<SchedulerEvent["type"], string>> = {
  succeeded: "ok",
  failed: "error",
  "timed-out": "timeout",
  skipped: "skipped",
  missed: "missed",
  abandoned: "abandoned",
};

const TICK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LATENESS_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const DURATION_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 600];

/**
 * Creates the metrics sink. Series: `edgecron_runs_total{job,outcome}` (attempt
 * outcomes: ok, error, timeout, skipped, missed, abandoned), `edgecron_claims_total{result}`
 * (won, lost), `edgecron_store_errors_total`, `edgecron_ticks_total`,
 * `edgecron_tick_duration_seconds` (from the tick's instant until it settled, its runs
 * included), `edgecron_lateness_seconds` (a scheduled slot's first attempt's start − slot),
 * `edgecron_run_duration_seconds` (successful attempts) and, at scrape time,
 * `edgecron_jobs{state}` and, read from the store (the same on every node),
 * `edgecron_last_success_timestamp_seconds{job}`, `edgecron_next_run_timestamp_seconds{job}`
 * and `edgecron_skipped_total{job,reason}` (`overlap`, `catch-up`).
 *
 * @example
 * ```ts
 * import { Hono } from "hono"; // your own dependency: npm i hono
 * import { createScheduler } from "edgecron";
 * import { createMetrics, edgecronRouter } from "edgecron/hono";
 *
 * const metrics = createMetrics();
 * const scheduler = createScheduler({ onEvent: metrics.onEvent });
 * const app = new Hono();
 * app.route("/cron", edgecronRouter(scheduler, { token: "a long random secret", metrics }));
 * ```
 */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const now = options.now ?? (() => Date.now());
  // Per job, per outcome: a nested map, so no job name (even one with a newline) can split a
  // key. Each job keeps its rendered lines until its next outcome, and the number of the
  // last scrape that saw it (a job no scrape sees any more is dropped).
  const runs = new Map<string, JobRuns>();
  let scrapes = 0;
  const claims = { won: 0, lost: 0 };
  let storeErrors = 0;
  let ticks = 0;
  const tickDuration = createHistogram(TICK_BUCKETS);
  const lateness = createHistogram(LATENESS_BUCKETS);
  const duration = createHistogram(DURATION_BUCKETS);

  const onEvent = (event: SchedulerEvent): void => {
    try {
      const outcome = OUTCOME_OF[event.type];
      if (outcome !== undefined && "job" in event) {
        let entry = runs.get(event.job);
        if (entry === undefined) {
          runs.set(event.job, entry = { job: event.job, outcomes: new Map(), text: undefined, seen: scrapes });
        }
        entry.outcomes.set(outcome, (entry.outcomes.get(outcome) ?? 0) + 1);
        entry.text = undefined;
      }
      switch (event.type) {
        case "claimed":
          claims.won++;
          break;
        case "lost":
          claims.lost++;
          break;
        case "store-error":
          storeErrors++;
          break;
        case "tick":
          ticks++;
          tickDuration.observe(Math.max(0, now() - event.now) / 1000);
          break;
        case "started":
          // Scheduled slots only: a backfill's slots are days late by design (each one
          // landed in +Inf, and the p99 stopped meaning anything), a manual run's slot is its start.
          if (event.attempt === 1 && event.kind === "scheduled") {
            lateness.observe(Math.max(0, now() - event.slot) / 1000);
          }
          break;
        case "succeeded":
          duration.observe(event.durationMs / 1000);
          break;
      }
    } catch {
      // Metrics must never disturb the scheduler.
    }
  };

  const runLines = (job: string, out: string[]): void => {
    const entry = runs.get(job);
    if (entry === undefined) return;
    for (const [outcome, n] of [...entry.outcomes].sort(([a], [b]) => (a < b ? -1 : 1))) {
      out.push(`edgecron_runs_total${labels({ job, outcome })} ${n}`);
    }
  };

  // A job's runs series as one piece of text, rendered again only after its next outcome;
  // marks the job seen by this scrape.
  const runText = (job: string, scrape: number): string => {
    const entry = runs.get(job);
    if (entry === undefined) return "";
    entry.seen = Math.max(entry.seen, scrape);
    if (entry.text !== undefined) return entry.text;
    const label = `edgecron_runs_total{job="${labelValue(job)}",outcome="`;
    let text = "";
    for (const [outcome, n] of [...entry.outcomes].sort(([a], [b]) => (a < b ? -1 : 1))) {
      text += `${label}${outcome}"} ${n}\n`;
    }
    return entry.text = text;
  };

  const render = (jobs?: JobStateCounts): string => {
    const series: string[] = [];
    for (const job of [...runs.keys()].sort()) runLines(job, series);
    return renderWith(series.map((line) => `${line}\n`), jobs).join("");
  };

  // The families this node counts, as pieces of text: the runs series (pieces given, each
  // ending in a newline) and the rest, rendered here.
  const renderWith = (series: readonly string[], jobs?: JobStateCounts): string[] => {
    const out: string[] = [];
    out.push(
      "# HELP edgecron_claims_total Slot claims this node won or lost to another node.",
      "# TYPE edgecron_claims_total counter",
    );
    out.push(
      `edgecron_claims_total${labels({ result: "won" })} ${claims.won}`,
      `edgecron_claims_total${labels({ result: "lost" })} ${claims.lost}`,
    );
    out.push(
      "# HELP edgecron_store_errors_total Store calls that failed or timed out.",
      "# TYPE edgecron_store_errors_total counter",
    );
    out.push(`edgecron_store_errors_total ${storeErrors}`);
    out.push(
      "# HELP edgecron_ticks_total Ticks settled.",
      "# TYPE edgecron_ticks_total counter",
      `edgecron_ticks_total ${ticks}`,
    );
    histogram(
      out,
      "edgecron_tick_duration_seconds",
      "From a tick's instant until it settled, its runs included.",
      tickDuration,
    );
    histogram(out, "edgecron_lateness_seconds", "Start of a slot's first attempt minus the slot.", lateness);
    histogram(out, "edgecron_run_duration_seconds", "Duration of successful attempts.", duration);
    if (jobs !== undefined) {
      out.push("# HELP edgecron_jobs Jobs by state.", "# TYPE edgecron_jobs gauge");
      for (const state of ["active", "paused", "disabled", "running"] as const) {
        out.push(`edgecron_jobs${labels({ state })} ${jobs[state]}`);
      }
    }
    return [
      "# HELP edgecron_runs_total Attempt outcomes by job.\n# TYPE edgecron_runs_total counter\n",
      ...series,
      `${out.join("\n")}\n`,
    ];
  };

  /**
   * Pages through the jobs by name (`summaries()`: one definitions page and one store
   * tally per page, no run history beyond it), a turn of the event loop between pages so
   * that a large node keeps its timers and heartbeats. Each page is rendered to text as
   * it comes (one piece per family and page), so a scrape is one pass over the jobs;
   * series of jobs that no longer exist are dropped.
   */
  const scrapeChunks = async (scheduler: Scheduler): Promise<string[]> => {
    const scrape = ++scrapes;
    const jobs: JobStateCounts = { active: 0, paused: 0, disabled: 0, running: 0 };
    const staleness = createStalenessCollector(scheduler);
    const series: string[] = [];
    let after: string | undefined;
    for (;;) {
      // One more than the page: the next page's first name says whether there is one.
      const page = await scheduler.summaries({
        limit: SCRAPE_PAGE + 1,
        ...(after === undefined ? {} : { after }),
      });
      const more = page.length > SCRAPE_PAGE;
      if (more) page.length = SCRAPE_PAGE;
      const text: string[] = [];
      for (const job of page) {
        const lines = runText(job.name, scrape);
        if (lines !== "") text.push(lines);
        if (job.runningSince !== undefined) jobs.running++;
        if (job.paused) jobs.paused++;
        else if (!job.enabled) jobs.disabled++;
        else jobs.active++;
      }
      series.push(text.join(""));
      await staleness.addPage(page);
      await nextTurn();
      if (!more) break;
      after = page.at(-1)!.name;
    }
    // Series of jobs this scrape did not see (deleted, or renamed) go; a job whose first
    // outcome came during the scrape, after its page, waits for the next one.
    let checked = 0;
    for (const entry of runs.values()) {
      if (entry.seen < scrape) runs.delete(entry.job);
      if (++checked % SWEEP_STEP === 0) await nextTurn();
    }
    return [...renderWith(series, jobs), ...staleness.pieces()];
  };

  return {
    onEvent,
    render,
    scrape: async (scheduler) => (await scrapeChunks(scheduler)).join(""),
    scrapeChunks,
  };
}

/** One job's runs series: counts by outcome, the rendered lines (until the next outcome), the last scrape that saw it. */
interface JobRuns {
  job: string;
  outcomes: Map<string, number>;
  text: string | undefined;
  seen: number;
}

/** Jobs per page of a scrape: small enough that one page holds the event loop well under 50 ms. */
export const SCRAPE_PAGE = 1000;

/** Runs series checked against the scrape's jobs between two turns (a set lookup each). */
const SWEEP_STEP = 20_000;

/** Yields to timers and I/O (a store that answers from memory resolves in the same turn): {@link hostTurn}. */
export const nextTurn: () => Promise<void> = hostTurn;

function histogram(out: string[], name: string, help: string, h: Histogram): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} histogram`, ...h.lines(name));
}
