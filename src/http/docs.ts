/** `GET /openapi.json` and `GET /metrics` when the router has them (same auth as the API). */
import type { Hono } from "hono";
import { nextTurn } from "./metrics.ts";
import { requireAuth, type RouterContext } from "./_context.ts";

/** Registers the document and the metrics routes on `app`. */
export function registerDocs(app: Hono, rc: RouterContext): void {
  const read = requireAuth(rc, { cookie: true });
  const { openapi, metrics } = rc;
  if (openapi !== undefined) {
    app.get("/openapi.json", read, rc.cache.middleware, (c) => {
      c.header("Content-Type", "application/json; charset=UTF-8");
      return c.body(openapi);
    });
  }
  if (metrics !== undefined) {
    app.get("/metrics", read, async (c) => {
      c.header("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      c.header("Cache-Control", "no-store");
      return c.body(textStream(await metrics.scrapeChunks(rc.scheduler, rc.now())));
    });
  }
}

/** Bytes per chunk of a streamed answer: one chunk is encoded in a few ms. */
const CHUNK_CHARS = 4 * 1024 * 1024;

/**
 * `pieces` as a byte stream, encoded a chunk at a time with a turn of the event loop
 * between chunks: at 100 000 jobs the metrics text is tens of MB, and a reader that
 * pulls as fast as it can (a local client, a fast socket) would otherwise take it all
 * in one turn.
 */
function textStream(pieces: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let text = "";
      while (next < pieces.length && text.length < CHUNK_CHARS) text += pieces[next++];
      if (text !== "") controller.enqueue(encoder.encode(text));
      if (next >= pieces.length) controller.close();
      else await nextTurn();
    },
  });
}
