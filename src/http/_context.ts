/** What every route handler of one router shares. */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import type { Logger, Scheduler } from "../engine/types.ts";
import { type Auth, SESSION_COOKIE } from "./_auth.ts";
import type { ResponseCache } from "./_cache.ts";
import { errorBody } from "./_errors.ts";
import type { LoginThrottle } from "./_throttle.ts";
import type { Metrics } from "./metrics.ts";

/** The resolved router configuration, built once by `edgecronRouter()`. */
export interface RouterContext {
  scheduler: Scheduler;
  auth: Auth;
  maxBodyBytes: number;
  title: string;
  now: () => number;
  logger: Logger;
  sessionTtlMs: number;
  secureCookie: boolean | undefined;
  trustProxy: boolean;
  throttle: LoginThrottle;
  /** Read answers kept until the next tick or a write. */
  cache: ResponseCache;
  /** Served at `GET /metrics` when given. */
  metrics: Metrics | undefined;
  /** Served at `GET /openapi.json` when given. */
  openapi: string | undefined;
}

/**
 * The mount prefix of the router (`"/cron"`, or `""` at the root), derived from the
 * matched route so links and the cookie path follow wherever the app is mounted.
 */
export function basePath(c: Context, localRoute: string): string {
  const full = c.req.routePath;
  if (localRoute === "/") return full === "/" ? "" : full;
  return full.endsWith(localRoute) ? full.slice(0, full.length - localRoute.length) : "";
}

/** The dashboard home for `base`. */
export function homePath(base: string): string {
  return base === "" ? "/" : base;
}

/**
 * Requires a valid bearer token. With `cookie: true` a valid session cookie also
 * passes, which the router allows only for safe methods and CSRF-checked form posts.
 * `onDenied` renders the refusal (JSON 401 by default).
 */
export function requireAuth(
  rc: RouterContext,
  options: { cookie: boolean; onDenied?: (c: Context) => Response | Promise<Response> },
): MiddlewareHandler {
  return async (c, next) => {
    if (!rc.auth.required || await rc.auth.bearer(c.req.raw)) return next();
    if (options.cookie && await rc.auth.session(getCookie(c, SESSION_COOKIE), rc.now())) return next();
    if (options.onDenied) return options.onDenied(c);
    c.header("WWW-Authenticate", 'Bearer realm="edgecron"');
    return c.json(errorBody("unauthorized", "missing or wrong bearer token"), 401);
  };
}
