// SSRF: internal webhook targets are refused at define time (by literal) and at delivery
// time (after resolving), unless allowed on purpose. Real loopback HTTP servers play the
// "internal" targets.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryStore } from "../../src/store/memory/mod.ts";
import type { RunContext } from "../../src/engine/types.ts";
import { deliverWebhook } from "../../src/webhook/deliver.ts";
import { checkDelivery, resolveWebhookPolicy } from "../../src/webhook/policy.ts";
import { MIN, setup, T0, tickAt } from "../engine/_helpers.ts";

const SECRET = "whsec_policy_tests";
const HOOK = { schedule: "*/5 * * * *" } as const;

interface Internal {
  origin: string;
  hits: string[];
  server: Server;
}

function listen(answer: { status: number; body: string }): Promise<Internal> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.body);
  });
  return new Promise((resolve) => {
    server.listen(
      0,
      "127.0.0.1",
      () => resolve({ origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, server }),
    );
  });
}

let ok: Internal;
let admin: Internal;
before(async () => {
  ok = await listen({ status: 200, body: "fine" });
  admin = await listen({ status: 500, body: "error; config: db_password=hunter2" });
});
after(() => {
  ok.server.close();
  admin.server.close();
});

describe("webhook targets: define time", () => {
  const refused = [
    "http://127.0.0.1/x",
    "http://localhost:8080/x",
    "http://api.localhost/x",
    "http://[::1]/x",
    "http://0.0.0.0/x",
    "http://[::]/x",
    "http://2130706433/x",
    "http://0x7f000001/x",
    "http://0177.0.0.1/x",
    "http://127.1/x",
    "http://[::ffff:127.0.0.1]/x",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fe80::1]/x",
    "http://10.0.0.5/x",
    "http://172.16.0.1/x",
    "http://192.168.1.1/x",
    "http://100.64.0.1/x",
    "http://[fd00::1]/x",
    "http://[fc00::1]/x",
  ];
  for (const url of refused) {
    it(`refuses ${url} with invalid-spec naming target.url`, async () => {
      const { scheduler } = setup({ webhookSecret: SECRET });
      await assert.rejects(
        scheduler.define("hook", { ...HOOK, target: { url } }),
        (e: Error & { code?: string; path?: string }) => {
          assert.equal(e.code, "invalid-spec");
          assert.equal(e.path, "jobs.hook.target.url");
          assert.match(e.message, /address; internal targets are refused unless webhooks\.allow/);
          return true;
        },
      );
    });
  }

  it("refuses credentials in the URL (use headers)", async () => {
    const { scheduler } = setup({ webhookSecret: SECRET });
    await assert.rejects(
      scheduler.define("hook", { ...HOOK, target: { url: "https://user:pass@partner.example/x" } }),
      /invalid-spec: jobs\.hook\.target\.url: credentials in the URL are refused/,
    );
  });

  it("accepts public hosts, and internal ones listed in webhooks.allow (origins or a predicate)", async () => {
    const { scheduler } = setup({ webhookSecret: SECRET, webhooks: { allow: [ok.origin] } });
    await scheduler.define("public", { ...HOOK, target: { url: "https://partner.example/x" } });
    await scheduler.define("internal", { ...HOOK, target: { url: `${ok.origin}/hook` } });
    await assert.rejects(
      scheduler.define("other-port", { ...HOOK, target: { url: "http://127.0.0.1:1/hook" } }),
      /loopback/,
    );
    const fn = setup({ webhookSecret: SECRET, webhooks: { allow: (url) => url.hostname === "10.1.2.3" } });
    await fn.scheduler.define("ten", { ...HOOK, target: { url: "http://10.1.2.3/hook" } });
    await assert.rejects(
      fn.scheduler.define("eleven", { ...HOOK, target: { url: "http://10.1.2.4/hook" } }),
      /private/,
    );
  });

  it("refuses a malformed allow list when the scheduler is created", () => {
    assert.throws(() => setup({ webhooks: { allow: ["ftp://x"] } }), /invalid-spec: webhooks\.allow/);
    assert.throws(() => setup({ webhooks: { errorBodyBytes: -1 } }), /invalid-spec: webhooks\.errorBodyBytes/);
  });
});

