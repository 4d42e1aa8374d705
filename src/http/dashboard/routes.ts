/**
 * Dashboard routes. Browsers sign in by posting the token once; the session cookie
 * (HttpOnly, SameSite=Strict, Path = the mount) then authorises page views and the
 * run/pause/resume forms, which also need the session's CSRF token and a same-origin
 * `Origin` / `Sec-Fetch-Site`. The cookie never authorises the JSON API's writes.
 */
import type { Context, Hono } from "hono";
import type { JobInfo, Scheduler } from "../../engine/types.ts";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { sameOrigin, SESSION_COOKIE } from "../_auth.ts";
import { readForm } from "../_body.ts";
import { isHttps } from "../_headers.ts";
import { clientKey } from "../_throttle.ts";
import { basePath, homePath, requireAuth, type RouterContext } from "../_context.ts";
import { validate } from "../_errors.ts";
import { startBackfill } from "../_backfill.ts";
import { SchedulerError } from "../../core/errors.ts";
import { JOB_NAME } from "../../engine/jobs/spec.ts";
import { NameSchema } from "../_schemas.ts";
import { listJobs } from "../_list.ts";
import { JOBS_PAGE } from "../_paging.ts";
import { layout, loginPage, notFound, refusedPage } from "./_layout.ts";
import { jobHref, type JobView } from "./_job.ts";
import { plannedSpans } from "./_planned.ts";
import { formatterCache } from "./_format.ts";
import { jobPage, type Notice, overviewPage } from "./pages.ts";

const DAY = 86_400_000;
const OVERVIEW_NEXT = 3;
const JOB_NEXT = 10;
const HISTORY_LIMIT = 50;
/** Seconds between the pages' meta refreshes. */
const REFRESH = 30;
const OUTCOME =
  /^(?:ok|error|timeout|skipped|missed|abandoned|cancelled|running|already-running|not-due|paused|lost|unknown-job|resumed|planned-\d{1,5}|invalid-spec|invalid-instant)$/;

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
  return slot !== undefined && /^\d{1,16}$/.test(slot)
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

