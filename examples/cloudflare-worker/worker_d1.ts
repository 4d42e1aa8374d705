/**
 * The example worker on D1 alone (no libSQL client in the bundle): `npm run build`
 * makes `dist/worker-d1.mjs` from it, and `npm run size` holds its budget. Bind a D1
 * database as `DB` (see wrangler.toml); every isolate then shares its claims.
 */
import { createScheduler } from "../../src/mod.ts";
import { cloudflareWorker } from "../../adapters/cloudflare/mod.ts";
import { type D1DatabaseLike, d1Store } from "../../src/store/d1/mod.ts";

interface Env {
  DB: D1DatabaseLike;
  EDGECRON_TOKEN?: string;
}

export default cloudflareWorker((env: Env) =>
  createScheduler({ store: d1Store(env.DB) })
    .job("purge-expired", {
      schedule: "* * * * *",
      description: "Deletes expired upload links",
      timeout: "30s",
      run: ({ slot }) => console.log(`ran purge-expired slot=${new Date(slot).toISOString()}`),
    })
    .job("daily-digest", {
      schedule: "0 8 * * *",
      timezone: "Europe/Paris",
      description: "Sends the 08:00 Paris digest",
      retries: { attempts: 2 },
      run: ({ slot }) => console.log(`ran daily-digest slot=${new Date(slot).toISOString()}`),
    })
);
