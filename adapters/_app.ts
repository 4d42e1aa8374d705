/** What the adapters serve: the router, or the caller's own app. Private to `adapters/`. */
import type { Scheduler } from "../src/engine/types.ts";
import { edgecronRouter, type RouterOptions } from "../src/http/mod.ts";

export { setClientAddress } from "../src/http/client_address.ts";

/** Anything with a Web-standard `fetch` handler (a Hono app, for one). */
export interface FetchHandler {
  /** `env` and `ctx`: a Worker's bindings and execution context, for work after the answer (`waitUntil`). */
  fetch(
    request: Request,
    env?: unknown,
    ctx?: { waitUntil(promise: Promise<unknown>): void },
  ): Response | Promise<Response>;
}

/** The serving options every adapter accepts. */
export interface AppOptions {
  /** Bearer token of the router (shorthand for `router.token`). */
  token?: string;
  /** Router options (`{ token }`, or `{ public: true }` to serve without auth, `title`, ...). */
  router?: RouterOptions;
  /** Serve this instead of the router (e.g. your Hono app with the router mounted). */
  app?: FetchHandler;
}

/**
 * The handler an adapter serves: `options.app`, else `edgecronRouter(scheduler, …)`.
 *
 * @throws {SchedulerError} `invalid-spec` (`router.token: required …`) when neither a
 * token nor `public: true` is given: serving the API without auth is never a default.
 */
export function appFor(scheduler: Scheduler, options: AppOptions): FetchHandler {
  if (options.app !== undefined) return options.app;
  const router: RouterOptions = { ...options.router, ...(options.token === undefined ? {} : { token: options.token }) };
  return edgecronRouter(scheduler, router);
}
