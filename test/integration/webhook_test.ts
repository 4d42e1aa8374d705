// Webhook delivery against a real HTTP receiver on 127.0.0.1: data-defined jobs
// created through the router, run by a real scheduler with the real fetch.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createManualClock, createScheduler, type ManualClock } from "../../src/engine/mod.ts";
import type { Scheduler } from "../../src/engine/types.ts";
import { createMemoryStore } from "../../src/store/mod.ts";
import { edgecronRouter } from "../../src/http/mod.ts";
import { verifySignature } from "../../src/webhook/mod.ts";
import type { Hono } from "hono";

const SECRET = "whsec_integration_secret";
const TOKEN = "integration-token-0123456789";
const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

interface Received {
  request: Request;
  body: string;
  path: string;
}

/** How the receiver answers each path: a status, or "hang" (never answers). */
const behaviour = new Map<string, (count: number) => number | "hang">();
const received: Received[] = [];
const waiters: (() => void)[] = [];
const hanging = new Set<ServerResponse>();
let server: Server;
let base = "";

function toRequest(req: IncomingMessage, body: string): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  return new Request(`${base}${req.url}`, {
    method: req.method ?? "POST",
    headers,
    body: req.method === "GET" ? null : body,
  });
}

before(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = (req.url ?? "/").split("?")[0]!;
      received.push({ request: toRequest(req, body), body, path });
      const count = received.filter((r) => r.path === path).length;
      const answer = behaviour.get(path)?.(count) ?? 200;
      for (const w of waiters.splice(0)) w();
      if (answer === "hang") return void hanging.add(res);
      res.writeHead(answer, { "content-type": "text/plain" }).end(
        answer === 200 ? "ok" : `receiver failed with ${answer}`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Resolves once the receiver has seen `n` requests on `path`. */
async function receivedOn(path: string, n: number): Promise<Received[]> {
  for (;;) {
    const got = received.filter((r) => r.path === path);
    if (got.length >= n) return got;
    await new Promise<void>((resolve) => waiters.push(resolve));
  }
}

function world(): { clock: ManualClock; scheduler: Scheduler; app: Hono } {
  // 1 ms after T0: jobs defined now start with the next minute (a job defined at T0 itself would run T0).
  const clock = createManualClock(T0 + 1);
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  // The receiver is on loopback, an internal target: allowed on purpose, with a short error body kept.
  const webhooks = { allow: [new URL(base).origin], errorBodyBytes: 64 };
  const scheduler = createScheduler({
    clock,
    store: createMemoryStore(),
    node: "it-node",
    webhookSecret: SECRET,
    logger: quiet,
    webhooks,
  });
  return { clock, scheduler, app: edgecronRouter(scheduler, { token: TOKEN, now: clock.now }) };
}

async function define(app: Hono, spec: Record<string, unknown>): Promise<void> {
  const res = await app.request("/jobs", {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(spec),
  });
  assert.equal(res.status, 201, await res.clone().text());
}

describe("webhook delivery to a real receiver", () => {
  it("signs each delivery so verifySignature() accepts it, and refuses a tampered body or an old timestamp", async () => {
    const { clock, scheduler, app } = world();
    await define(app, {
      name: "ping",
      schedule: "* * * * *",
      target: { url: `${base}/ping`, headers: { "X-Team": "ops" } },
      payload: { hello: "world" },
    });
    await scheduler.tick();
    await clock.advance(60_000);
    const report = await scheduler.tick();
    assert.equal(report.jobs["ping"]?.outcomes[T0 + 60_000], "ok");
    const [got] = await receivedOn("/ping", 1);
    assert.equal(got!.request.headers.get("edgecron-job"), "ping");
    assert.equal(got!.request.headers.get("edgecron-slot"), "2026-11-30T12:01:00.000Z");
    assert.equal(got!.request.headers.get("edgecron-attempt"), "1");
    assert.equal(got!.request.headers.get("x-team"), "ops");
    assert.deepEqual(JSON.parse(got!.body), {
      job: "ping",
      slot: "2026-11-30T12:01:00.000Z",
      attempt: 1,
      payload: { hello: "world" },
    });

    const verified = await verifySignature(got!.request, SECRET, { now: clock.now() + 2_000 });
    assert.deepEqual(verified, {
      ok: true,
      body: got!.body,
      timestamp: Math.floor(clock.now() / 1000),
      scheme: "v2",
      job: "ping",
      slot: "2026-11-30T12:01:00.000Z",
      attempt: "1",
    });

    const tampered = new Request(got!.request.url, {
      method: "POST",
      headers: got!.request.headers,
      body: got!.body.replace("world", "w0rld"),
    });
    assert.deepEqual(await verifySignature(tampered, SECRET, { now: clock.now() }), { ok: false, reason: "mismatch" });
    assert.deepEqual(await verifySignature(got!.request, SECRET, { now: clock.now() + 6 * 60_000 }), {
      ok: false,
      reason: "stale",
    });
    assert.deepEqual(await verifySignature(got!.request, "another-secret", { now: clock.now() }), {
      ok: false,
      reason: "mismatch",
    });
  });

  it("retries after a 500 and records ok on the second attempt", async () => {
    const { clock, scheduler, app } = world();
    behaviour.set("/flaky", (count) => (count === 1 ? 500 : 200));
    await define(app, {
      name: "flaky",
      schedule: "* * * * *",
      target: { url: `${base}/flaky` },
      retries: { attempts: 3, backoff: "5s" },
    });
    await scheduler.tick();
    await clock.advance(60_000);
    const tick = scheduler.tick();
    await receivedOn("/flaky", 1);
    await clock.advance(5_000); // the first backoff
    const report = await tick;
    const deliveries = await receivedOn("/flaky", 2);
    assert.deepEqual(deliveries.map((d) => d.request.headers.get("edgecron-attempt")), ["1", "2"]);
    assert.equal(report.jobs["flaky"]?.outcomes[T0 + 60_000], "ok");
    const [run] = await scheduler.runs("flaky");
    assert.equal(run!.attempt, 2);
  });

  it("records error with the receiver's status when retries run out", async () => {
    const { clock, scheduler, app } = world();
    behaviour.set("/down", () => 503);
    await define(app, { name: "down", schedule: "* * * * *", target: { url: `${base}/down?key=secret-in-query` } });
    await scheduler.tick();
    await clock.advance(60_000);
    const report = await scheduler.tick();
    assert.equal(report.jobs["down"]?.outcomes[T0 + 60_000], "error");
    const [run] = await scheduler.runs("down");
    assert.match(
      run!.error ?? "",
      /^webhook: POST http:\/\/127\.0\.0\.1:\d+\/down answered 503 Service Unavailable: "receiver failed with 503"/,
    );
    assert.ok(!(run!.error ?? "").includes("secret-in-query"));
    assert.ok(!(run!.error ?? "").includes(SECRET));
  });

  it("turns a receiver that hangs into a timeout", async () => {
    const { clock, scheduler, app } = world();
    behaviour.set("/hang", () => "hang");
    await define(app, { name: "hang", schedule: "* * * * *", target: { url: `${base}/hang` }, timeout: "30s" });
    await scheduler.tick();
    await clock.advance(60_000);
    const tick = scheduler.tick();
    await receivedOn("/hang", 1);
    await clock.advance(30_000);
    const report = await tick;
    assert.equal(report.jobs["hang"]?.outcomes[T0 + 60_000], "timeout");
    const [run] = await scheduler.runs("hang");
    assert.equal(run!.status, "timeout");
    assert.match(run!.error ?? "", /timed out/);
  });
});
