/**
 * The network peer of a request. A Fetch API `Request` carries no peer address, so the
 * server that accepted the connection records it here (the edgecron adapters do; your
 * own server can too) and the router reads it for the sign-in back-off. Kept per
 * `Request` object, so it lives exactly as long as the request.
 */
const peers = new WeakMap<Request, string>();

/**
 * Records the address the connection of `request` came from, and returns `request`.
 * An empty or missing address records nothing.
 *
 * @example
 * ```ts
 * import { serve } from "@hono/node-server";
 * import { createScheduler } from "edgecron";
 * import { edgecronRouter, setClientAddress } from "edgecron/hono";
 *
 * const app = edgecronRouter(createScheduler(), { token: "a-long-random-token" });
 * serve({ fetch: (request, env) => app.fetch(setClientAddress(request, env.incoming.socket.remoteAddress)) });
 * ```
 */
export function setClientAddress(request: Request, address: string | undefined): Request {
  if (typeof address === "string" && address !== "") peers.set(request, address);
  return request;
}

/** The peer address recorded for `request` by `setClientAddress()`, if any. */
export function clientAddress(request: Request): string | undefined {
  return peers.get(request);
}
