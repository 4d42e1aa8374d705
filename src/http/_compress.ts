/**
 * gzip for the response cache, with the Web-standard `CompressionStream` (Node 20,
 * Deno, Bun and workerd all have it). Unlike hono's `compress()`, which knows a body's
 * size only from `Content-Length` (unset on `c.json()`) and compresses on every request,
 * the cache compresses an answer once, and leaves bodies under 1 KiB as they are.
 */

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
