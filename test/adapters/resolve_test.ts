// The adapters' host resolver feeds the webhook SSRF check at delivery time.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { classifyHost } from "../../src/core/address.ts";
import { resolveHost } from "../../adapters/node/resolve.ts";

describe("resolveHost (node:dns, used by the Node and Bun adapters)", () => {
  it("resolves localhost to loopback addresses only, and IP literals to themselves", async () => {
    const addresses = await resolveHost("localhost");
    assert.ok(addresses.length > 0);
    for (const address of addresses) assert.equal(classifyHost(address), "loopback", address);
    assert.deepEqual(await resolveHost("[::1]"), ["::1"]);
    assert.deepEqual(await resolveHost("127.0.0.1"), ["127.0.0.1"]);
  });
});
