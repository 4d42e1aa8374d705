/** Webhook deliveries pinned to a checked address on Node and Bun (`node:http`, `node:https`). */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";

/**
 * Sends `init` to `url` over a connection to `address` (the IP `webhooks.resolve` gave
 * and the SSRF check passed), keeping the URL's host name for `Host`, TLS SNI and the
 * certificate check, for `createScheduler({ webhooks: { resolve, pinnedFetch } })`.
 * Redirects are never followed (deliveries use `redirect: "manual"`).
 *
 * @throws the connection's error (`ECONNREFUSED`, a TLS error), or the signal's reason when aborted.
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { pinnedFetch, resolveHost } from "edgecron/node";
 *
 * createScheduler({ webhookSecret: "a-long-random-secret", webhooks: { resolve: resolveHost, pinnedFetch } });
 * ```
 */
export function pinnedFetch(address: string, url: URL, init: RequestInit): Promise<Response> {
  const family = address.includes(":") ? 6 : 4;
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    } else callback(null, address, family);
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const headers = Object.fromEntries(new Headers(init.headers ?? {}));
  // Deliveries send a string body (or none for GET).
  const body = typeof init.body === "string" ? init.body : undefined;
  return new Promise((resolve, reject) => {
    const req = send(url, {
      method: init.method ?? "GET",
      headers,
      lookup,
      ...(init.signal ? { signal: init.signal } : {}),
    }, (res) => {
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, v);
      }
      const status = res.statusCode ?? 502;
      const noBody = status === 204 || status === 304 || init.method === "HEAD";
      if (noBody) res.resume();
      resolve(
        new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
          status,
          statusText: res.statusMessage ?? "",
          headers: responseHeaders,
        }),
      );
    });
    req.on("error", (error) => reject(init.signal?.aborted ? init.signal.reason : error));
    req.end(body);
  });
}
