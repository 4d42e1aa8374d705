/**
 * edgecron on Cloudflare Workers. Locally: `npm run dev:worker` (wrangler dev with
 * --test-scheduled), then `curl "http://localhost:8787/__scheduled?cron=*+*+*+*+*"` fires
 * the Cron Trigger (see docs/getting-started/workers.md). Or `npm run build` and load `dist/worker.mjs`.
 * The Cron Trigger in wrangler.toml ticks every minute.
 *
 * Bindings: EDGECRON_TOKEN (secret), LIBSQL_URL and LIBSQL_AUTH_TOKEN (Turso or sqld;
 * without them each isolate keeps its own memory store: fine for a demo, but only
 * libSQL gives exactly-once across isolates and survives isolate restarts).
 * In your own worker, import from "edgecron" and "edgecron/cloudflare".
 */
import { createScheduler } from "../../src/mod.ts";
import { exampleJobs } from "./jobs.ts";
import { cloudflareWorker, type LibsqlEnv, libsqlFromEnv } from "../../adapters/cloudflare/mod.ts";

interface Env extends LibsqlEnv {
  EDGECRON_TOKEN?: string;
}

export default cloudflareWorker((env: Env) =>
  exampleJobs(createScheduler(env.LIBSQL_URL ? { store: libsqlFromEnv(env) } : {}))
);
