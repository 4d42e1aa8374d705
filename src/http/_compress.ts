/**
 * gzip for the response cache, with the Web-standard `CompressionStream` (Node 20,
 * Deno, Bun and workerd all have it). Unlike hono's `compress()`, which knows a body's
 * size only from `Content-Length` (unset on `c.json()`) and compresses on every request,
 * the cache compresses an answer once, and leaves bodies under 1 KiB as they are.
 */

/** Bodies smaller than this are not worth a gzip header and a stream. */
export const COMPRESS_THRESHOLD = 1024;

/** True when the request's `Accept-Encoding` names gzip without `q=0`. */
export function acceptsGzip(header: string | undefined): boolean {
  return /(?:^|,)\s*gzip\s*(?:,|$|;(?!\s*q=0(?:\.0*)?\s*(?:,|$)))/i.test(header ?? "");
}

/** gzip of `bytes`. */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
