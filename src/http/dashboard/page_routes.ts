/** The dashboard's pages: `GET /` (every job) and `GET /ui/jobs/:name` (one job and its history). */
import type { Context, Hono } from "hono";
import { quote } from "../../core/errors.ts";
import type { JobInfo, Scheduler } from "../../engine/types.ts";
import { JOB_NAME } from "../../engine/jobs/spec.ts";
import { basePath, homePath, type RouterContext } from "../_context.ts";
import { type ErrorStatus, validate } from "../_errors.ts";
import { listJobs } from "../_list.ts";
import { JOBS_PAGE } from "../_paging.ts";
import { NameSchema, queryInstant } from "../_schemas.ts";
import { badQuery, layout, notFound } from "./_layout.ts";
import { jobHref, type JobView } from "./_job.ts";
import { plannedSpans } from "./_planned.ts";
import { formatterCache } from "./_format.ts";
import { jobPage, type Notice, overviewCards, overviewPage } from "./pages.ts";
import { nextTurn } from "../metrics.ts";
import { chromeOf, htmlHeaders, pageAuth } from "./_shared.ts";

const DAY = 86_400_000;
const OVERVIEW_NEXT = 3;
const JOB_NEXT = 10;
const HISTORY_LIMIT = 50;
/** Seconds between the pages' meta refreshes. */
const REFRESH = 30;
const OUTCOME =
  /^(?:ok|error|timeout|skipped|missed|abandoned|cancelled|running|already-running|not-due|paused|lost|unknown-job|resumed|planned-\d{1,5})$/;

function noticeFrom(c: Context): Notice | undefined {
  const action = c.req.query("done");
  const job = c.req.query("job");
  const result = c.req.query("result");
  if (
    (action !== "run" && action !== "pause" && action !== "resume" && action !== "backfill") || job === undefined ||
    result === undefined
  ) return undefined;
  if (!JOB_NAME.test(job) || !OUTCOME.test(result)) return undefined;
  const slot = c.req.query("slot");
  // 15 digits: a slot is at most 8.64e15, and the store refuses a larger cursor (the page was its JSON 400).
  return slot !== undefined && /^\d{1,15}$/.test(slot)
    ? { action, job, result, slot: Number(slot) }
    : { action, job, result };
}

/** A failed manual run's notice with its recorded error (looked up by slot in the store, so a crafted URL shows nothing new). */
async function withError(scheduler: Scheduler, notice: Notice | undefined): Promise<Notice | undefined> {
  if (notice?.slot === undefined || notice.result === "ok") return notice;
  const [run] = await scheduler.runs(notice.job, { before: notice.slot + 1, limit: 1 });
  return run !== undefined && run.slot === notice.slot && run.error !== null ? { ...notice, error: run.error } : notice;
}

/** A card's data: nothing planned for a job that will not fire. */
function viewOf(info: JobInfo, past: JobView["past"], count: number, now: number): JobView {
  const quiet = info.paused || !info.enabled;
  return {
    info: quiet ? { ...info, next: [] } : info,
    past,
    planned: quiet || count === 0 ? { count: 0, spans: [] } : {
      count,
      spans: plannedSpans(
        info.spec,
        now,
        now + DAY,
        undefined,
        info.jitter === undefined ? undefined : { name: info.name, ms: info.jitter },
      ),
    },
  };
}

/** The page's own URL without the notice of an action, for the meta refresh. */
function refreshUrl(c: Context, keep: string): string {
  const url = new URL(c.req.url);
  const value = url.searchParams.get(keep);
  return `${url.pathname}${value === null ? "" : `?${keep}=${encodeURIComponent(value)}`}`;
}

