/**
 * The example worker on Postgres: through a Hyperdrive binding `HYPERDRIVE` when bound
 * (Neon, Supabase, RDS, your own server), else the `DATABASE_URL` secret. Each event
 * opens one connection and ends it when done. Needs `compatibility_flags =
 * ["nodejs_compat"]` (postgres.js on workerd) and `npm install postgres`; see the
 * commented lines in wrangler.toml. Every isolate and every other node on the same
 * database shares the claims, so each slot runs once.
 */
import { createScheduler } from "../../src/mod.ts";
import { exampleJobs } from "./jobs.ts";
import { cloudflareWorker } from "../../adapters/cloudflare/mod.ts";
import { type PostgresEnv, postgresFromEnv } from "../../adapters/cloudflare/postgres.ts";

interface Env extends PostgresEnv {
  EDGECRON_TOKEN?: string;
}

export default cloudflareWorker((env: Env) => exampleJobs(createScheduler({ store: postgresFromEnv(env) })));
