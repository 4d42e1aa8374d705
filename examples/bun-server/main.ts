/**
 * edgecron on Bun: `npm run start:bun` (Bun comes from node_modules/.bin, which npm
 * scripts put on PATH; directly: `node_modules/.bin/bun examples/bun-server/main.ts`).
 * Dashboard and API on http://127.0.0.1:8787; the token and webhook secret are printed.
 *
 * Env: EDGECRON_TOKEN and EDGECRON_WEBHOOK_SECRET (default: random, printed),
 * EDGECRON_DB (default `file:.edgecron/edgecron.db`), HOST (default 127.0.0.1), PORT
 * (default 8787), HEARTBEAT (default "5s"; the tests use "1s").
 * In your own app, import from "edgecron", "edgecron/libsql", "edgecron/hono" and "edgecron/bun".
 */
import process from "node:process";
import { createScheduler, type SchedulerOptions } from "../../src/mod.ts";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import { createMetrics, edgecronRouter, openApiDocument } from "../../src/http/mod.ts";
import { serveBun } from "../../adapters/bun/mod.ts";
import { addDemoReceiver, banner, demoSettings, demoWebhooks, stopOnSignals } from "../node-server/demo.ts";

const settings = demoSettings();
const metrics = createMetrics();
// Webhook targets on loopback are refused unless allowed: the demo allows its own receiver.
const options: SchedulerOptions = {
  store: libsqlStore({ url: settings.db }),
  onEvent: metrics.onEvent,
  ...demoWebhooks(settings),
};
const scheduler = createScheduler(options)
  .job("heartbeat", {
    schedule: { every: process.env.HEARTBEAT ?? "5s" },
    catchUp: { mode: "all", window: "1m" },
    run: ({ slot }) => console.log(`ran heartbeat slot=${new Date(slot).toISOString()}`),
  })
  .job("warm-cache", {
    schedule: "*/10 * * * *",
    description: "Refreshes the product cache",
    timeout: "1m",
    run: ({ slot, signal }) => {
      if (!signal.aborted) console.log(`ran warm-cache slot=${new Date(slot).toISOString()}`);
    },
  });

const app = addDemoReceiver(
  edgecronRouter(scheduler, { token: settings.token, metrics, openapi: openApiDocument }),
  settings,
);
const server = await serveBun(scheduler, {
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
