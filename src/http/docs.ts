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
export const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * `pieces` as a byte stream, a chunk at a time with a turn of the event loop between
 * chunks: at 100 000 jobs the metrics text is tens of MB, and a reader that pulls as
 * fast as it can (a local client, a fast socket) would otherwise take it all in one
 * turn. Each piece is encoded straight into the chunk (`encodeInto`): the pieces are
 * flat strings, and joining them first made a rope that encoding had to flatten (four
 * times slower at 36 MB).
 */
export function textStream(pieces: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  // What is left of a piece that did not fit in the last chunk.
  let rest = "";
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = new Uint8Array(CHUNK_BYTES);
      let at = 0;
      for (;;) {
        if (rest === "") {
          if (next >= pieces.length) break;
          rest = pieces[next++]!;
        }
        const { read, written } = encoder.encodeInto(rest, chunk.subarray(at));
        at += written;
        // The chunk is full: encodeInto stops before a character that does not fit whole.
        if (read < rest.length) {
          rest = rest.slice(read);
          break;
        }
        rest = "";
      }
      if (at > 0) controller.enqueue(at === CHUNK_BYTES ? chunk : chunk.subarray(0, at));
      if (rest === "" && next >= pieces.length) controller.close();
      else await nextTurn();
    },
  });
}
