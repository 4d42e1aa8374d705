import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { constantTimeEqual, secretsEqual, signPayload, verifySignature } from "../../src/engine/signature.ts";
import { SchedulerError } from "../../src/core/errors.ts";

const SECRET = "whsec_test_0123456789";
const T = 1_764_504_000; // 2025-11-30T12:00:00Z
const NOW = T * 1000;

async function signed(body: string, opts: { t?: number; secret?: string; header?: string } = {}): Promise<Request> {
  const header = opts.header ?? await signPayload(opts.secret ?? SECRET, body, opts.t ?? T);
  return new Request("http://127.0.0.1/hook", { method: "POST", body, headers: { "Edgecron-Signature": header } });
}

describe("signPayload", () => {
  it("signs '<t>.<body>' with HMAC-SHA256 as an independent implementation does", async () => {
    const body = '{"job":"nightly"}';
    const expected = createHmac("sha256", SECRET).update(`${T}.${body}`).digest("hex");
    assert.equal(await signPayload(SECRET, body, T), `t=${T},v1=${expected}`);
  });

  it("refuses an empty secret and a fractional timestamp", async () => {
    await assert.rejects(signPayload("", "x", T), SchedulerError);
    await assert.rejects(signPayload(SECRET, "x", 1.5), /invalid-spec: signature timestamp/);
  });
});

describe("verifySignature", () => {
  it("accepts a fresh, correct signature and returns the body", async () => {
    const result = await verifySignature(await signed("hello"), SECRET, { now: NOW + 30_000 });
    assert.deepEqual(result, { ok: true, body: "hello", timestamp: T });
  });

  it("leaves the request body readable for the caller", async () => {
    const req = await signed("payload");
    await verifySignature(req, SECRET, { now: NOW });
    assert.equal(await req.text(), "payload");
  });

  it("refuses a tampered body", async () => {
    const header = await signPayload(SECRET, "amount=1", T);
    const result = await verifySignature(await signed("amount=1000", { header }), SECRET, { now: NOW });
    assert.deepEqual(result, { ok: false, reason: "mismatch" });
  });

  it("refuses the wrong secret", async () => {
    const result = await verifySignature(await signed("x", { secret: "other-secret" }), SECRET, { now: NOW });
    assert.deepEqual(result, { ok: false, reason: "mismatch" });
  });

  it("refuses a timestamp older than the tolerance (replay)", async () => {
    const req = await signed("x", { t: T - 301 });
    assert.deepEqual(await verifySignature(req, SECRET, { now: NOW }), { ok: false, reason: "stale" });
    const edge = await signed("x", { t: T - 300 });
    assert.equal((await verifySignature(edge, SECRET, { now: NOW })).ok, true);
  });

  it("refuses a timestamp further in the future than the tolerance", async () => {
    const req = await signed("x", { t: T + 61 });
    assert.deepEqual(await verifySignature(req, SECRET, { now: NOW, tolerance: "1m" }), { ok: false, reason: "future" });
  });

  it("honours a custom tolerance", async () => {
    const req = await signed("x", { t: T - 3600 });
    assert.equal((await verifySignature(req, SECRET, { now: NOW, tolerance: "2h" })).ok, true);
    assert.equal((await verifySignature(await signed("x", { t: T - 3600 }), SECRET, { now: NOW, tolerance: 1000 })).ok, false);
  });

  it("reports a missing or malformed header", async () => {
    const bare = new Request("http://h/", { method: "POST", body: "x" });
    assert.deepEqual(await verifySignature(bare, SECRET, { now: NOW }), { ok: false, reason: "missing" });
    for (const header of ["", "t=abc,v1=00", `t=${T}`, `v1=${"a".repeat(64)}`, `t=${T},v1=XYZ`, `t=${T},t=${T},v1=${"a".repeat(64)}`, "garbage"]) {
      const result = await verifySignature(await signed("x", { header }), SECRET, { now: NOW });
      assert.deepEqual(result, { ok: false, reason: "malformed" }, header);
    }
  });

  it("accepts any of several secrets during a rotation", async () => {
    const req = await signed("x", { secret: "new-secret" });
    assert.equal((await verifySignature(req, ["old-secret", "new-secret"], { now: NOW })).ok, true);
  });

  it("accepts one matching v1 among several", async () => {
    const good = (await signPayload(SECRET, "x", T)).split(",")[1];
    const req = await signed("x", { header: `t=${T},v1=${"0".repeat(64)},${good}` });
    assert.equal((await verifySignature(req, SECRET, { now: NOW })).ok, true);
  });

  it("refuses an empty secret and a bad tolerance with a SchedulerError", async () => {
    await assert.rejects(verifySignature(await signed("x"), "", { now: NOW }), /invalid-spec: secret/);
    await assert.rejects(verifySignature(await signed("x"), SECRET, { now: NOW, tolerance: "soon" }), /invalid-spec: tolerance: .*"soon"/);
  });
});

describe("constant-time helpers", () => {
  it("constantTimeEqual compares bytes", () => {
    assert.equal(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])), true);
    assert.equal(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3])), false);
    assert.equal(constantTimeEqual(new Uint8Array([1]), new Uint8Array([1, 2])), false);
  });

  it("secretsEqual compares strings of any length", async () => {
    assert.equal(await secretsEqual("token-abc", "token-abc"), true);
    assert.equal(await secretsEqual("token-abd", "token-abc"), false);
    assert.equal(await secretsEqual("", "token-abc"), false);
    assert.equal(await secretsEqual("token-abc-longer", "token-abc"), false);
  });
});
