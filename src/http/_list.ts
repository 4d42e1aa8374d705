/**
 * The HTTP layer's one way to read a page of jobs: the scheduler's read API
 * (`list({ next, window, after, limit })`: at most two store reads for any number of
 * jobs, no write), asked for one job more than the page so the cursor is known.
 */
import type { JobInfo, ListOptions, Scheduler } from "../engine/types.ts";

/** What a page asks for: the scheduler's `ListOptions` with a required page size. */
export type ListQuery = Omit<ListOptions, "limit"> & { limit: number };

/** One page of jobs and the cursor of the next page (null on the last page). */
export interface JobPage {
  /** `recent` and `upcoming` are present when a `window` was asked for. */
  jobs: JobInfo[];
  nextAfter: string | null;
}

/**
 * Reads one page of jobs sorted by name: `limit` jobs strictly after `after`, with
 * `recent` and `upcoming` when `window` is given. A paused or disabled job has no
 * `next` and `upcoming.count` 0: it will not fire.
 *
 * @throws {SchedulerError} `store-error` when the store cannot be reached.
 */
export async function listJobs(scheduler: Scheduler, query: ListQuery): Promise<JobPage> {
  const jobs = await scheduler.list({ ...query, limit: query.limit + 1 });
  const page = jobs.slice(0, query.limit);
  return { jobs: page, nextAfter: jobs.length > query.limit ? page.at(-1)!.name : null };
}
