/** Response headers every JSON answer carries. */
import type { MiddlewareHandler } from "hono";

/**
 * Adds `X-Content-Type-Options: nosniff` and `Cache-Control: no-store` to every JSON
 * answer (job specs and run errors must not be sniffed as HTML or kept by a cache).
 */
export const jsonHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  if (c.res.headers.get("content-type")?.includes("json")) {
    c.res.headers.set("X-Content-Type-Options", "nosniff");
    c.res.headers.set("Cache-Control", "no-store");
  }
};

/**
 * True when the request reached us over https: its URL, or with `trustProxy` a TLS
 * proxy's `X-Forwarded-Proto: https` (the first entry, written by the proxy nearest the client).
 */
export function isHttps(request: Request, trustProxy: boolean): boolean {
  if (new URL(request.url).protocol === "https:") return true;
  if (!trustProxy) return false;
  return request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https";
}