describe("webhook targets: delivery time", () => {
  it("delivers to an allowed internal server for real", async () => {
    const s = setup({ webhookSecret: SECRET, webhooks: { allow: [ok.origin] } });
    await s.scheduler.define("hook", { ...HOOK, target: { url: `${ok.origin}/in` } });
    const report = await tickAt(s, T0 + 5 * MIN);
    assert.equal(report.jobs["hook"]?.outcomes[T0 + 5 * MIN], "ok");
    assert.deepEqual(ok.hits.splice(0), ["POST /in"]);
  });

  it("a node without the allowance refuses a stored internal target and sends nothing", async () => {
    const store = createMemoryStore();
    const writer = setup({ store, webhookSecret: SECRET, webhooks: { allow: [ok.origin] } });
    await writer.scheduler.define("hook", { ...HOOK, target: { url: `${ok.origin}/in` } });
    const strict = setup({ store, webhookSecret: SECRET, node: "strict" });
    await tickAt(strict, T0 + 5 * MIN);
    const [run] = await strict.scheduler.runs("hook");
    assert.equal(run?.status, "error");
    assert.match(run?.error ?? "", /refused: "127\.0\.0\.1" is a loopback address/);
    assert.deepEqual(ok.hits.splice(0), []);
  });

  it("refuses a public-looking host that resolves to an internal address", async () => {
    const asked: string[] = [];
    const resolve = (host: string): Promise<string[]> => {
      asked.push(host);
      return Promise.resolve(
        host === "rebind.example" ? ["93.184.216.34", "::ffff:169.254.169.254"] : ["93.184.216.34"],
      );
    };
    const sent: string[] = [];
    const fetch = ((input: RequestInfo | URL) => {
      sent.push(String(input));
      return Promise.resolve(new Response("ok"));
    }) as typeof globalThis.fetch;
    const s = setup({ webhookSecret: SECRET, fetch, webhooks: { resolve } });
    await s.scheduler.define("evil", { ...HOOK, target: { url: "https://rebind.example/x" } });
    await s.scheduler.define("fine", { ...HOOK, target: { url: "https://partner.example/x" } });
    const report = await tickAt(s, T0 + 5 * MIN);
    assert.equal(report.jobs["evil"]?.outcomes[T0 + 5 * MIN], "error");
    assert.equal(report.jobs["fine"]?.outcomes[T0 + 5 * MIN], "ok");
    assert.deepEqual(sent, ["https://partner.example/x"]);
    assert.deepEqual(asked.sort(), ["partner.example", "rebind.example"]);
    const [run] = await s.scheduler.runs("evil");
    assert.match(run?.error ?? "", /"rebind\.example" resolves to "::ffff:169\.254\.169\.254", a link-local address/);
  });

  it("a resolver that gives no address cannot resolve the host: nothing is sent, pinned or not", async () => {
    // An empty list passed the check, and fetch then looked the name up again, unchecked.
    const empty = resolveWebhookPolicy({ resolve: async () => [] });
    await assert.rejects(
      checkDelivery(new URL("https://empty.example/x"), empty, "POST https://empty.example/x"),
      {
        message:
          'webhook: POST https://empty.example/x failed: cannot resolve "empty.example" (the resolver gave no address)',
      },
    );
    const notAList = resolveWebhookPolicy({ resolve: (async () => undefined) as unknown as () => Promise<string[]> });
    await assert.rejects(checkDelivery(new URL("https://empty.example/x"), notAList, "POST"), /cannot resolve/);
    const sent: string[] = [];
    const fetch =
      (async (input: RequestInfo | URL) => (sent.push(String(input)), new Response("ok"))) as typeof globalThis.fetch;
    const pinned = resolveWebhookPolicy({
      resolve: async () => [],
      pinnedFetch: async (address) => (sent.push(address), new Response("ok")),
    });
    const slot = T0 + 5 * MIN;
    const ctx = {
      job: "hook",
      slot,
      attempt: 1,
      signal: new AbortController().signal,
      lease: { node: "n", attempt: 1, until: slot + 15_000, held: true },
      payload: null,
      log: { debug() {}, info() {}, warn() {}, error() {} },
    } satisfies RunContext;
    for (const policy of [empty, pinned]) {
      await assert.rejects(
        deliverWebhook({ url: "https://empty.example/x" }, ctx, { fetch, secret: SECRET, nowMs: slot, policy }),
        /cannot resolve "empty\.example"/,
      );
    }
    assert.deepEqual(sent, []);
  });

  it("keeps only the status line of a failed answer: an internal page's secrets never reach the run history", async () => {
    const s = setup({ webhookSecret: SECRET, webhooks: { allow: [admin.origin] } });
    await s.scheduler.define("hook", { ...HOOK, target: { url: `${admin.origin}/admin` } });
    await tickAt(s, T0 + 5 * MIN);
    const [run] = await s.scheduler.runs("hook");
    assert.equal(run?.error, `webhook: POST ${admin.origin}/admin answered 500 Internal Server Error`);
    assert.equal(admin.hits.length, 1);
  });
});
