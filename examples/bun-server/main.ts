/**
 * edgecron on Bun: `bun examples/bun-server/main.ts`.
 * Dashboard and API on http://localhost:8787; the token is printed at start.
 *
 * Env: EDGECRON_TOKEN (default: random, printed), EDGECRON_DB (default: in memory;
 * e.g. `file:edgecron.db`), PORT (default 8787), HEARTBEAT (default "5s"; the tests use "1s").
 * In your own app, import from "edgecron", "edgecron/libsql" and "edgecron/bun".
 */
import process from "node:process";
import { createScheduler } from "../../src/mod.ts";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import { serveBun } from "../../adapters/bun/mod.ts";

const db = process.env.EDGECRON_DB;
const token = process.env.EDGECRON_TOKEN ?? crypto.randomUUID();
const scheduler = createScheduler(db ? { store: libsqlStore({ url: db }) } : {})
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

await serveBun(scheduler, {
  token,
  port: Number(process.env.PORT ?? 8787),
  onListen: ({ url }) => console.log(`edgecron: dashboard and API on ${url}\nedgecron: token ${token}`),
});
