/** `GET /openapi.json` and `GET /metrics` when the router has them (same auth as the API). */
import type { Hono } from "hono";
import { type RouterContext, requireAuth } from "./_context.ts";
import { listJobsWithFallback } from "./_list.ts";
import type { JobStateCounts } from "./metrics.ts";

const METRICS_PAGE = 1000;

/** Registers the document and the metrics routes on `app`. */
export function registerDocs(app: Hono, rc: RouterContext): void {
  const read = requireAuth(rc, { cookie: true });

  const document = rc.openapi;
  if (document !== undefined) {
    app.get("/openapi.json", read, rc.cache.middleware, (c) => {
      c.header("Content-Type", "application/json; charset=UTF-8");
      return c.body(document);
    });
  }

  const metrics = rc.metrics;
  if (metrics === undefined) return;
  app.get("/metrics", read, async (c) => {
    const jobs: JobStateCounts = { active: 0, paused: 0, disabled: 0, running: 0 };
    let after: string | undefined;
    do {
      const page = await listJobsWithFallback(rc.scheduler, { next: 0, limit: METRICS_PAGE, ...(after === undefined ? {} : { after }) }, rc.now());
      for (const job of page.jobs) {
        if (job.runningSince !== undefined) jobs.running++;
        if (job.paused) jobs.paused++;
        else if (!job.enabled) jobs.disabled++;
        else jobs.active++;
      }
      after = page.nextAfter ?? undefined;
    } while (after !== undefined);
    c.header("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    c.header("Cache-Control", "no-store");
    return c.body(metrics.render(jobs));
  });
}
