import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { deliverWebhook } from "../../src/webhook/deliver.ts";
import { verifySignature } from "../../src/webhook/signature.ts";
import { resolveWebhookPolicy } from "../../src/webhook/policy.ts";
import type { Logger, RunContext } from "../../src/engine/types.ts";

const SECRET = "whsec_unit_secret_value";
const SLOT = Date.UTC(2026, 10, 30, 12, 0, 0);
const NOW = SLOT + 250;
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function ctx(over: Partial<RunContext> = {}): RunContext {
  return {
    job: "nightly-report",
    slot: SLOT,
    attempt: 2,
    signal: new AbortController().signal,
    lease: { node: "n", attempt: 2, until: NOW + 15_000, held: true },
    payload: { n: 1 },
    log: quiet,
    ...over,
  };
}

/** A fetch that records its request and answers with `respond`. */
function fakeFetch(respond: (req: Request) => Response | Promise<Response>): { fetch: typeof fetch; seen: Request[] } {
  const seen: Request[] = [];
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    seen.push(req.clone());
    return respond(req);
  }) as typeof fetch;
  return { fetch: f, seen };
}

describe("deliverWebhook", () => {
  it("POSTs a signed JSON body with the job, ISO slot and attempt headers", async () => {
    const { fetch, seen } = fakeFetch(() => new Response("ok"));
    await deliverWebhook({ url: "https://hooks.example/run" }, ctx(), { fetch, secret: SECRET, nowMs: NOW });
    const req = seen[0]!;
    assert.equal(req.method, "POST");
    assert.equal(req.url, "https://hooks.example/run");
    assert.equal(req.headers.get("edgecron-job"), "nightly-report");
    assert.equal(req.headers.get("edgecron-slot"), "2026-11-30T12:00:00.000Z");
    assert.equal(req.headers.get("edgecron-attempt"), "2");
    assert.equal(req.headers.get("content-type"), "application/json");
    const verified = await verifySignature(req, SECRET, { now: NOW });
    assert.equal(verified.ok, true);
    assert.deepEqual(JSON.parse(verified.ok ? verified.body : "null"), {
      job: "nightly-report",
      slot: "2026-11-30T12:00:00.000Z",
      attempt: 2,
      payload: { n: 1 },
    });
    assert.match(
      req.headers.get("edgecron-signature")!,
      new RegExp(`^t=${Math.floor(NOW / 1000)},v1=[0-9a-f]{64},v2=[0-9a-f]{64}$`),
    );
  });

  it("sends the target's method, headers and body, and signs that body", async () => {
    const { fetch, seen } = fakeFetch(() => new Response(null, { status: 204 }));
    await deliverWebhook(
      { url: "https://h.example/x", method: "PUT", headers: { "X-Team": "ops" }, body: "custom" },
      ctx(),
      { fetch, secret: SECRET, nowMs: NOW },
    );
    const req = seen[0]!;
    assert.equal(req.method, "PUT");
    assert.equal(req.headers.get("x-team"), "ops");
    assert.equal(req.headers.get("edgecron-job"), "nightly-report");
    const verified = await verifySignature(req, SECRET, { now: NOW });
    assert.deepEqual(verified.ok && verified.body, "custom");
  });

  it("sends GET without a body and signs the empty body", async () => {
    const { fetch, seen } = fakeFetch(() => new Response("ok"));
    await deliverWebhook({ url: "https://h.example/ping", method: "GET" }, ctx(), {
      fetch,
      secret: SECRET,
      nowMs: NOW,
    });
    assert.equal(seen[0]!.method, "GET");
    assert.equal(seen[0]!.body, null);
    assert.equal((await verifySignature(seen[0]!, SECRET, { now: NOW })).ok, true);
  });

  it("rejects on a non-2xx answer with the status line only: the body is not kept by default", async () => {
    const { fetch } = fakeFetch(() =>
      new Response("db_password=hunter2 ".repeat(40), { status: 503, statusText: "Service Unavailable" })
    );
    await assert.rejects(
      deliverWebhook({ url: "https://h.example/run" }, ctx(), { fetch, secret: SECRET, nowMs: NOW }),
      (e: Error) => {
        assert.equal(e.message, "webhook: POST https://h.example/run answered 503 Service Unavailable");
        return true;
      },
    );
  });

  it("keeps at most errorBodyBytes of a failed answer's body when configured, printable only", async () => {
    const { fetch } = fakeFetch(() =>
      new Response("database\u202e is\u0007 down ".repeat(40), { status: 503, statusText: "Service Unavailable" })
    );
    const policy = resolveWebhookPolicy({ errorBodyBytes: 24 });
    await assert.rejects(
      deliverWebhook({ url: "https://h.example/run" }, ctx(), { fetch, secret: SECRET, nowMs: NOW, policy }),
      (e: Error) => {
        assert.equal(
          e.message,
          'webhook: POST https://h.example/run answered 503 Service Unavailable: "database is down dat"',
        );
        return true;
      },
    );
  });

  it("refuses a stored target that sets a header edgecron owns (Edgecron-*, Host...)", async () => {
    const { fetch, seen } = fakeFetch(() => new Response("ok"));
    for (const name of ["Edgecron-Job", "edgecron-signature", "Host", "Content-Length"]) {
      await assert.rejects(
        deliverWebhook({ url: "https://h.example/x", headers: { [name]: "spoofed" } }, ctx(), {
          fetch,
          secret: SECRET,
          nowMs: NOW,
        }),
        new RegExp(`refused: header "${name}" is set by edgecron`),
      );
    }
    assert.equal(seen.length, 0);
  });

  it("refuses a stored target fetch cannot send (a bad header value, a GET with a body), naming the header, not its value", async () => {
    const { fetch, seen } = fakeFetch(() => new Response("ok"));
    const send = (target: Parameters<typeof deliverWebhook>[0]) =>
      deliverWebhook(target, ctx(), { fetch, secret: SECRET, nowMs: NOW });
    for (const value of ["tok\u0001en", "tok\u2603en"]) {
      await assert.rejects(send({ url: "https://h.example/x", headers: { "X-Key": value } }), (e: Error) => {
        assert.equal(
          e.message,
          'webhook: POST https://h.example/x refused: header "X-Key" has a value fetch cannot send',
        );
        return true;
      });
    }
    await assert.rejects(
      send({ url: "https://h.example/x", method: "GET", body: "hello" }),
      /refused: a GET request sends no body \(target\.body\)/,
    );
    assert.equal(seen.length, 0);
  });

  it("treats a redirect as a failure instead of following it", async () => {
    const { fetch, seen } = fakeFetch(() =>
      new Response(null, { status: 302, headers: { location: "https://elsewhere.example/" } })
    );
    await assert.rejects(
      deliverWebhook({ url: "https://h.example/run" }, ctx(), { fetch, secret: SECRET, nowMs: NOW }),
      /answered 302/,
    );
    assert.equal(seen[0]!.redirect, "manual");
  });

  it("rejects on a network error without leaking the secret, URL credentials or query", async () => {
    const fetch: typeof globalThis.fetch = async () => {
      throw new TypeError(`fetch failed for key ${SECRET}`, { cause: new Error("connect ECONNREFUSED") });
    };
    await assert.rejects(
      deliverWebhook({ url: "https://h.example/run?token=abc" }, ctx(), { fetch, secret: SECRET, nowMs: NOW }),
      (e: Error) => {
        assert.match(e.message, /^webhook: POST https:\/\/h\.example\/run failed: .*ECONNREFUSED/);
        for (const leak of [SECRET, "token=abc"]) assert.ok(!e.message.includes(leak), leak);
        return true;
      },
    );
  });

  it("aborts the request when the run's signal aborts", async () => {
    const controller = new AbortController();
    const fetch: typeof globalThis.fetch = (_: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
      });
    const pending = deliverWebhook({ url: "https://h.example/slow" }, ctx({ signal: controller.signal }), {
      fetch,
      secret: SECRET,
      nowMs: NOW,
    });
    controller.abort(new Error("timeout after 10m"));
    await assert.rejects(pending, (e: Error) => {
      assert.match(e.message, /^webhook: POST https:\/\/h\.example\/slow aborted$/);
      assert.equal((e.cause as Error).message, "timeout after 10m");
      return true;
    });
  });

  it("does not send at all when the signal is already aborted", async () => {
    const { fetch, seen } = fakeFetch(() => new Response("ok"));
    await assert.rejects(
      deliverWebhook({ url: "https://h.example/x" }, ctx({ signal: AbortSignal.abort() }), {
        fetch,
        secret: SECRET,
        nowMs: NOW,
      }),
      /aborted/,
    );
    assert.equal(seen.length, 0);
  });

  it("refuses a non-http URL with a SchedulerError naming target.url", async () => {
    const { fetch } = fakeFetch(() => new Response("ok"));
    for (const url of ["file:///etc/passwd", "not a url"]) {
      await assert.rejects(
        deliverWebhook({ url }, ctx(), { fetch, secret: SECRET, nowMs: NOW }),
        (e: Error & { path?: string }) => {
          assert.match(e.message, /^invalid-spec: target\.url/);
          assert.equal(e.path, "target.url");
          return true;
        },
      );
    }
  });
});
