/**
 * edgecron on Bun: serves the router with `Bun.serve` and runs timer mode;
 * SIGINT/SIGTERM stop arming, let runs settle, close the store and exit 0.
 *
 * @module
 */
import process from "node:process";
import type { Scheduler } from "../../src/engine/types.ts";
import { appFor, type AppOptions, setClientAddress } from "../_app.ts";
import { announce, checkPort, DEFAULT_HOSTNAME, listenError, listenUrl } from "../_listen.ts";
import { bindSignals, closeGracefully, createShutdown, type ServerHandle, type ServerOptions } from "../_lifecycle.ts";
export { resolveHost } from "../node/resolve.ts";
export { pinnedFetch } from "../node/pinned_fetch.ts";

/**
 * The slice of Bun's API this adapter uses, typed here so that checking it needs no
 * `bun-types` download (and cannot clash with it in a user's project).
 */
interface BunServer {
  readonly port: number;
  readonly url: URL;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
  /** Requests whose answer is not written yet. */
  readonly pendingRequests: number;
  requestIP(request: Request): { address: string } | null;
}
interface BunRuntime {
  serve(
    options: {
      port?: number;
      hostname?: string;
      fetch(request: Request, server: BunServer): Response | Promise<Response>;
    },
  ): BunServer;
}

/** Options of `serveBun`: the router (`token`, `router`, `app`), the server and the graceful stop. */
export interface BunServeOptions extends AppOptions, ServerOptions {}

/** A running server. */
export type BunServerHandle = ServerHandle;

/**
 * Initialises the store, starts timer mode and serves the router with `Bun.serve`.
 *
 * @throws `Error` when not running on Bun; {SchedulerError} `invalid-spec` without a token
 * or `router: { public: true }`, or naming `port` when it is not a whole number from 0 to 65535 (or its decimal text), `store-error` when `scheduler.ready()` (the store's init) fails.
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { serveBun } from "edgecron/bun";
 *
 * const scheduler = createScheduler().job("tick", { schedule: { every: "1m" }, run: () => {} });
 * await serveBun(scheduler, { token: process.env.EDGECRON_TOKEN ?? "" });
 * ```
 */
export async function serveBun(scheduler: Scheduler, options: BunServeOptions = {}): Promise<BunServerHandle> {
  const { hostname = DEFAULT_HOSTNAME, timer = true, signals = ["SIGINT", "SIGTERM"], exit = true } = options;
  const port = checkPort(options.port ?? 8787, "serveBun");
  const bun = (globalThis as { Bun?: BunRuntime }).Bun;
  if (bun === undefined) throw new Error("edgecron/bun: Bun.serve is not available; run this with bun");
  await scheduler.ready();
  const app = appFor(scheduler, options);
  let server: BunServer;
  try {
    server = bun.serve({
      port,
      hostname,
      fetch: (request, s) => app.fetch(setClientAddress(request, s.requestIP(request)?.address)),
    });
  } catch (error) {
    throw listenError(error, port, hostname, "serveBun");
  }
  const url = listenUrl(hostname, server.port);
  announce(scheduler, url);
  if (timer) scheduler.start();

  // stop() alone waits for idle keep-alive connections too: once no answer is left to
  // write, the rest are closed.
  const answered = (cut: AbortSignal) =>
    new Promise<void>((resolve) => {
      void server.stop();
      const poll = setInterval(() => {
        if (server.pendingRequests > 0 && !cut.aborted) return;
        clearInterval(poll);
        resolve();
      }, 25);
    });
  const shutdown = createShutdown(scheduler, () => closeGracefully(answered, () => void server.stop(true)), {
    ...options,
    onError: (step, error) => console.error(`edgecron: ${step} failed:`, error),
  });
  bindSignals(process, shutdown, { signals, exit, log: (line) => console.error(line) });
  options.onListen?.({ url, port: server.port });
  return { url, port: server.port, shutdown };
}