/** Registers `GET /`: every job's card, a page of {@link JOBS_PAGE} at a time (`?after=`). */
export function registerOverview(app: Hono, rc: RouterContext): void {
  const { scheduler } = rc;
  app.get("/", pageAuth(rc, "/"), rc.cache.middleware, async (c) => {
    htmlHeaders(c);
    const base = basePath(c, "/");
    const now = rc.now();
    const after = c.req.query("after");
    // As the job page's `before`: a bad cursor is said, not read as the first page.
    if (after !== undefined && !JOB_NAME.test(after)) {
      const { chrome } = await chromeOf(rc, c, base, now);
      const message = `expected a job name, got ${quote(after)}`;
      return c.html(
        await layout(chrome, "Bad address", badQuery(homePath(base), "The first jobs", "after", message)),
        400,
      );
    }
    const { jobs, nextAfter } = await listJobs(scheduler, {
      next: OVERVIEW_NEXT,
      window: DAY,
      limit: JOBS_PAGE,
      ...(after === undefined ? {} : { after }),
    });
    const views = jobs.map((info) => viewOf(info, info.recent ?? [], info.upcoming?.count ?? 0, now));
    const { csrf, chrome } = await chromeOf(rc, c, base, now);
    const cc = {
      base,
      now,
      csrf,
      back: "home" as const,
      listNext: OVERVIEW_NEXT,
      nextAfter,
      paged: after !== undefined,
      formatterFor: formatterCache(),
    };
    return c.html(
      await layout(
        { ...chrome, refreshSeconds: REFRESH, refreshUrl: refreshUrl(c, "after") },
        "Jobs",
        overviewPage(await overviewCards(views, cc, nextTurn), cc, await withError(scheduler, noticeFrom(c))),
      ),
    );
  });
}

/** Registers `GET /ui/jobs/:name`: one job's card and its run history, {@link HISTORY_LIMIT} rows a page (`?before=`). */
export function registerJobPage(app: Hono, rc: RouterContext): void {
  app.get("/ui/jobs/:name", pageAuth(rc, "/ui/jobs/:name"), rc.cache.middleware, async (c) => {
    htmlHeaders(c);
    const base = basePath(c, "/ui/jobs/:name");
    const name = validate(NameSchema, c.req.param("name"), "params.name");
    // The API's cursor: epoch ms (negative before 1970) or an ISO instant with an offset.
    const beforeText = c.req.query("before");
    const before = beforeText === undefined ? undefined : queryInstant(beforeText);
    if (typeof before === "string") {
      const { chrome } = await chromeOf(rc, c, base, rc.now());
      return c.html(
        await layout(chrome, "Bad address", badQuery(jobHref(base, name), "The newest runs", "before", before)),
        400,
      );
    }
    const notice = await withError(rc.scheduler, noticeFrom(c));
    return await jobPageAnswer(c, rc, base, name, { before, refresh: refreshUrl(c, "before"), notice });
  });
}

/**
 * One job's page: the answer to its GET, and to a refused job form (`status` as the API's,
 * the notice saying what the API says: never carried in a URL, where anyone could write it).
 */
export async function jobPageAnswer(
  c: Context,
  rc: RouterContext,
  base: string,
  name: string,
  o: { before?: number | undefined; refresh: string; notice: Notice | undefined; status?: ErrorStatus },
): Promise<Response> {
  const { scheduler } = rc;
  const { before } = o;
  const now = rc.now();
  const { csrf, chrome } = await chromeOf(rc, c, base, now);
  const info = await scheduler.get(name, { next: JOB_NEXT, window: DAY });
  if (info === undefined) {
    return c.html(await layout(chrome, "Not found", notFound(homePath(base), name)), 404);
  }
  const history = await scheduler.runs(
    name,
    before === undefined ? { limit: HISTORY_LIMIT } : { limit: HISTORY_LIMIT, before },
  );
  const last = history.at(-1);
  const view = viewOf(info, info.recent ?? [], info.upcoming?.count ?? 0, now);
  const cc = {
    base,
    now,
    csrf,
    back: "job" as const,
    listNext: JOB_NEXT,
    nextBefore: history.length === HISTORY_LIMIT && last ? last.slot : null,
    paged: before !== undefined,
    formatterFor: formatterCache(),
  };
  return c.html(
    await layout(
      { ...chrome, refreshSeconds: REFRESH, refreshUrl: o.refresh },
      name,
      jobPage(view, history, cc, o.notice),
    ),
    o.status ?? 200,
  );
}
