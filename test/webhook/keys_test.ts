// Signing-key rotation: webhookSecret as a list signs with the first key; receivers
// holding either key during the switch accept the delivery.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { verifySignature } from "../../src/webhook/signature.ts";
import { MIN, setup, T0, tickAt } from "../engine/_helpers.ts";

const hook = { schedule: "*/5 * * * *", target: { url: "https://example.test/hook", method: "POST" as const } };

async function deliveredWith(webhookSecret: string | string[]): Promise<Request> {
  const calls: Request[] = [];
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    calls.push(new Request(input, init));
    return Promise.resolve(new Response("ok"));
  }) as typeof globalThis.fetch;
  const s = setup({ fetch, webhookSecret });
  await s.scheduler.define("hook", hook);
  await tickAt(s, T0 + 5 * MIN);
  assert.equal(calls.length, 1);
  return calls[0]!;
}

describe("webhook key rotation", () => {
  it("a list signs with its first key only", async () => {
    const request = await deliveredWith(["key-new", "key-old"]);
    const now = T0 + 5 * MIN;
    assert.equal((await verifySignature(request, "key-new", { now })).ok, true);
    assert.deepEqual(await verifySignature(request, "key-old", { now }), { ok: false, reason: "mismatch" });
    // The receiver's side of the rotation: it holds both keys while senders switch.
    assert.equal((await verifySignature(request, ["key-old", "key-new"], { now })).ok, true);
  });

  it("a single string still signs as before", async () => {
    const request = await deliveredWith("only-key");
    assert.equal((await verifySignature(request, ["other", "only-key"], { now: T0 + 5 * MIN })).ok, true);
  });

  it("an empty list or an empty key is refused at creation, naming the field and never the key", () => {
    for (
      const [secret, field] of [[[], "webhookSecret"], [["good", ""], "webhookSecret[1]"], [
        [7 as unknown as string],
        "webhookSecret[0]",
      ]] as const
    ) {
      assert.throws(
        () => setup({ webhookSecret: secret as unknown as string[] }),
        (e: unknown) =>
          e instanceof SchedulerError && e.code === "invalid-spec" && e.path === field && !e.message.includes("good"),
      );
    }
  });
});
