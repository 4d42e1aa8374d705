/**
 * The job forms: `POST /ui/jobs/:name/{run,pause,resume,backfill}`. Each needs a signed-in
 * session (or a bearer token) and passes {@link formAllowed}, then redirects back with a
 * notice of what happened (`?done=&job=&result=`), or answers a refusal with the job page
 * saying why.
 */
import type { Context, Hono } from "hono";
import { SchedulerError } from "../../core/errors.ts";
import { startBackfill } from "../_backfill.ts";
import { readForm } from "../_body.ts";
import { basePath, homePath, type RouterContext } from "../_context.ts";
import { toErrorResponse, validate } from "../_errors.ts";
import { NameSchema, PauseBodySchema } from "../_schemas.ts";
import { jobHref } from "./_job.ts";
import { formAllowed, htmlHeaders, pageAuth, staleForm } from "./_shared.ts";
import { jobPageAnswer } from "./page_routes.ts";
import type { Notice } from "./pages.ts";

/** A refused job form's answer: the job page, its notice saying what the API says, with the API's status. */
async function refused(
  c: Context,
  rc: RouterContext,
  base: string,
  at: Pick<Notice, "action" | "job">,
  error: unknown,
): Promise<Response> {
  const { status, body: { error: { code, message } }, internal } = toErrorResponse(error);
  if (internal) throw error;
  const notice = { ...at, result: code, message };
  return await jobPageAnswer(c, rc, base, at.job, { refresh: jobHref(base, at.job), notice, status });
}

/** Registers `POST /ui/jobs/:name/run` (a forced manual run), `/pause` (with an optional note) and `/resume`. */
export function registerJobActions(app: Hono, rc: RouterContext): void {
  const { scheduler } = rc;
  for (const verb of ["run", "pause", "resume"] as const) {
    const route = `/ui/jobs/:name/${verb}`;
    app.post(route, pageAuth(rc, route), async (c) => {
      htmlHeaders(c);
      const base = basePath(c, route);
      const name = validate(NameSchema, c.req.param("name"), "params.name");
      const form = await readForm(c.req.raw, rc.maxBodyBytes);
      if (!await formAllowed(rc, c, form)) return await staleForm(rc, c, base);
      let result: string;
      let slot: number | undefined;
      if (await scheduler.get(name) === undefined) {
        result = "unknown-job";
      } else if (verb === "run") {
        const r = await scheduler.run(name, { mode: "force" });
        result = r.ok ? r.outcome : r.reason.replace(/ /g, "-");
        if (r.ok) slot = r.slot;
      } else if (verb === "pause") {
        const note = (form.get("note") ?? "").trim();
        // The API's own check, so the form takes the notes `POST /jobs/:name/pause` takes.
        try {
          validate(PauseBodySchema, { note });
        } catch (e) {
          return await refused(c, rc, base, { action: verb, job: name }, e);
        }
        await scheduler.pause(name, note === "" ? { by: "dashboard" } : { note, by: "dashboard" });
        result = "paused";
      } else {
        await scheduler.resume(name);
        result = "resumed";
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
}

/** Registers `POST /ui/jobs/:name/backfill`: `from`, `to` (epoch ms or ISO) and `rerun`, started in the background. */
export function registerBackfillForm(app: Hono, rc: RouterContext): void {
  const route = "/ui/jobs/:name/backfill";
  app.post(route, pageAuth(rc, route), async (c) => {
    htmlHeaders(c);
    const base = basePath(c, route);
    const name = validate(NameSchema, c.req.param("name"), "params.name");
    const form = await readForm(c.req.raw, rc.maxBodyBytes);
    if (!await formAllowed(rc, c, form)) return await staleForm(rc, c, base);
    let result: string;
    if (await rc.scheduler.get(name) === undefined) {
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
        // A store failure is the server's (503), not a notice.
        if (!(e instanceof SchedulerError) || e.code === "store-error") throw e;
        return await refused(c, rc, base, { action: "backfill", job: name }, e);
      }
    }
    rc.cache.clear();
    const q = new URLSearchParams({ done: "backfill", job: name, result });
    return c.redirect(`${jobHref(base, name)}?${q}`, 303);
  });
}
