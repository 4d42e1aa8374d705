/**
 * edgecron on Node: `npm start` (or `npx tsx examples/node-server/main.ts`).
 * Dashboard and API on http://localhost:8787; the token is printed at start.
 *
 * Env: EDGECRON_TOKEN (default: random, printed), EDGECRON_DB (default
 * `file:edgecron.db`), PORT (default 8787), HEARTBEAT (default "5s"; the tests use "1s").
 * In your own app, import from "edgecron", "edgecron/libsql" and "edgecron/node".
 */
import process from "node:process";
import { createScheduler } from "../../src/mod.ts";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import { resolveHost, serveNode } from "../../adapters/node/mod.ts";

const token = process.env.EDGECRON_TOKEN ?? crypto.randomUUID();
const scheduler = createScheduler({
  store: libsqlStore({ url: process.env.EDGECRON_DB ?? "file:edgecron.db" }),
  webhookSecret: process.env.EDGECRON_WEBHOOK_SECRET ?? crypto.randomUUID(),
  webhooks: { resolve: resolveHost },
})
  .job("heartbeat", {
    schedule: { every: process.env.HEARTBEAT ?? "5s" },
    description: "Proves the scheduler is alive",
    catchUp: { mode: "all", window: "1m" },
    run: ({ slot }) => console.log(`ran heartbeat slot=${new Date(slot).toISOString()}`),
  })
  .job("purge-sessions", {
    schedule: "*/15 * * * *",
    description: "Deletes expired sessions",
    timeout: "2m",
    run: ({ slot }) => console.log(`ran purge-sessions slot=${new Date(slot).toISOString()}`),
  })
  .job("weekday-report", {
    schedule: "0 9 * * MON-FRI",
    timezone: "Europe/Berlin",
    description: "Mails the sales report at 09:00 Berlin time",
    retries: { attempts: 3, backoff: "30s" },
    run: ({ slot }) => console.log(`ran weekday-report slot=${new Date(slot).toISOString()}`),
  });

await serveNode(scheduler, {
  token,
  port: Number(process.env.PORT ?? 8787),
  onListen: ({ url }) => console.log(`edgecron: dashboard and API on ${url}\nedgecron: token ${token}`),
});