function htmlHeaders(c: Context): void {
  c.header(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header("X-Content-Type-Options", "nosniff");
  // Not "no-referrer": with it browsers send `Origin: null` on form posts, which the CSRF check refuses.
  c.header("Referrer-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
}

/** Registers `GET /`, `GET /ui/jobs/:name`, `POST /ui/login`, `/ui/logout` and `/ui/jobs/:name/{run,pause,resume,backfill}`. */
export function registerDashboard(app: Hono, rc: RouterContext): void {
  const { scheduler, auth } = rc;
  /** The answer to a form that failed its CSRF check (logout, run, pause, resume, backfill). */
  const staleForm = async (c: Context, base: string): Promise<Response> =>
    c.html(
      await refusedPage(
        rc.title,
        homePath(base),
        "Refused: the form is stale or came from another site. Reload the page and try again.",
      ),
      403,
    );
  /** A job form is the dashboard's own: same origin, and a bearer token or the session's CSRF token. */
  const formAllowed = async (c: Context, form: URLSearchParams): Promise<boolean> => {
    const viaBearer = await auth.bearer(c.req.raw);
    return sameOrigin(c.req.raw) && (viaBearer || await auth.checkCsrf(getCookie(c, SESSION_COOKIE), form.get("csrf")));
  };
  const page = (route: string) =>
    requireAuth(rc, {
      cookie: true,
      onDenied: async (c) => {
        htmlHeaders(c);
        return c.html(await loginPage(rc.title, basePath(c, route)), 401);
      },
    });
  const chrome = async (c: Context, base: string, now: number) => {
    const session = getCookie(c, SESSION_COOKIE);
    const csrf = await auth.csrf(session);
    return {
      csrf,
      chrome: {
        title: rc.title,
        base,
        home: homePath(base),
        now,
        health: await scheduler.health(),
        ...(auth.required && session ? { csrf } : {}),
      },
    };
  };

  app.get("/", page("/"), rc.cache.middleware, async (c) => {
    htmlHeaders(c);
    const base = basePath(c, "/");
    const now = rc.now();
    const afterText = c.req.query("after");
    const after = afterText !== undefined && JOB_NAME.test(afterText) ? afterText : undefined;
    const { jobs, nextAfter } = await listJobs(scheduler, {
      next: OVERVIEW_NEXT,
      window: DAY,
      limit: JOBS_PAGE,
      ...(after === undefined ? {} : { after }),
    });
    const views = jobs.map((info) => viewOf(info, info.recent ?? [], info.upcoming?.count ?? 0, now));
    const { csrf, chrome: ch } = await chrome(c, base, now);
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
        { ...ch, refreshSeconds: REFRESH, refreshUrl: refreshUrl(c, "after") },
        "Jobs",
        overviewPage(views, cc, await withError(scheduler, noticeFrom(c))),
      ),
    );
  });

  app.get("/ui/jobs/:name", page("/ui/jobs/:name"), rc.cache.middleware, async (c) => {
    htmlHeaders(c);
    const base = basePath(c, "/ui/jobs/:name");
    const name = validate(NameSchema, c.req.param("name"), "params.name");
    const beforeText = c.req.query("before");
    const before = beforeText !== undefined && /^\d{1,16}$/.test(beforeText) ? Number(beforeText) : undefined;
    const now = rc.now();
    const info = await scheduler.get(name, { next: JOB_NEXT, window: DAY });
    const { csrf, chrome: ch } = await chrome(c, base, now);
    if (info === undefined) {
      return c.html(await layout(ch, "Not found", notFound(homePath(base), name)), 404);
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
        { ...ch, refreshSeconds: REFRESH, refreshUrl: refreshUrl(c, "before") },
        name,
        jobPage(view, history, cc, await withError(scheduler, noticeFrom(c))),
      ),
    );
  });

  app.post("/ui/login", async (c) => {
    htmlHeaders(c);
    const base = basePath(c, "/ui/login");
    if (!sameOrigin(c.req.raw)) {
      return c.html(await refusedPage(rc.title, homePath(base), "Refused: cross-site sign-in."), 403);
    }
    const form = await readForm(c.req.raw, rc.maxBodyBytes);
    const client = clientKey(c.req.raw, rc.trustProxy);
    const wait = rc.throttle.wait(client, rc.now());
    if (wait > 0) {
      c.header("Retry-After", String(Math.ceil(wait / 1000)));
      return c.html(await loginPage(rc.title, base, "Too many wrong tokens; wait and try again."), 429);
    }
    // Counted as a failure before the (async) check, so concurrent guesses cannot all slip in.
    rc.throttle.failed(client, rc.now());
    if (!await auth.login(form.get("token") ?? "")) return c.html(await loginPage(rc.title, base, "Wrong token."), 401);
    rc.throttle.succeeded(client);
    if (auth.required) {
      setCookie(c, SESSION_COOKIE, await auth.issueSession(rc.now()), {
        httpOnly: true,
        sameSite: "Strict",
        path: homePath(base),
        secure: rc.secureCookie ?? isHttps(c.req.raw, rc.trustProxy),
        maxAge: Math.floor(rc.sessionTtlMs / 1000),
      });
    }
    return c.redirect(homePath(base), 303);
  });

  app.post("/ui/logout", async (c) => {
    const base = basePath(c, "/ui/logout");
    if (!sameOrigin(c.req.raw)) {
      return c.html(await refusedPage(rc.title, homePath(base), "Refused: cross-site request."), 403);
    }
    // Sessions are not tracked one by one: signing out ends every session, on every node,
    // so it takes the same CSRF token as the other forms (a same-origin link or a script
    // injected elsewhere on the origin must not sign everyone out).
    const session = getCookie(c, SESSION_COOKIE);
    const form = await readForm(c.req.raw, rc.maxBodyBytes);
    if (await auth.session(session, rc.now())) {
      if (!await auth.checkCsrf(session, form.get("csrf"))) {
        htmlHeaders(c);
        return await staleForm(c, base);
      }
      await auth.revokeAll(rc.now());
    }
    deleteCookie(c, SESSION_COOKIE, { path: homePath(base) });
    return c.redirect(homePath(base), 303);
  });

  for (const verb of ["run", "pause", "resume"] as const) {
    const route = `/ui/jobs/:name/${verb}`;
    app.post(route, page(route), async (c) => {
      htmlHeaders(c);
      const base = basePath(c, route);
      const name = validate(NameSchema, c.req.param("name"), "params.name");
      const form = await readForm(c.req.raw, rc.maxBodyBytes);
      if (!await formAllowed(c, form)) return await staleForm(c, base);
      let result: string;
      let slot: number | undefined;
      if (await scheduler.get(name) === undefined) {
        result = "unknown-job";
      } else if (verb === "run") {
        const r = await scheduler.run(name, { mode: "force" });
        result = r.ok ? r.outcome : r.reason.replace(/ /g, "-");
        if (r.ok) slot = r.slot;
      } else {
        const note = verb === "pause" ? (form.get("note") ?? "").trim() : "";
        if (verb === "pause") {
          await scheduler.pause(
            name,
            note === "" ? { by: "dashboard" } : { note: note.slice(0, 500), by: "dashboard" },
          );
        } else await scheduler.resume(name);
        result = verb === "pause" ? "paused" : "resumed";
      }
      rc.cache.clear();
      const back = form.get("back") === "job" ? jobHref(base, name) : homePath(base);
      const q = new URLSearchParams({
        done: verb,
        job: name,
        result,
        ...(slot === undefined ? {} : { slot: String(slot) }),
      });
      return c.redirect(`${back}?${q}`, 303);
    });
  }

  const backfillRoute = "/ui/jobs/:name/backfill";
  app.post(backfillRoute, page(backfillRoute), async (c) => {
    htmlHeaders(c);
    const base = basePath(c, backfillRoute);
    const name = validate(NameSchema, c.req.param("name"), "params.name");
    const form = await readForm(c.req.raw, rc.maxBodyBytes);
    if (!await formAllowed(c, form)) return await staleForm(c, base);
    let result: string;
    if (await scheduler.get(name) === undefined) {
      result = "unknown-job";
    } else {
      // A form sends text: an all-digit value is epoch milliseconds, anything else an ISO instant.
      const instant = (
        value: string | null,
      ): string | number => (value !== null && /^\d{1,16}$/.test(value.trim()) ? Number(value) : (value ?? "").trim());
      try {
        const slots = await startBackfill(c, rc, name, {
          from: instant(form.get("from")),
          to: instant(form.get("to")),
          rerun: form.get("rerun") === "1",
        });
        result = `planned-${slots.length}`;
      } catch (e) {
        if (!(e instanceof SchedulerError)) throw e;
        result = e.code === "invalid-instant" ? "invalid-instant" : "invalid-spec";
      }
    }
    rc.cache.clear();
    const q = new URLSearchParams({ done: "backfill", job: name, result });
    return c.redirect(`${jobHref(base, name)}?${q}`, 303);
  });
}
