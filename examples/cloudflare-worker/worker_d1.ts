/**
 * The example worker on D1 alone (no libSQL client in the bundle): `npm run build`
 * makes `dist/worker-d1.mjs` from it, and `npm run size` holds its budget. Bind a D1
 * database as `DB` (see wrangler.toml); every isolate then shares its claims.
 */
import { createScheduler } from "../../src/mod.ts";
import { exampleJobs } from "./jobs.ts";
import { cloudflareWorker } from "../../adapters/cloudflare/mod.ts";
import { type D1DatabaseLike, d1Store } from "../../src/store/d1/mod.ts";

interface Env {
  DB: D1DatabaseLike;
  EDGECRON_TOKEN?: string;
}

export default cloudflareWorker((env: Env) => exampleJobs(createScheduler({ store: d1Store(env.DB) })));
