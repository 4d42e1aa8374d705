/**
 * `edgecronRouter()`: the Hono app exposing a scheduler over HTTP (JSON API and dashboard).
 */
import { Hono, type MiddlewareHandler } from "hono";
import { parseDuration } from "../core/duration.ts";
import { quote, SchedulerError } from "../core/errors.ts";
import type { Logger, Scheduler } from "../engine/types.ts";
import { createAuth } from "./_auth.ts";
import { jsonHeaders } from "./_headers.ts";
import { createLoginThrottle } from "./_throttle.ts";
import type { RouterContext } from "./_context.ts";
import { createResponseCache } from "./_cache.ts";
import { errorBody, toErrorResponse } from "./_errors.ts";
import { registerApi } from "./api.ts";
import { registerDashboard } from "./dashboard/mod.ts";
import type { Metrics } from "./metrics.ts";
import { registerDocs } from "./docs.ts";

/** Options of `edgecronRouter()`. */
export interface RouterOptions {
  /** Bearer token every request must carry. Required unless `public: true`. */
  token?: string;
  /** Serve without any authentication. Must be set explicitly; default false. */
  public?: boolean;
  /** Largest accepted request body in bytes; default 65 536 (64 KiB). */
  maxBodyBytes?: number;
  /** Dashboard title; default `"edgecron"`. */
  title?: string;
  /** Clock for the dashboard and session expiry (epoch ms); default `Date.now`. */
  now?: () => number;
  /** Where unexpected errors are logged; default the scheduler's own logger (its `logger` option). */
  logger?: Logger;
  /** Dashboard session lifetime; default `"12h"`. */
  sessionTtl?: string | number;
  /** Force the cookie's `Secure` flag; default: set when the request is https. */
  secureCookie?: boolean;
  /** Behind a TLS proxy: trust `X-Forwarded-Proto` (Secure cookie) and `X-Forwarded-For` / `CF-Connecting-IP` (sign-in back-off per client); default false. */
  trustProxy?: boolean;
  /** Serves `GET /metrics` (Prometheus text, same auth) from `createMetrics()`; default: no route. */
  metrics?: Metrics;
  /**
   * Longest time a read answer (`GET /jobs…`, the dashboard) is reused; it is also
   * dropped at this node's next tick and on every write through the router. Default
   * `"5s"`; `0` turns the cache off.
   */
  cacheTtl?: string | number;
  /**
   * The OpenAPI document served at `GET /openapi.json`: pass `openApiDocument` from
   * `edgecron/hono`. Default: no route (the document is 2.5 KB gzipped; an edge bundle
   * that does not serve it does not carry it).
   */
  openapi?: string;
}

function invalid(field: string, message: string): SchedulerError {
  return new SchedulerError("invalid-spec", `router.${field}: ${message}`, { path: `router.${field}` });
}

/**
 * Whether a redirect to `path` (a raw, percent-encoded pathname) could leave this origin:
 * once decoded, and without the tabs and line breaks URL parsers drop, it starts with
 * `//` or `/\` (a protocol-relative URL to a browser), or it does not decode at all.
 */
function leavesOrigin(path: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return true;
  }
  return /^[/\\]{2}/.test(decoded.replace(/[\t\n\r]/g, ""));
}

/**
 * `GET /cron/` (the mount path with a slash, as a browser or a link often has it) and
 * `GET /cron/jobs/`: a permanent redirect to the path without the slash, which is where
 * the routes are. Mounted with `app.route("/cron", router)` a sub-app's `/` route is
 * `/cron` only, and the parent app would answer its own bare 404. The `Location` is the
 * raw pathname, still percent-encoded (`c.req.path` is decoded: a `\`, a tab or a line
 * break in it would be an open redirect or an invalid header); a path that would leave
 * the origin is not redirected (404).
 */
const trailingSlash: MiddlewareHandler = async (c, next) => {
  // The decoded path ends with a slash whenever the raw one does: most requests stop here, unparsed.
  if ((c.req.method !== "GET" && c.req.method !== "HEAD") || !c.req.path.endsWith("/")) return next();
  const url = new URL(c.req.url);
  const path = url.pathname;
  if (path.length < 2 || !path.endsWith("/")) return next();
  const trimmed = path.replace(/\/+$/, "");
  if (trimmed === "" || leavesOrigin(trimmed)) return next();
  c.header("Cache-Control", "no-store");
  return c.redirect(`${trimmed}${url.search}`, 308);
};

/** The cache generation: the last tick; NaN (equal to nothing, so no hit) when health fails. */
function generationOf(scheduler: Scheduler): () => Promise<unknown> {
  return async () => {
    try {
      return (await scheduler.health()).lastTick;
    } catch {
      return Number.NaN;
    }
  };
}

