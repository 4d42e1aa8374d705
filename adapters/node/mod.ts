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
import { appFor, type AppOptions, setClientAddress } from "../_app.ts";
import { announce, checkPort, DEFAULT_HOSTNAME, listenError, listenUrl } from "../_listen.ts";
import { bindSignals, closeGracefully, createShutdown, type ServerHandle, type ServerOptions } from "../_lifecycle.ts";
export { resolveHost } from "./resolve.ts";
export { pinnedFetch } from "./pinned_fetch.ts";

/** Options of `serveNode`: the router (`token`, `router`, `app`), the server and the graceful stop. */
export interface NodeServeOptions extends AppOptions, ServerOptions {}

/** A running server. */
export type NodeServer = ServerHandle;

/**
 * Initialises the store, starts timer mode and serves the router.
 *
 * @throws {SchedulerError} `invalid-spec` (`router.token: required …`) without a token or
 * `router: { public: true }`, or naming `port` when it is not a whole number from 0 to 65535 (or its decimal text); `store-error` when `scheduler.ready()` (the store's init) fails; an `Error` with
 * `code: "EADDRINUSE"` naming the port and the `port` option when the port is taken.
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { libsqlStore } from "edgecron/libsql";
 * import { serveNode } from "edgecron/node";
 *
 * const scheduler = createScheduler({ store: libsqlStore({ url: "file:edgecron.db" }) })
 *   .job("report", { schedule: "0 9 * * MON-FRI", timezone: "Europe/Berlin", run: () => console.log("report") });
 * await serveNode(scheduler, { token: process.env.EDGECRON_TOKEN ?? "" });
 * ```
 */
export async function serveNode(scheduler: Scheduler, options: NodeServeOptions = {}): Promise<NodeServer> {
  const { hostname = DEFAULT_HOSTNAME, timer = true, signals = ["SIGINT", "SIGTERM"], exit = true } = options;
  const port = checkPort(options.port ?? 8787, "serveNode");
  await scheduler.ready();
  const app = appFor(scheduler, options);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({
      fetch: (request, env) => app.fetch(setClientAddress(request, env.incoming.socket.remoteAddress)),
      port,
      hostname,
    }, () => resolve(s));
    s.once("error", (error) => reject(listenError(error, port, hostname, "serveNode")));
  });
  const address = server.address() as AddressInfo;
  const url = listenUrl(hostname, address.port);
  announce(scheduler, url);
  if (timer) scheduler.start();

  const shutdown = createShutdown(scheduler, () =>
    closeGracefully(
      () =>
        new Promise<void>((resolve) => {
          // Keep-alive connections would hold close() open until they time out: each is
          // closed once idle, an answer being written first.
          const idle = setInterval(() => "closeIdleConnections" in server && server.closeIdleConnections(), 25);
          server.close(() => {
            clearInterval(idle);
            resolve();
          });
          if ("closeIdleConnections" in server) server.closeIdleConnections();
        }),
      () => {
        if ("closeAllConnections" in server) server.closeAllConnections();
      },
    ), {
    ...options,
    onError: (step, error) => console.error(`edgecron: ${step} failed:`, error),
  });
  bindSignals(process, shutdown, { signals, exit, log: (line) => console.error(line) });
  options.onListen?.({ url, port: address.port });
  return { url, port: address.port, shutdown };
}
