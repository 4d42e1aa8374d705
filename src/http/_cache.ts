/**
 * A small response cache for the read routes: what a GET answers does not change
 * between two ticks of this node unless someone writes through the router, so an
 * answer is kept until the scheduler's last tick changes, a write clears the cache, or
 * `ttl` passes (other nodes' writes). Each entry keeps its bytes and, once asked for,
 * their gzip: a hot page is rendered and compressed once per tick, not per request.
 * While one request renders a newer answer, concurrent ones get the previous answer.
 * A write starts a new epoch: an answer rendered (even partly) before it is neither kept
 * nor shared with a request that arrives after it.
 */
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { SESSION_COOKIE } from "./_auth.ts";
import { acceptsGzip, COMPRESS_THRESHOLD, gzip } from "./_compress.ts";

interface Entry {
  generation: unknown;
  at: number;
  headers: [string, string][];
  bytes: Uint8Array;
  zipped: boolean;
  gzip?: Promise<Uint8Array>;
}

/** The cache a router shares between its read routes. */
export interface ResponseCache {
  /** Route middleware (after auth): serves a fresh entry or records the handler's 200. */
  readonly middleware: MiddlewareHandler;
  /** Drops every entry (after a write). */
  clear(): void;
}

/** Options of `createResponseCache()`. */
export interface CacheOptions {
  /** Longest life of an entry in ms; 0 disables the cache. */
  ttlMs: number;
  now: () => number;
  /** Changes whenever cached answers may have changed (the scheduler's last tick). */
  generation: () => Promise<unknown>;
  /** Default 64. */
  maxEntries?: number;
}

/** Creates the cache. */
export function createResponseCache(options: CacheOptions): ResponseCache {
  const { ttlMs, now, generation, maxEntries = 64 } = options;
  const entries = new Map<string, Entry>();
  const pending = new Map<string, Promise<Entry | undefined>>();
  let epoch = 0;

  const serve = async (entry: Entry, acceptEncoding: string | undefined): Promise<Response> => {
    const headers = new Headers(entry.headers);
    let body = entry.bytes;
    if (entry.zipped) {
      headers.set("vary", "Accept-Encoding");
      if (acceptsGzip(acceptEncoding)) {
        body = await (entry.gzip ??= gzip(entry.bytes));
        headers.set("content-encoding", "gzip");
      }
    }
    headers.set("content-length", String(body.byteLength));
    // workerd compresses a body itself when Content-Encoding is set, unless told the
    // bytes are encoded already ("manual"); other runtimes ignore the unknown field.
    return new Response(body as BodyInit, { status: 200, headers, encodeBody: "manual" } as ResponseInit);
  };

  const record = async (res: Response, gen: unknown, at: number): Promise<Entry | undefined> => {
    // The cached routes answer JSON or HTML (both compress well) and never set cookies.
    if (res.status !== 200) return undefined;
    const bytes = new Uint8Array(await res.clone().arrayBuffer());
    const headers = [...res.headers].filter(([k]) => k !== "content-length");
    return { generation: gen, at, headers, bytes, zipped: bytes.byteLength >= COMPRESS_THRESHOLD };
  };

  const middleware: MiddlewareHandler = async (c, next) => {
    if (ttlMs <= 0 || c.req.method !== "GET") return next();
    const key = `${c.req.url}\n${getCookie(c, SESSION_COOKIE) ?? ""}`;
    const started = epoch;
    const gen = await generation();
    const at = now();
    const hit = entries.get(key);
    if (hit !== undefined && hit.generation === gen && at - hit.at < ttlMs) {
      return serve(hit, c.req.header("accept-encoding"));
    }
    const inFlight = pending.get(key);
    if (inFlight !== undefined) {
      // One request renders the new answer; the others get the previous one meanwhile
      // (never after a write: a write clears every entry).
      if (hit !== undefined) return serve(hit, c.req.header("accept-encoding"));
      const shared = await inFlight;
      if (shared !== undefined) return serve(shared, c.req.header("accept-encoding"));
    }
    // A write while this request awaited the generation: its answer may predate it.
    if (started !== epoch) return next();
    let settle: (e: Entry | undefined) => void = () => {};
    const mine = new Promise<Entry | undefined>((resolve) => (settle = resolve));
    pending.set(key, mine);
    let entry: Entry | undefined;
    try {
      await next();
      entry = await record(c.res, gen, at);
    } finally {
      if (pending.get(key) === mine) pending.delete(key);
      settle(entry);
    }
    if (entry === undefined) return;
    // Rendered across a write: this request gets it as it is; nothing is kept.
    if (started !== epoch) return;
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    const res = await serve(entry, c.req.header("accept-encoding"));
    // Replacing a response makes Hono re-create it from (body, old response), which
    // would drop `encodeBody`; with none set first, the new one is taken as it is.
    c.res = undefined;
    c.res = res;
  };

  return {
    middleware,
    clear: () => {
      epoch += 1;
      entries.clear();
      // Requests from now on render afresh instead of joining a render begun before.
      pending.clear();
    },
  };
}
