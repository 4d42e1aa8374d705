/**
 * edgecron on Bun: serves the router with `Bun.serve` and runs timer mode;
 * SIGINT/SIGTERM stop arming, let runs settle, close the store and exit 0.
 *
 * @module
 */
import process from "node:process";
import type { Scheduler } from "../../src/engine/types.ts";
import { type AppOptions, appFor } from "../_app.ts";
import { createShutdown, type ShutdownOptions } from "../_lifecycle.ts";

/**
 * The slice of Bun's API this adapter uses, typed here so that checking it needs no
 * `bun-types` download (and cannot clash with it in a user's project).
 */
interface BunServer {
  readonly port: number;
  readonly url: URL;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
}
interface BunRuntime {
  serve(options: { port?: number; hostname?: string; fetch(request: Request): Response | Promise<Response> }): BunServer;
}

/** Options of `serveBun`. */
export interface BunServeOptions extends AppOptions, ShutdownOptions {
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Default: all interfaces. */
  hostname?: string;
  /** Run timer mode (`scheduler.start()`); default true. */
  timer?: boolean;
  /** Signals that trigger the graceful stop; default `["SIGINT", "SIGTERM"]`, `[]` for none. */
  signals?: ("SIGINT" | "SIGTERM" | "SIGHUP")[];
  /** Exit the process (code 0) after a signal-triggered stop; default true. */
  exit?: boolean;
  /** Called once listening. */
  onListen?: (info: { url: string; port: number }) => void;
}

/** A running server. */
export interface BunServerHandle {
  url: string;
  port: number;
  /** The graceful stop (idempotent): scheduler, then HTTP server, then store. */
  shutdown(): Promise<void>;
}

/**
 * Initialises the store, starts timer mode and serves the router with `Bun.serve`.
 *
 * @throws `Error` when not running on Bun; {SchedulerError} `invalid-spec` without a token
 * or `router: { public: true }`, `store-error` when `store.init()` fails.
 * @example
 * const scheduler = createScheduler().job("tick", { schedule: { every: "1m" }, run: () => {} });
 * await serveBun(scheduler, { token: Bun.env.EDGECRON_TOKEN });
 */
export async function serveBun(scheduler: Scheduler, options: BunServeOptions = {}): Promise<BunServerHandle> {
  const { port = 8787, hostname, timer = true, signals = ["SIGINT", "SIGTERM"], exit = true } = options;
  const bun = (globalThis as { Bun?: BunRuntime }).Bun;
  if (bun === undefined) throw new Error("edgecron/bun: Bun.serve is not available; run this with bun");
  await scheduler.store.init();
  const app = appFor(scheduler, options);
  const server = bun.serve({ port, ...(hostname === undefined ? {} : { hostname }), fetch: (request) => app.fetch(request) });
  const url = server.url.href.replace(/\/$/, "");
  if (timer) scheduler.start();

  const shutdown = createShutdown(scheduler, () => server.stop(true), {
    ...options,
    onError: (step, error) => console.error(`edgecron: ${step} failed:`, error),
  });
  let signalled = false;
  const onSignal = (signal: string): void => {
    if (signalled) {
      console.error(`edgecron: ${signal} again, exiting now`);
      process.exit(1);
    }
    signalled = true;
    console.error(`edgecron: ${signal}: stopping (runs settle, then the store closes)`);
    void shutdown().then(() => {
      if (exit) process.exit(0);
    });
  };
  for (const signal of signals) process.on(signal, onSignal);
  options.onListen?.({ url, port: server.port });
  return { url, port: server.port, shutdown };
}
