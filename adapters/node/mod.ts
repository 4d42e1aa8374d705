/**
 * edgecron on Node: serves the router with `@hono/node-server` and runs timer mode;
 * SIGINT/SIGTERM stop arming, let runs settle, close the store and exit 0.
 *
 * @module
 */
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import process from "node:process";
import type { Scheduler } from "../../src/engine/types.ts";
import { type AppOptions, appFor } from "../_app.ts";
import { createShutdown, type ShutdownOptions } from "../_lifecycle.ts";

/** Options of `serveNode`. */
export interface NodeServeOptions extends AppOptions, ShutdownOptions {
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Default: all interfaces. */
  hostname?: string;
  /** Run timer mode (`scheduler.start()`); default true. */
  timer?: boolean;
  /** Signals that trigger the graceful stop; default `["SIGINT", "SIGTERM"]`, `[]` for none. */
  signals?: NodeJS.Signals[];
  /** Exit the process (code 0) after a signal-triggered stop; default true. */
  exit?: boolean;
  /** Called once listening; default prints nothing. */
  onListen?: (info: { url: string; port: number }) => void;
}

/** A running server. */
export interface NodeServer {
  url: string;
  port: number;
  /** The graceful stop (idempotent): scheduler, then HTTP server, then store. */
  shutdown(): Promise<void>;
}

/**
 * Initialises the store, starts timer mode and serves the router.
 *
 * @throws {SchedulerError} `invalid-spec` (`router.token: required …`) without a token or
 * `router: { public: true }`; `store-error` when `store.init()` fails; the listen error
 * (`EADDRINUSE`) when the port is taken.
 * @example
 * const scheduler = createScheduler({ store: libsqlStore({ url: "file:edgecron.db" }) })
 *   .job("report", { schedule: "0 9 * * MON-FRI", timezone: "Europe/Berlin", run: sendReport });
 * await serveNode(scheduler, { token: process.env.EDGECRON_TOKEN });
 */
export async function serveNode(scheduler: Scheduler, options: NodeServeOptions = {}): Promise<NodeServer> {
  const { port = 8787, hostname, timer = true, signals = ["SIGINT", "SIGTERM"], exit = true } = options;
  await scheduler.store.init();
  const app = appFor(scheduler, options);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: (request) => app.fetch(request), port, ...(hostname === undefined ? {} : { hostname }) }, () => resolve(s));
    s.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  const url = `http://${hostname ?? "localhost"}:${address.port}`;
  if (timer) scheduler.start();

  const shutdown = createShutdown(scheduler, () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Keep-alive connections would hold close() open until they time out.
      if ("closeAllConnections" in server) server.closeAllConnections();
    }), {
    ...options,
    onError: (step, error) => console.error(`edgecron: ${step} failed:`, error),
  });
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      // A second signal while settling: the operator insists.
      console.error(`edgecron: ${signal} again, exiting now`);
      process.exit(1);
    }
    signalled = true;
    console.error(`edgecron: ${signal}: stopping (runs settle, then the store closes)`);
    void shutdown().then(() => {
      for (const s of signals) process.off(s, onSignal);
      if (exit) process.exit(0);
    });
  };
  for (const signal of signals) process.on(signal, onSignal);
  options.onListen?.({ url, port: address.port });
  return { url, port: address.port, shutdown };
}