function resolve(scheduler: Scheduler, options: RouterOptions): RouterContext {
  if (typeof options !== "object" || options === null) {
    throw invalid("options", "expected { token } or { public: true }");
  }
  const isPublic = options.public ?? false;
  if (typeof isPublic !== "boolean") throw invalid("public", `expected true or false, got ${quote(isPublic)}`);
  const { token } = options;
  if (isPublic && token !== undefined) throw invalid("token", "give either a token or public: true, not both");
  if (!isPublic && (typeof token !== "string" || token.length === 0 || /\s/.test(token))) {
    throw invalid("token", "required (a non-empty string without whitespace) unless public: true is passed explicitly");
  }
  const maxBodyBytes = options.maxBodyBytes ?? 65_536;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw invalid("maxBodyBytes", `expected a positive whole number, got ${quote(maxBodyBytes)}`);
  }
  const sessionTtlMs = parseDuration(options.sessionTtl ?? "12h", {
    code: "invalid-spec",
    field: "router.sessionTtl",
    path: "router.sessionTtl",
    min: 60_000,
  });
  const cacheTtlMs = parseDuration(options.cacheTtl ?? "5s", {
    code: "invalid-spec",
    field: "router.cacheTtl",
    path: "router.cacheTtl",
  });
  const now = options.now ?? (() => Date.now());
  const metrics = options.metrics;
  if (metrics !== undefined && (typeof metrics.scrapeChunks !== "function" || typeof metrics.onEvent !== "function")) {
    throw invalid("metrics", "expected the object createMetrics() returns");
  }
  return {
    scheduler,
    auth: createAuth(isPublic ? undefined : token, sessionTtlMs, scheduler),
    maxBodyBytes,
    title: options.title ?? "edgecron",
    now,
    // A scheduler made with a silent or structured logger keeps the router's lines there too.
    logger: options.logger ?? scheduler.log ?? console,
    sessionTtlMs,
    secureCookie: options.secureCookie,
    trustProxy: options.trustProxy === true,
    throttle: createLoginThrottle(),
    cache: createResponseCache({ ttlMs: cacheTtlMs, now, generation: generationOf(scheduler) }),
    metrics,
    openapi: options.openapi,
  };
}

/**
 * The app's routes with each path as a RegExp (`:name` matches one segment), built once
 * and again only when a route is added: the 405 answer compiled one per route per request.
 */
function routeMatchers(app: Hono): () => readonly { method: string; path: RegExp }[] {
  let matchers: { method: string; path: RegExp }[] = [];
  return () => {
    if (matchers.length !== app.routes.length) {
      matchers = app.routes.map((route) => ({
        method: route.method,
        path: new RegExp(`^${route.path.replace(/\./g, "\\.").replace(/:[^/]+/g, "[^/]+")}$`),
      }));
    }
    return matchers;
  };
}

/**
 * Builds the Hono app serving `scheduler`: the JSON API (`/health`, `/jobs` paged,
 * `/jobs/:name`, `/jobs/:name/runs`, `/jobs/:name/run|pause|resume`, `/tick`, data-defined
 * jobs via `POST /jobs`, `PUT` and `DELETE /jobs/:name`), `/openapi.json` (with
 * `openapi`), `/metrics` (with `metrics`) and the dashboard at `/`. Mount it anywhere with
 * `app.route(prefix, router)`. Read answers of 1 KiB or more are gzipped when the client
 * accepts it.
 *
 * Options: `token` (required unless `public: true`), `public` (default false),
 * `maxBodyBytes` (default 64 KiB), `title` (default "edgecron"), `now` (default
 * `Date.now`), `logger` (default the scheduler's logger), `sessionTtl` (default "12h"), `secureCookie`,
 * `metrics` (default none), `cacheTtl` (default "5s"), `openapi` (default none).
 *
 * Errors answer `{ error: { code, message, path? } }`: 400 invalid input, 401 no or wrong
 * token, 404 unknown job or route, 409 refused (already running, code-defined job...), 413
 * body over the limit, 500 (generic text; the real error goes to `logger`), 502/504 a
 * manual run that ended in `error`/`timeout`, 503 store down.
 *
 * @throws {SchedulerError} `invalid-spec` when neither a token nor `public: true` is given.
 * @example
 * ```ts
 * import { Hono } from "hono"; // your own dependency: npm i hono
 * import { createScheduler } from "edgecron";
 * import { edgecronRouter } from "edgecron/hono";
 *
 * const scheduler = createScheduler();
 * const app = new Hono();
 * app.route("/cron", edgecronRouter(scheduler, { token: "a long random secret" }));
 * ```
 */
export function edgecronRouter(scheduler: Scheduler, options: RouterOptions): Hono {
  const rc = resolve(scheduler, options);
  const app = new Hono();
  const routePaths = routeMatchers(app);
  app.notFound((c) => {
    c.header("Cache-Control", "no-store");
    const { method, path } = c.req;
    // A route's path asked with another method: 405, naming the methods it takes.
    const allow = new Set<string>();
    for (const route of routePaths()) {
      if (route.method !== "ALL" && route.path.test(path)) {
        allow.add(route.method).add(route.method === "GET" ? "HEAD" : route.method);
      }
    }
    if (allow.size === 0) return c.json(errorBody("not-found", `no route ${method} ${path}`), 404);
    const methods = [...allow].join(", ");
    c.header("Allow", methods);
    return c.json(errorBody("method-not-allowed", `${method} ${path}: not allowed; it takes ${methods}`), 405);
  });
  app.onError((error, c) => {
    const { status, body, internal } = toErrorResponse(error);
    if (internal) {
      try {
        rc.logger.error("http: request failed", {
          method: c.req.method,
          path: c.req.path,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
      } catch {
        // A failing logger must not turn a 500 into a crash.
      }
    }
    c.header("Cache-Control", "no-store");
    return c.json(body, status);
  });
  app.use(trailingSlash);
  app.use(jsonHeaders);
  registerApi(app, rc);
  registerDocs(app, rc);
  registerDashboard(app, rc);
  return app;
}
