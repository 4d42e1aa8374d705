/**
 * The HTTP layer's one way to read jobs: `listJobsWithFallback()` asks the scheduler's
 * read API (`list({ next, window, after, limit })`, at most two store reads for any
 * number of jobs) and pages the answer.
 *
 * PRE-MERGE FALLBACK: until the engine's `ListOptions` lands, `scheduler.list()` takes
 * only `{ next }` and its `JobInfo` has no `recent` / `upcoming`. This file then sorts
 * and pages in memory and computes `upcoming` from the schedule and `recent` with one
 * `runs()` call per listed job. Once the engine's read API is merged, delete every
 * branch marked FALLBACK (the tests keep passing: they check the shape, not the path).
 */
import { tryParseDuration } from "../core/duration.ts";
import { schedule } from "../core/schedule.ts";
import type { JobInfo, Scheduler } from "../engine/types.ts";
import type { RunRecord } from "../store/types.ts";

/** Planned fires of a job in `(now, now + window]`; empty for a paused or disabled job. */
export interface UpcomingSlots {
  count: number;
  first: number | undefined;
  last: number | undefined;
  /** At most 200, oldest first. */
  slots: number[];
}

/** A listed job; `recent` and `upcoming` are present when a `window` was asked for. */
export interface ListedJob extends JobInfo {
  recent?: RunRecord[];
  upcoming?: UpcomingSlots;
}

/** The agreed `scheduler.list()` options (engine's `ListOptions`). */
export interface ListQuery {
  /** Upcoming fire times per job in `next`; default 5. */
  next?: number;
  /** Horizon in ms for `recent` and `upcoming`. */
  window?: number;
  /** Jobs sorted by name, strictly after this name. */
  after?: string;
  /** Page size. */
  limit: number;
}

/** One page of jobs and the cursor of the next page (null on the last page). */
export interface JobPage {
  jobs: ListedJob[];
  nextAfter: string | null;
}

/** Next slots per job when the query names none (the engine's default). */
const DEFAULT_NEXT = 5;
const RECENT_MAX = 50;
const UPCOMING_SLOTS = 200;
/** FALLBACK: counting fires stops here (a 1 s schedule over 24 h is 86 400). */
const COUNT_CAP = 100_000;

type ListFn = (options: Omit<ListQuery, "limit"> & { limit?: number }) => Promise<ListedJob[]>;

/**
 * Reads one page of jobs sorted by name: `limit` jobs strictly after `after`, with
 * `recent` and `upcoming` when `window` is given. A paused or disabled job has no
 * `next` and `upcoming.count` 0: it will not fire.
 *
 * @throws {SchedulerError} `store-error` when the store cannot be reached.
 */
export async function listJobsWithFallback(scheduler: Scheduler, query: ListQuery, now: number): Promise<JobPage> {
  const list = scheduler.list.bind(scheduler) as ListFn;
  // `next` is computed below for the page only: an engine without paging would
  // otherwise step every job's schedule for a page of 100.
  const asked = { ...query, next: 0, limit: query.limit + 1 };
  let jobs = await list(asked);
  // FALLBACK: an engine without paging returns every job in registry order.
  jobs = jobs.filter((j) => query.after === undefined || j.name > query.after).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const more = jobs.length > query.limit;
  const count = query.next ?? DEFAULT_NEXT;
  const page = jobs.slice(0, query.limit).map((j) => quiet({ ...j, next: nextRunsOf(j, now, count) }));
  if (query.window !== undefined && page.some((j) => j.recent === undefined || j.upcoming === undefined)) {
    await fillWindow(scheduler, page, query.window, now); // FALLBACK
  }
  return { jobs: page, nextAfter: more ? page.at(-1)!.name : null };
}

function nextRunsOf(job: JobInfo, now: number, count: number): number[] {
  if (count === 0 || job.paused || !job.enabled) return [];
  try {
    return schedule(job.spec).nextRuns(now, count);
  } catch {
    return []; // a user-supplied Schedule the spec cannot rebuild; ticks log it
  }
}

/** The step and anchor of an `every` schedule on a fixed grid (an instant anchor, or none). */
function gridOf(spec: JobInfo["spec"]): { step: number; anchor: number } | undefined {
  if (!("every" in spec) || typeof spec.anchor === "string") return undefined;
  const step = tryParseDuration(spec.every);
  return step === undefined || step <= 0 ? undefined : { step, anchor: spec.anchor ?? 0 };
}

/** A job that will not fire lists no next slots (FALLBACK: the engine does it after the merge). */
function quiet(job: ListedJob): ListedJob {
  if (!job.paused && job.enabled) return job;
  const out: ListedJob = { ...job, next: [] };
  if (job.upcoming) out.upcoming = { count: 0, first: undefined, last: undefined, slots: [] };
  return out;
}

/** FALLBACK: `recent` with one `runs()` per job, `upcoming` from the schedule. */
async function fillWindow(scheduler: Scheduler, page: ListedJob[], window: number, now: number): Promise<void> {
  await Promise.all(page.map(async (job) => {
    const runs = await scheduler.runs(job.name, { limit: RECENT_MAX });
    job.recent = runs.filter((r) => r.slot >= now - window);
    job.upcoming = job.paused || !job.enabled ? { count: 0, first: undefined, last: undefined, slots: [] } : upcomingSlots(job, now, window);
  }));
}

/**
 * The fires of `job` in `(now, now + window]` from its schedule: how many (counting stops
 * at 100 000), the first and last, and the first 200. Used by a job's page, and by the
 * FALLBACK above for lists.
 */
export function upcomingSlots(job: JobInfo, now: number, window: number): UpcomingSlots {
  const slots: number[] = [];
  let count = 0;
  let last: number | undefined;
  try {
    const grid = gridOf(job.spec);
    for (const t of schedule(job.spec).between(now, now + window)) {
      if (slots.length < UPCOMING_SLOTS) slots.push(t);
      last = t;
      count++;
      // A fixed grid (`every` from an instant) is counted, not walked: 86 400 for 1 s.
      if (grid !== undefined && slots.length === UPCOMING_SLOTS) {
        const end = grid.anchor + Math.floor((now + window - grid.anchor) / grid.step) * grid.step;
        return { count: count + Math.round((end - t) / grid.step), first: slots[0], last: end, slots };
      }
      if (count >= COUNT_CAP) break;
    }
  } catch {
    // A user-supplied Schedule object the spec cannot rebuild: show what `next` knows.
    slots.push(...job.next.filter((t) => t <= now + window));
    count = slots.length;
    last = slots.at(-1);
  }
  return { count, first: slots[0], last, slots };
}
