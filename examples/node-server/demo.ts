/**
 * What the demo servers (`npm start`, `npm run start:bun`) share: settings from the
 * environment with generated secrets, the data folder, and a local webhook receiver so
 * that the webhook example of docs/http.md ("Try it with curl") succeeds against the demo.
 */
import { mkdirSync } from "node:fs";
import process from "node:process";
import type { Hono } from "hono";
import { verifySignature } from "../../src/webhook/mod.ts";
import { redactUrl } from "../../src/store/libsql/client.ts";

/** The demo's resolved settings. */
export interface DemoSettings {
  token: string;
  webhookSecret: string;
  /**
   * Where the data lives: DATABASE_URL (a `postgres://` URL), else LIBSQL_URL or
   * EDGECRON_DB (a libSQL URL), else `file:.edgecron/edgecron.db`.
   */
  db: string;
  /** 127.0.0.1 unless HOST says otherwise. */
  hostname: string;
  port: number;
  /** Where the demo's own webhook receiver listens (always on loopback). */
  receiverUrl: string;
}

/**
 * The port PORT names, 8787 when unset.
 *
 * @throws `Error` naming PORT when it is not a whole number from 0 to 65535: `Number()`
 * read an empty PORT as 0 (a random port, and a demo webhook receiver on port 0) and
 * `8080x` as NaN, which failed later as an "Invalid URL".
 */
export function portFromEnv(text: string | undefined): number {
  if (text === undefined) return 8787;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535) {
    throw new Error(`PORT: expected a port number from 0 to 65535 (0 for any free port), got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/**
 * Reads the environment; generates the token and webhook secret when unset.
 *
 * @throws `Error` naming PORT when it is not a port number.
 */
export function demoSettings(): DemoSettings {
  const env = process.env;
  const port = portFromEnv(env.PORT);
  const db = env.DATABASE_URL ?? env.LIBSQL_URL ?? env.EDGECRON_DB ?? "file:.edgecron/edgecron.db";
  // The data folder is git-ignored; create it so the first start needs no setup.
  if (db.startsWith("file:.edgecron/")) mkdirSync(".edgecron", { recursive: true });
  return {
    token: env.EDGECRON_TOKEN ?? crypto.randomUUID(),
    webhookSecret: env.EDGECRON_WEBHOOK_SECRET ?? `whsec_${crypto.randomUUID().replace(/-/g, "")}`,
    db,
    hostname: env.HOST ?? "127.0.0.1",
    port,
    receiverUrl: `http://127.0.0.1:${port}/demo/webhook`,
  };
}

/**
 * The scheduler's webhook options for the demo: webhook targets on loopback are refused
 * by default (SSRF protection), so the demo allows its own origin (where its receiver is).
 */
export function demoWebhooks(settings: DemoSettings): { webhookSecret: string; webhooks: { allow: string[] } } {
  return { webhookSecret: settings.webhookSecret, webhooks: { allow: [new URL(settings.receiverUrl).origin] } };
}

/** Adds `POST /demo/webhook`: verifies the signature and answers what it received. */
export function addDemoReceiver(app: Hono, settings: DemoSettings): Hono {
  app.post("/demo/webhook", async (c) => {
    const result = await verifySignature(c.req.raw, settings.webhookSecret, { tolerance: "5m" });
    if (!result.ok) return c.json({ refused: result.reason }, 401);
    const { job, slot, attempt } = JSON.parse(result.body) as { job: string; slot: string; attempt: number };
    console.log(`demo receiver: verified delivery job=${job} slot=${slot} attempt=${attempt}`);
    return c.json({ received: true, job, slot, attempt });
  });
  return app;
}

/** The start-up lines: where to go and the secrets to use. */
export function banner(url: string, settings: DemoSettings): string {
  return [
    `edgecron: dashboard and API on ${url}`,
    `edgecron: token ${settings.token}`,
    `edgecron: webhook secret ${settings.webhookSecret}`,
    `edgecron: data in ${redactUrl(settings.db)}; demo webhook receiver at ${settings.receiverUrl}`,
  ].join("\n");
}

/**
 * Stops the server gracefully on SIGINT or SIGTERM, then exits 0. A Ctrl-C in a terminal
 * reaches this process twice under `npm start` (from the terminal, and forwarded by npm),
 * so a repeat within a second is the same request; a later one exits at once (code 1).
 */
export function stopOnSignals(shutdown: () => Promise<void>): void {
  let first: number | undefined;
  const onSignal = (signal: string): void => {
    const now = Date.now();
    if (first !== undefined) {
      if (now - first < 1000) return;
      console.error(`edgecron: ${signal} again, exiting now`);
      process.exit(1);
    }
    first = now;
    console.error(`edgecron: ${signal}: stopping (runs settle, then the store closes)`);
    void shutdown().then(() => process.exit(0));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}
