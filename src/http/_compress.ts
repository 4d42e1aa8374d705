/**
 * Response compression with the Web-standard `CompressionStream` (Node 20, Deno, Bun
 * and workerd all have it). Unlike hono's `compress()`, which only knows a body's size
 * from `Content-Length` (unset on `c.json()`), this reads the body first, so tiny
 * bodies (under 1 KiB) go out as they are.
 */
import type { MiddlewareHandler } from "hono";

/** Bodies smaller than this are not worth a gzip header and a stream. */
export const COMPRESS_THRESHOLD = 1024;

const COMPRESSIBLE = /^\s*(?:text\/|application\/(?:json|[a-z.+-]*\+json|openapi)|image\/svg)/i;

/** True when the request's `Accept-Encoding` admits gzip (q > 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (name !== "gzip" && name !== "*") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/** gzip of `bytes`. */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** True when a response of this type may be compressed. */
export function compressible(res: Response): boolean {
  return COMPRESSIBLE.test(res.headers.get("content-type") ?? "") && !res.headers.has("content-encoding") &&
    !/(?:^|,)\s*no-transform\s*(?:,|$)/i.test(res.headers.get("cache-control") ?? "");
}

/** Adds `Accept-Encoding` to `Vary`. */
export function varyOnEncoding(headers: Headers): void {
  const vary = headers.get("vary");
  if (vary === null) headers.set("vary", "Accept-Encoding");
  else if (!/accept-encoding/i.test(vary)) headers.set("vary", `${vary}, Accept-Encoding`);
}

/**
 * Middleware: gzips text, JSON and SVG answers of 1 KiB or more when the client accepts
 * gzip; leaves smaller ones, HEAD answers and already encoded ones alone.
 */
export function compression(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    // A Content-Length means the body is already final (the response cache sizes its own).
    if (c.req.method === "HEAD" || res.body === null || res.headers.has("content-length") || !compressible(res)) return;
    const bytes = new Uint8Array(await res.arrayBuffer());
    const zip = bytes.byteLength >= COMPRESS_THRESHOLD && acceptsGzip(c.req.header("accept-encoding"));
    const body = zip ? await gzip(bytes) : bytes;
    c.res = new Response(body as BodyInit, { status: res.status, statusText: res.statusText, headers: res.headers });
    if (zip) c.res.headers.set("content-encoding", "gzip");
    c.res.headers.set("content-length", String(body.byteLength));
    if (bytes.byteLength >= COMPRESS_THRESHOLD) varyOnEncoding(c.res.headers);
  };
}
