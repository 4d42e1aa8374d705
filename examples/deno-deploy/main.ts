/**
 * edgecron on Deno Deploy (locally: `npm run start:deno`, which runs
 * `deno run --unstable-cron -A examples/deno-deploy/main.ts` with Deno from node_modules/.bin).
 * One Deno.cron trigger ticks every minute; the router serves on 127.0.0.1:8787 locally.
 *
 * Env: EDGECRON_TOKEN (default: random, printed), PORT and HOST (local runs; default
 * 8787 and 127.0.0.1).
 * Claims go to Deno KV, the app's own database on Deno Deploy, shared by every isolate:
 * exactly-once with no configuration (locally: `--unstable-kv`; Deno keeps the file in its cache).
 * Set LIBSQL_URL (and LIBSQL_AUTH_TOKEN) to use libSQL / Turso instead.
 * In your own app, import from "jsr:@edgecron/edgecron" and its "/deno" subpath.
 */
import { createScheduler } from "../../src/mod.ts";
import { denoStore, serveDeno } from "../../adapters/deno/mod.ts";

const token = Deno.env.get("EDGECRON_TOKEN") ?? crypto.randomUUID();
const scheduler = createScheduler({ store: denoStore() })
  .job("sync-feeds", {
    schedule: "* * * * *",
    description: "Pulls partner feeds every minute",
    timeout: "50s",
    run: ({ slot }) => console.log(`ran sync-feeds slot=${new Date(slot).toISOString()}`),
  })
  .job("nightly-cleanup", {
    schedule: "30 2 * * *",
    timezone: "America/New_York",
    description: "Archives old rows (02:30 New York; 03:30 on spring-forward day)",
    run: ({ slot }) => console.log(`ran nightly-cleanup slot=${new Date(slot).toISOString()}`),
  });

serveDeno(scheduler, {
  token,
  // Locally bind loopback unless HOST says otherwise; Deno Deploy chooses its own address.
  serve: Deno.env.get("DENO_DEPLOYMENT_ID")
    ? {}
    : { port: Number(Deno.env.get("PORT") ?? 8787), hostname: Deno.env.get("HOST") ?? "127.0.0.1" },
  onListen: ({ url }) => console.log(`edgecron: dashboard and API on ${url}\nedgecron: token ${token}`),
  onTick: (report) => console.log(`tick ${new Date(report.now).toISOString()} ok=${report.ok}`),
});
