import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import {
  constantTimeEqual,
  createDeduper,
  deliveryKey,
  secretsEqual,
  signDelivery,
  signPayload,
  verifySignature,
} from "../../src/webhook/signature.ts";
import { SchedulerError } from "../../src/core/errors.ts";

const SECRET = "whsec_test_0123456789";
const T = 1_764_504_000; // 2025-11-30T12:00:00Z
const NOW = T * 1000;
const URL_A = "https://a.example/hooks/a";
const ID = { job: "job-a", slot: "2025-11-30T12:00:00.000Z", attempt: "1" };

interface Opts {
  t?: number;
  secret?: string;
  header?: string;
  url?: string;
  method?: string;
  id?: Partial<typeof ID>;
}

/** A delivery as edgecron sends it: v1 and v2 side by side. */
async function signed(body: string, opts: Opts = {}): Promise<Request> {
  const url = opts.url ?? URL_A;
  const method = opts.method ?? "POST";
  const id = { ...ID, ...opts.id };
  const header = opts.header ?? await signDelivery(opts.secret ?? SECRET, { method, url, ...id, body }, opts.t ?? T);
  const headers = {
    "Edgecron-Signature": header,
    "Edgecron-Job": id.job,
    "Edgecron-Slot": id.slot,
    "Edgecron-Attempt": id.attempt,
  };
  return new Request(url, { method, body: method === "GET" ? null : body, headers });
}

/** Sends the headers of `from` to `url` (a replay). */
function replay(from: Request, url: string, body: string | null = null): Request {
  return new Request(url, { method: from.method, headers: from.headers, body });
}

describe("signDelivery (v2)", () => {
  it("signs the documented canonical string, as an independent implementation does", async () => {
    const body = '{"job":"job-a"}';
    const hash = createHash("sha256").update(body).digest("hex");
    const base = ["edgecron-v2", String(T), "POST", URL_A, ID.job, ID.slot, ID.attempt, hash].join("\n");
    const v2 = createHmac("sha256", SECRET).update(base).digest("hex");
    const v1 = createHmac("sha256", SECRET).update(`${T}.${body}`).digest("hex");
    assert.equal(
      await signDelivery(SECRET, { method: "POST", url: URL_A, ...ID, body }, T),
      `t=${T},v1=${v1},v2=${v2}`,
    );
  });

  it("refuses an empty secret and a fractional timestamp", async () => {
    await assert.rejects(signPayload("", "x", T), SchedulerError);
    await assert.rejects(signPayload(SECRET, "x", 1.5), /invalid-spec: signature timestamp/);
  });
});

