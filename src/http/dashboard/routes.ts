/**
 * Dashboard routes. Browsers sign in by posting the token once; the session cookie
 * (HttpOnly, SameSite=Strict, Path = the mount) then authorises page views and the
 * run/pause/resume forms, which also need the session's CSRF token and a same-origin
 * `Origin` / `Sec-Fetch-Site`. The cookie never authorises the JSON API's writes.
 */
import type { Hono } from "hono";
import type { RouterContext } from "../_context.ts";
import { registerBackfillForm, registerJobActions } from "./form_routes.ts";
import { registerJobPage, registerOverview } from "./page_routes.ts";
import { registerLogin, registerLogout } from "./session_routes.ts";
import { storeDown } from "./_shared.ts";

/** Registers `GET /`, `GET /ui/jobs/:name`, `POST /ui/login`, `/ui/logout` and `/ui/jobs/:name/{run,pause,resume,backfill}`. */
export function registerDashboard(app: Hono, rc: RouterContext): void {
  app.use("/", storeDown(rc));
  app.use("/ui/*", storeDown(rc));
  registerOverview(app, rc);
  registerJobPage(app, rc);
  registerLogin(app, rc);
  registerLogout(app, rc);
  registerJobActions(app, rc);
  registerBackfillForm(app, rc);
}
