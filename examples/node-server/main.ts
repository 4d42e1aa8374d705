/**
 * edgecron on Node: `npm start` (it runs `node --import tsx examples/node-server/main.ts`,
 * so Ctrl-C and SIGTERM reach this process and stop it gracefully).
 * Dashboard and API on http://127.0.0.1:8787; the token and webhook secret are printed
 * at start. Metrics at /metrics, the OpenAPI document at /openapi.json.
 *
 * Env: EDGECRON_TOKEN and EDGECRON_WEBHOOK_SECRET (default: random, printed),
 * DATABASE_URL (`postgres://…`: the Postgres store), else LIBSQL_URL or EDGECRON_DB (default
 * `file:.edgecron/edgecron.db`, a git-ignored folder), HOST
 * (default 127.0.0.1), PORT (default 8787), HEARTBEAT (default "5s"; the tests use "1s").
 * In your own app, import from "edgecron", "edgecron/libsql" (or "edgecron/postgres"), "edgecron/hono" and "edgecron/node".
 */
import { createScheduler, type SchedulerOptions } from "../../src/mod.ts";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import { postgresStore } from "../../src/store/postgres/mod.ts";
import { createMetrics, edgecronRouter, openApiDocument } from "../../src/http/mod.ts";
import { resolveHost, serveNode } from "../../adapters/node/mod.ts";
import { addDemoReceiver, banner, demoSettings, demoWebhooks, stopOnSignals } from "./demo.ts";

const settings = demoSettings();
const metrics = createMetrics();
// Webhook targets on loopback are refused unless allowed: the demo allows its own receiver,
// and resolves other targets' hosts before each delivery.
const demo = demoWebhooks(settings);
const options: SchedulerOptions = {
  store: /^postgres(ql)?:\/\//.test(settings.db)
    ? postgresStore({ url: settings.db })
    : libsqlStore({ url: settings.db }),
  onEvent: metrics.onEvent,
  webhookSecret: demo.webhookSecret,
  webhooks: { ...demo.webhooks, resolve: resolveHost },
};
const scheduler = createScheduler(options)
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

const app = addDemoReceiver(
  edgecronRouter(scheduler, { token: settings.token, metrics, openapi: openApiDocument }),
  settings,
);
const server = await serveNode(scheduler, {
  app,
  hostname: settings.hostname,
  port: settings.port,
  signals: [],
  onListen: ({ url }) => console.log(banner(url, settings)),
}).catch((error: unknown) => {
  // A busy port (or a store that cannot open) is a sentence, not a stack trace.
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
stopOnSignals(server.shutdown);