describe("verifySignature", () => {
  it("accepts a fresh v2 delivery and returns the body and its identity", async () => {
    const result = await verifySignature(await signed("hello"), SECRET, { now: NOW + 30_000 });
    assert.deepEqual(result, { ok: true, body: "hello", timestamp: T, scheme: "v2", ...ID });
  });

  it("a GET delivery for job A no longer verifies at job B's URL (the v1 replay)", async () => {
    const a = await signed("", { method: "GET" });
    assert.equal((await verifySignature(a, SECRET, { now: NOW })).ok, true);
    const atB = replay(a, "https://b.example/hooks/b");
    assert.deepEqual(await verifySignature(atB, SECRET, { now: NOW }), { ok: false, reason: "mismatch" });
    // Nor with job B's name in the header, nor as another attempt or method.
    for (
      const [name, value] of [["Edgecron-Job", "job-b"], ["Edgecron-Attempt", "2"], [
        "Edgecron-Slot",
        "2025-11-30T12:05:00.000Z",
      ]] as const
    ) {
      const headers = new Headers(a.headers);
      headers.set(name, value);
      const forged = new Request(URL_A, { method: "GET", headers });
      assert.deepEqual(await verifySignature(forged, SECRET, { now: NOW }), { ok: false, reason: "mismatch" }, name);
    }
    const asPost = new Request(URL_A, { method: "POST", headers: a.headers, body: "" });
    assert.deepEqual(await verifySignature(asPost, SECRET, { now: NOW }), { ok: false, reason: "mismatch" });
  });

  it("refuses a header stripped down to v1 (a downgrade) unless acceptV1 is set", async () => {
    const full = await signed("", { method: "GET" });
    const v1Only = full.headers.get("Edgecron-Signature")!.replace(/,v2=[0-9a-f]+/, "");
    const headers = new Headers(full.headers);
    headers.set("Edgecron-Signature", v1Only);
    const atB = new Request("https://b.example/hooks/b", { headers });
    assert.deepEqual(await verifySignature(atB, SECRET, { now: NOW }), { ok: false, reason: "v1-only" });
    const legacy = await verifySignature(atB, SECRET, { now: NOW, acceptV1: true });
    assert.equal(legacy.ok && legacy.scheme, "v1");
  });

  it("takes the sender's URL from options.url behind a rewriting proxy", async () => {
    const sent = await signed("x");
    const internal = replay(sent, "http://10.0.0.7:8080/hooks/a", "x");
    assert.equal((await verifySignature(internal, SECRET, { now: NOW })).ok, false);
    assert.equal(
      (await verifySignature(replay(sent, "http://10.0.0.7:8080/hooks/a", "x"), SECRET, { now: NOW, url: URL_A })).ok,
      true,
    );
  });

  it("leaves the request body readable for the caller", async () => {
    const req = await signed("payload");
    await verifySignature(req, SECRET, { now: NOW });
    assert.equal(await req.text(), "payload");
  });

  it("refuses a tampered body and the wrong secret", async () => {
    const good = await signed("amount=1");
    assert.deepEqual(await verifySignature(replay(good, URL_A, "amount=1000"), SECRET, { now: NOW }), {
      ok: false,
      reason: "mismatch",
    });
    assert.deepEqual(await verifySignature(await signed("x", { secret: "other-secret" }), SECRET, { now: NOW }), {
      ok: false,
      reason: "mismatch",
    });
  });

  it("refuses timestamps outside the tolerance, either way", async () => {
    assert.deepEqual(await verifySignature(await signed("x", { t: T - 301 }), SECRET, { now: NOW }), {
      ok: false,
      reason: "stale",
    });
    assert.equal((await verifySignature(await signed("x", { t: T - 300 }), SECRET, { now: NOW })).ok, true);
    assert.deepEqual(await verifySignature(await signed("x", { t: T + 61 }), SECRET, { now: NOW, tolerance: "1m" }), {
      ok: false,
      reason: "future",
    });
    assert.equal(
      (await verifySignature(await signed("x", { t: T - 3600 }), SECRET, { now: NOW, tolerance: "2h" })).ok,
      true,
    );
  });

  it("reports a missing or malformed header, and a v2 without the Edgecron-* headers", async () => {
    const bare = new Request("http://h/", { method: "POST", body: "x" });
    assert.deepEqual(await verifySignature(bare, SECRET, { now: NOW }), { ok: false, reason: "missing" });
    for (
      const header of [
        "",
        "t=abc,v1=00",
        `t=${T}`,
        `v1=${"a".repeat(64)}`,
        `t=${T},v2=XYZ`,
        `t=${T},t=${T},v2=${"a".repeat(64)}`,
        "garbage",
      ]
    ) {
      assert.deepEqual(await verifySignature(await signed("x", { header }), SECRET, { now: NOW }), {
        ok: false,
        reason: "malformed",
      }, header);
    }
    const good = await signed("x");
    const noJob = new Request(URL_A, {
      method: "POST",
      body: "x",
      headers: { "Edgecron-Signature": good.headers.get("Edgecron-Signature")! },
    });
    assert.deepEqual(await verifySignature(noJob, SECRET, { now: NOW }), { ok: false, reason: "malformed" });
  });

  it("accepts any of several secrets during a rotation, and one matching v2 among several", async () => {
    assert.equal(
      (await verifySignature(await signed("x", { secret: "new-secret" }), ["old-secret", "new-secret"], { now: NOW }))
        .ok,
      true,
    );
    const header = (await signed("x")).headers.get("Edgecron-Signature")!.replace(",v2=", `,v2=${"0".repeat(64)},v2=`);
    assert.equal((await verifySignature(await signed("x", { header }), SECRET, { now: NOW })).ok, true);
  });

  it("refuses an empty secret and a bad tolerance with a SchedulerError", async () => {
    await assert.rejects(verifySignature(await signed("x"), "", { now: NOW }), /invalid-spec: secret/);
    await assert.rejects(
      verifySignature(await signed("x"), SECRET, { now: NOW, tolerance: "soon" }),
      /invalid-spec: tolerance: .*"soon"/,
    );
  });
});

describe("receiver dedupe", () => {
  it("deliveryKey is (job, slot, attempt), from a verified result or a request", async () => {
    const req = await signed("x");
    const result = await verifySignature(req, SECRET, { now: NOW });
    assert.ok(result.ok);
    assert.equal(deliveryKey(result), "job-a\n2025-11-30T12:00:00.000Z\n1");
    assert.equal(deliveryKey(req), deliveryKey(result));
    assert.throws(() => deliveryKey(new Request(URL_A)), /invalid-spec/);
  });

  it("createDeduper says first once per key within the ttl, and forgets the oldest beyond max", () => {
    let now = NOW;
    const dedupe = createDeduper({ ttl: "1m", max: 2, now: () => now });
    assert.equal(dedupe.first(ID), true);
    assert.equal(dedupe.first(ID), false);
    assert.equal(dedupe.first({ ...ID, attempt: "2" }), true, "a retry is a new attempt");
    now += 60_000;
    assert.equal(dedupe.first(ID), true, "expired after the ttl");
    assert.equal(dedupe.first("a"), true);
    assert.equal(dedupe.first("b"), true);
    assert.equal(dedupe.size, 2);
    assert.throws(() => createDeduper({ ttl: "soon" }), /invalid-spec/);
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
