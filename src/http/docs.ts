/** `GET /openapi.json` and `GET /metrics` when the router has them (same auth as the API). */
import type { Hono } from "hono";
import { requireAuth, type RouterContext } from "./_context.ts";

/** Registers the document and the metrics routes on `app`. */
export function registerDocs(app: Hono, rc: RouterContext): void {
  const read = requireAuth(rc, { cookie: true });
  const { openapi, metrics } = rc;
  if (openapi !== undefined) {
    app.get("/openapi.json", read, rc.cache.middleware, (c) => {
      c.header("Content-Type", "application/json; charset=UTF-8");
      return c.body(openapi);
    });
  }
  if (metrics !== undefined) {
    app.get("/metrics", read, async (c) => {
      c.header("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      c.header("Cache-Control", "no-store");
      return c.body(await metrics.scrape(rc.scheduler, rc.now()));
    });
  }
}
