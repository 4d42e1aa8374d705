// DNS rebinding: with `webhooks.pinnedFetch`, a delivery goes to the address the check
// passed, never to a second resolution of the name (which a rebinding DNS server would
// answer with an internal address).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { deliverWebhook } from "../../src/webhook/deliver.ts";
import { resolveWebhookPolicy } from "../../src/webhook/policy.ts";
import type { Logger, RunContext } from "../../src/engine/types.ts";

const SECRET = "whsec_unit_secret_value";
const SLOT = Date.UTC(2026, 10, 30, 12, 0, 0);
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const ctx: RunContext = {
  job: "hook",
  slot: SLOT,
  attempt: 1,
  signal: new AbortController().signal,
  lease: { node: "n", attempt: 1, until: SLOT + 15_000, held: true },
  payload: null,
  log: quiet,
};

describe("webhooks.pinnedFetch", () => {
  it("sends to the checked address; a rebinding resolver's second answer is never used", async () => {
    const answers = [["93.184.216.34"], ["127.0.0.1"]]; // public at check time, loopback afterwards
    let resolutions = 0;
    const sent: { address: string; url: string; method: string | undefined }[] = [];
    const policy = resolveWebhookPolicy({
      resolve: async () => answers[Math.min(resolutions++, 1)]!,
      pinnedFetch: async (
        address,
        url,
        init,
      ) => (sent.push({ address, url: url.href, method: init.method }), new Response("ok")),
    });
    const fetch =
      (async () => assert.fail("the scheduler's fetch would resolve the name again")) as typeof globalThis.fetch;
    await deliverWebhook({ url: "https://rebind.example/hook" }, ctx, { fetch, secret: SECRET, nowMs: SLOT, policy });
    assert.deepEqual(sent, [{ address: "93.184.216.34", url: "https://rebind.example/hook", method: "POST" }]);
    assert.equal(resolutions, 1);
  });

  it("an IP literal or an allowed origin goes through the scheduler's fetch", async () => {
    let pinned = 0;
    let fetched = 0;
    const policy = resolveWebhookPolicy({
      allow: ["http://10.0.0.5:8080"],
      resolve: async () => ["93.184.216.34"],
      pinnedFetch: async () => (pinned++, new Response("ok")),
    });
    const fetch = (async () => (fetched++, new Response("ok"))) as typeof globalThis.fetch;
    await deliverWebhook({ url: "https://93.184.216.34/x" }, ctx, { fetch, secret: SECRET, nowMs: SLOT, policy });
    await deliverWebhook({ url: "http://10.0.0.5:8080/x" }, ctx, { fetch, secret: SECRET, nowMs: SLOT, policy });
    assert.deepEqual({ pinned, fetched }, { pinned: 0, fetched: 2 });
  });

  it("is refused without resolve, or when not a function, naming the field", () => {
    const refused = (options: object, text: RegExp): void =>
      assert.throws(
        () => resolveWebhookPolicy(options),
        (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && text.test(e.message),
      );
    refused(
      { pinnedFetch: async () => new Response("") },
      /^invalid-spec: webhooks\.pinnedFetch: needs webhooks\.resolve/,
    );
    refused(
      { resolve: async () => [], pinnedFetch: "yes" },
      /^invalid-spec: webhooks\.pinnedFetch: expected a function/,
    );
  });
});
