import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import type { Scheduler } from "../../src/engine/types.ts";
import { createScheduler } from "../../src/engine/scheduler.ts";
import { createManualClock } from "../../src/engine/clock.ts";
import { edgecronRouter } from "../../src/http/router.ts";
import { errorOf, json, setup, TOKEN } from "./_setup.ts";

const KIB = 1024;

/** A body streamed in chunks, so no Content-Length is known up front. */
function stream(totalBytes: number, chunk = 8 * KIB): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= totalBytes) return controller.close();
      const n = Math.min(chunk, totalBytes - sent);
      controller.enqueue(new TextEncoder().encode(" ".repeat(n)));
      sent += n;
    },
  });
}

function streamed(path: string, body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Request {
  return new Request(`http://localhost${path}`, {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${TOKEN}`, ...headers },
    duplex: "half",
  } as RequestInit);
}

describe("request bodies", () => {
  it("answers 413 for a body over 64 KiB declared by Content-Length", async () => {
    const f = setup();
    const res = await f.call("POST", "/jobs", json({ name: "x", pad: "y".repeat(64 * KIB) }));
    assert.equal(res.status, 413);
    assert.deepEqual(await errorOf(res), {
      code: "payload-too-large",
      message: "body: larger than the limit of 65536 bytes",
    });
  });

  it("counts streamed bytes when Content-Length is absent", async () => {
    const f = setup();
    const res = await f.app.request(streamed("/tick", stream(65 * KIB)));
    assert.equal(res.status, 413);
    const small = await f.app.request(streamed("/tick", stream(10 * KIB)));
    assert.equal(small.status, 200, "10 KiB of whitespace is an empty body");
  });

  it("counts streamed bytes when Content-Length lies", async () => {
    const f = setup();
    const res = await f.app.request(streamed("/jobs/hourly/pause", stream(200 * KIB), { "content-length": "2" }));
    assert.equal(res.status, 413);
  });

  it("a body that breaks off (the client went away) is a 400, not a logged 500, on the sign-in form too", async () => {
    const f = setup();
    const broken = (): ReadableStream<Uint8Array> =>
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"no'));
          controller.error(new Error("aborted"));
        },
      });
    for (const path of ["/jobs/hourly/pause", "/ui/login"]) {
      const res = await f.app.request(streamed(path, broken()));
      assert.equal(res.status, 400, path);
      assert.deepEqual(await errorOf(res), { code: "invalid-request", message: "body: broke off before its end" });
    }
    assert.deepEqual(f.errors, [], "nothing logged: an unauthenticated client could fill the log with stack traces");
  });

  it("honours a custom maxBodyBytes", async () => {
    const f = setup({ router: { maxBodyBytes: 16 } });
    assert.equal((await f.call("POST", "/jobs/hourly/run", json({ mode: "force" }))).status, 200);
    assert.equal((await f.call("POST", "/jobs/hourly/run", json({ mode: "force", x: "long" }))).status, 413);
  });

  it("answers 400 for malformed JSON, non-objects and invalid UTF-8", async () => {
    const f = setup();
    for (const body of ["{", "{'mode':'force'}", "nul", '{"mode":"force"}}']) {
      const res = await f.call("POST", "/jobs/hourly/run", { body, headers: { "content-type": "application/json" } });
      assert.equal(res.status, 400, body);
      const error = await errorOf(res);
      assert.equal(error.code, "invalid-request");
      assert.match(error.message, /^body: malformed JSON/);
    }
    for (const body of ["[]", "42", '"force"', "null"]) {
      const res = await f.call("POST", "/jobs/hourly/run", { body });
      assert.equal(res.status, 400, body);
      assert.match((await errorOf(res)).message, /^body: /);
    }
    const bytes = await f.call("POST", "/jobs/hourly/run", { body: new Uint8Array([0x7b, 0xff, 0x7d]) });
    assert.equal(bytes.status, 400);
    assert.equal((await errorOf(bytes)).message, "body: not valid UTF-8");
    // A compressed body was read as text: "not valid UTF-8", which sent the client to its JSON.
    const gzipped = await f.call("POST", "/jobs/hourly/run", {
      body: new Uint8Array([0x1f, 0x8b, 0x08, 0x00]),
      headers: { "content-encoding": "gzip" },
    });
    assert.equal(gzipped.status, 400);
    assert.equal(
      (await errorOf(gzipped)).message,
      'body: Content-Encoding "gzip" is not accepted; send it uncompressed',
    );
  });

  it('answers 400 naming the field and quoting the text of a number too large for a double (it said "Infinity")', async () => {
    const f = setup();
    const job = (extra: string): string => `{"schedule":"@daily","target":{"url":"https://example.test/"}${extra}}`;
    const huge = `1${"0".repeat(400)}`;
    for (
      const [method, path, body, field, sent] of [
        ["POST", "/jobs/hourly/run", '{"mode":1e999}', "mode", "1e999"],
        ["PUT", "/jobs/w", job(',"maxRuns":1E+999'), "maxRuns", "1E+999"],
        ["PUT", "/jobs/w", job(',"retries":{"attempts":-2e400}'), "retries.attempts", "-2e400"],
        [
          "POST",
          "/jobs",
          job(',"name":"w","payload":{"text":"3e999","list":[1,' + huge + "]}"),
          "payload.list.1",
          huge,
        ],
        ["POST", "/jobs/hourly/backfill", '{"from":1e999,"to":0}', "from", "1e999"],
        ["POST", "/jobs/hourly/pause", '{"note":1e999}', "note", "1e999"],
      ] as const
    ) {
      const res = await f.call(method, path, { body, headers: { "content-type": "application/json" } });
      assert.equal(res.status, 400, body);
      const error = await errorOf(res);
      assert.equal(error.path, field, body);
      const quoted = sent.length > 80 ? `${sent.slice(0, 77)}...` : sent; // long ones cut, as every message quotes
      assert.equal(error.message, `${field}: expected a finite number, got "${quoted}" (out of range)`, body);
    }
    assert.equal((await f.call("GET", "/jobs/w")).status, 404, "nothing was defined");
  });

  it("answers 400 naming the field and quoting the text of a number too small for a double (it read as 0)", async () => {
    const f = setup();
    const job = (extra: string): string => `{"schedule":"@daily","target":{"url":"https://example.test/"}${extra}}`;
    const tiny = `0.${"0".repeat(400)}1`;
    for (
      const [method, path, body, field, sent] of [
        ["POST", "/jobs/hourly/backfill", '{"from":1e-999,"to":1}', "from", "1e-999"],
        ["POST", "/jobs/hourly/run", '{"mode":-2.5E-400}', "mode", "-2.5E-400"],
        [
          "PUT",
          "/jobs/w",
          '{"schedule":{"at":1e-999},"target":{"url":"https://example.test/"}}',
          "schedule.at",
          "1e-999",
        ],
        ["PUT", "/jobs/w", job(`,"payload":{"list":[0,0.0e-999,"1e-999",{"x":${tiny}}]}`), "payload.list.3.x", tiny],
        // Named from the text: JSON.parse puts an integer-like key first, and the quote was the text's first.
        ["PUT", "/jobs/w", job(',"payload":{"b":1e-999,"0":2e-999}'), "payload.b", "1e-999"],
        ["PUT", "/jobs/w", job(',"payload":{"b":1e999,"0":2e999}'), "payload.b", "1e999"],
      ] as const
    ) {
      const res = await f.call(method, path, { body, headers: { "content-type": "application/json" } });
      assert.equal(res.status, 400, body);
      const error = await errorOf(res);
      assert.equal(error.path, field, body);
      const quoted = sent.length > 80 ? `${sent.slice(0, 77)}...` : sent;
      const rule = sent.includes("e999")
        ? "expected a finite number"
        : "expected 0 or a number no closer to 0 than 5e-324";
      assert.equal(error.message, `${field}: ${rule}, got "${quoted}" (out of range)`, body);
    }
    assert.equal((await f.call("GET", "/jobs/w")).status, 404, "nothing was defined");
    assert.equal((await f.call("PUT", "/jobs/w", { body: job(',"payload":[0.0e-999,-0,5e-324]') })).status, 201);
  });
});

describe("instants out of range", () => {
  it("are refused naming the field, the value and the range the API takes (no word of a range was said)", async () => {
    const f = setup();
    const target = '"target":{"url":"https://example.test/"}';
    const range = "expected an instant from -8640000000000000 to 8640000000000000 ms (years -271821 to 275760)";
    for (
      const [method, path, body, field, sent] of [
        ["POST", "/jobs/hourly/backfill", '{"from":9e15,"to":0}', "from", "9000000000000000"],
        ["POST", "/jobs/hourly/backfill", '{"from":0,"to":-9000000000000000}', "to", "-9000000000000000"],
        ["PUT", "/jobs/w", `{"schedule":{"at":9e15},${target}}`, "schedule.at", "9000000000000000"],
        ["PUT", "/jobs/w", `{"schedule":"@daily","endAt":8640000000000001,${target}}`, "endAt", "8640000000000001"],
        // Well-formed ISO text past the range read as malformed ("expected epoch milliseconds or...").
        [
          "POST",
          "/jobs/hourly/backfill",
          '{"from":"+275760-09-13T00:00:00.001Z","to":0}',
          "from",
          "+275760-09-13T00:00:00.001Z",
        ],
        [
          "PUT",
          "/jobs/w",
          `{"schedule":{"at":"+300000-01-01T00:00:00Z"},${target}}`,
          "schedule.at",
          "+300000-01-01T00:00:00Z",
        ],
      ] as const
    ) {
      const res = await f.call(method, path, { body, headers: { "content-type": "application/json" } });
      assert.equal(res.status, 400, body);
      const error = await errorOf(res);
      assert.equal(error.path, field, body);
      assert.equal(error.message, `${field}: ${range}, got "${sent}" (out of range)`, body);
    }
  });

  it("in a query cursor are said as out of range, on the runs API and the job page (it said the generic rule)", async () => {
    const f = setup();
    const range = "expected an instant from -8640000000000000 to 8640000000000000 ms (years -271821 to 275760)";
    for (const before of ["9000000000000000", "-8640000000000001", "+275760-09-13T00:00:00.001Z"]) {
      const api = await f.call("GET", `/jobs/hourly/runs?before=${encodeURIComponent(before)}`);
      assert.equal(api.status, 400, before);
      const error = await errorOf(api);
      assert.equal(error.path, "query.before", before);
      assert.equal(error.message, `query.before: ${range}, got "${before}" (out of range)`);
      const page = await f.call("GET", `/ui/jobs/hourly?before=${encodeURIComponent(before)}`);
      assert.equal(page.status, 400, before);
      assert.ok(
        (await page.text()).includes(`in the address: ${range}, got &quot;${before}&quot; (out of range).</div>`),
        before,
      );
    }
  });
});

describe("unexpected errors", () => {
  const boom = (s: Scheduler): Scheduler => ({
    ...s,
    list: () => Promise.reject(new Error("SQLITE_CORRUPT at /srv/data/edgecron.db (password=hunter2)")),
    get: () => {
      throw new TypeError("Cannot read properties of undefined (reading 'x')");
    },
    health: () => Promise.reject(new SchedulerError("store-error", "libsql: connect ECONNREFUSED 10.0.0.7:8080")),
  });

  it("answer 500 with a generic message, no stack, and log the real error", async () => {
    const f = setup({ wrap: boom });
    for (const path of ["/jobs", "/jobs/hourly"]) {
      const res = await f.call("GET", path);
      assert.equal(res.status, 500);
      const text = await res.text();
      assert.deepEqual(JSON.parse(text), { error: { code: "internal", message: "internal server error" } });
      for (const leak of ["SQLITE", "hunter2", "/srv", "TypeError", "at ", "Cannot read"]) {
        assert.ok(!text.includes(leak), leak);
      }
    }
    assert.equal(f.errors.length, 2);
    assert.match(String(f.errors[0]!.fields?.["error"]), /SQLITE_CORRUPT/);
  });

  it("answer 503 for store errors without the store's message", async () => {
    const f = setup({ wrap: boom });
    const res = await f.call("GET", "/health");
    assert.equal(res.status, 503);
    const text = await res.text();
    assert.ok(!text.includes("10.0.0.7") && !text.includes("ECONNREFUSED"), text);
    assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, "store-error");
  });

  it("a throwing logger does not turn a 500 into a crash", async () => {
    const f = setup({
      wrap: boom,
      router: {
        logger: {
          debug() {},
          info() {},
          warn() {},
          error() {
            throw new Error("logger down");
          },
        },
      },
    });
    assert.equal((await f.call("GET", "/jobs")).status, 500);
  });

  it("logs through the scheduler's logger when the router is given none", async () => {
    const lines: string[] = [];
    const logger = { error: (m: string) => void lines.push(m) };
    const scheduler = createScheduler({ clock: createManualClock(0), logger });
    const said: unknown[] = [];
    const console_ = globalThis.console.error;
    globalThis.console.error = (...a: unknown[]) => void said.push(a);
    try {
      const router = edgecronRouter(boom(scheduler), { token: TOKEN });
      const res = await router.request("/jobs", { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.status, 500);
    } finally {
      globalThis.console.error = console_;
    }
    assert.equal(lines.length, 1, lines.join("\n"));
    assert.match(lines[0]!, /request failed/);
    assert.deepEqual(said, []);
  });
});
