/**
 * Webhook signatures. `Edgecron-Signature: t=<unix s>,v1=<hex>,v2=<hex>`:
 * - `v2` (preferred): HMAC-SHA256 of the canonical string of `signatureBaseV2()`, which
 *   covers the method, the URL, the job, slot and attempt headers, the timestamp and a
 *   SHA-256 of the body, so a signature cannot be replayed against another URL or job;
 * - `v1` (legacy, sent for one release): HMAC-SHA256 of `"<t>.<body>"`.
 * Web Crypto only, so senders and receivers run on every runtime.
 */
import { parseDuration } from "../core/duration.ts";
import { SchedulerError } from "../core/errors.ts";
import { constantTimeEqual, hmacHex, sha256Hex } from "../core/crypto.ts";

export { constantTimeEqual, hmacHex, secretsEqual } from "../core/crypto.ts";
export { createDeduper, type Deduper, type DeduperOptions, deliveryKey } from "./dedupe.ts";

/** The header carrying the signature. */
export const SIGNATURE_HEADER = "Edgecron-Signature";

/** What a v2 signature covers besides the body and timestamp. */
export interface SignedDelivery {
  /** Upper-case HTTP method. */
  method: string;
  /** The absolute URL the request is sent to, as `new URL(url).href` writes it. */
  url: string;
  /** `Edgecron-Job`. */
  job: string;
  /** `Edgecron-Slot` (ISO-8601, e.g. `2026-11-30T12:00:00.000Z`). */
  slot: string;
  /** `Edgecron-Attempt` (decimal). */
  attempt: string;
  body: string;
}

/**
 * The v2 canonical string: eight lines joined by `\n` (no trailing newline):
 * `edgecron-v2`, `<t>`, `<METHOD>`, `<url href>`, `<job>`, `<slot>`, `<attempt>`,
 * `<hex SHA-256 of the body>`.
 *
 * @example await signatureBaseV2(1764504000, { method: "POST", url: "https://x/h", job: "a", slot: "2026-11-30T12:00:00.000Z", attempt: "1", body: "" })
 */
export async function signatureBaseV2(timestampSec: number, d: SignedDelivery): Promise<string> {
  return [
    "edgecron-v2",
    String(timestampSec),
    d.method.toUpperCase(),
    new URL(d.url).href,
    d.job,
    d.slot,
    d.attempt,
    await sha256Hex(d.body),
  ].join("\n");
}

function checkSigning(secret: string, timestampSec: number): void {
  if (typeof secret !== "string" || secret.length === 0) {
    throw new SchedulerError("invalid-spec", "webhookSecret: must be a non-empty string");
  }
  if (!Number.isSafeInteger(timestampSec) || timestampSec < 0) {
    throw new SchedulerError(
      "invalid-spec",
      `signature timestamp: expected whole unix seconds, got ${String(timestampSec)}`,
    );
  }
}

/**
 * The legacy v1 header value for `body` sent at `timestampSec`: `t=<t>,v1=<hex>`.
 *
 * @throws {SchedulerError} `invalid-spec` when the secret is empty or the timestamp not an integer.
 * @example
 * ```ts
 * import { signPayload } from "edgecron/webhook";
 *
 * await signPayload("s3cret", '{"a":1}', 1764504000); // "t=1764504000,v1=<64 hex>"
 * ```
 */
export async function signPayload(secret: string, body: string, timestampSec: number): Promise<string> {
  checkSigning(secret, timestampSec);
  return `t=${timestampSec},v1=${await hmacHex(secret, `${timestampSec}.${body}`)}`;
}

/**
 * The header value edgecron sends: `t=<t>,v1=<hex>,v2=<hex>` (v1 kept for one release).
 *
 * @throws {SchedulerError} as `signPayload`.
 * @example
 * ```ts
 * import { signDelivery } from "edgecron/webhook";
 *
 * const body = JSON.stringify({ hello: "world" });
 * const url = "https://example.com/hook";
 * const slot = "2026-11-30T12:00:00.000Z";
 * await signDelivery("s3cret", { method: "POST", url, job: "a", slot, attempt: "1", body }, 1764504000);
 * ```
 */
export async function signDelivery(secret: string, delivery: SignedDelivery, timestampSec: number): Promise<string> {
  const v1 = await signPayload(secret, delivery.body, timestampSec);
  return `${v1},v2=${await hmacHex(secret, await signatureBaseV2(timestampSec, delivery))}`;
}

/** What `verifySignature()` found. On success the body and the delivery's identity. */
export type VerifyResult =
  | {
    ok: true;
    body: string;
    timestamp: number;
    scheme: "v1" | "v2";
    job: string | null;
    slot: string | null;
    attempt: string | null;
  }
  | { ok: false; reason: "missing" | "malformed" | "stale" | "future" | "mismatch" | "v1-only" };

/** Options of `verifySignature()`. */
export interface VerifyOptions {
  /** How far the signed timestamp may lie from `now`, either way; default `"5m"`. */
  tolerance?: string | number;
  /** The receiver's clock, epoch ms; default `Date.now()`. */
  now?: number;
  /** The URL the sender targeted, when a proxy rewrote `request.url`; default `request.url`. */
  url?: string;
  /** Accept a header with only a v1 signature (senders older than v2); default false. */
  acceptV1?: boolean;
}

interface Parsed {
  t: number;
  v1: string[];
  v2: string[];
}

function parseHeader(value: string): Parsed | undefined {
  let t: number | undefined;
  const parsed: Parsed = { t: 0, v1: [], v2: [] };
  for (const part of value.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) return undefined;
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === "t") {
      if (!/^\d{1,15}$/.test(val) || t !== undefined) return undefined;
      t = Number(val);
    } else if (key === "v1" || key === "v2") {
      if (!/^[0-9a-f]{64}$/.test(val)) return undefined;
      parsed[key].push(val);
    }
    // Other keys (future schemes) are ignored so receivers keep working across upgrades.
  }
  if (t === undefined || parsed.v1.length + parsed.v2.length === 0) return undefined;
  return { ...parsed, t };
}

async function anyMatch(secrets: readonly string[], presented: readonly string[], message: string): Promise<boolean> {
  const encoder = new TextEncoder();
  let match = false;
  for (const s of secrets) {
    const expected = encoder.encode(await hmacHex(s, message));
    // Check every pair without an early exit so timing says nothing about which matched.
    for (const p of presented) match = constantTimeEqual(encoder.encode(p), expected) || match;
  }
  return match;
}

/**
 * Verifies an incoming webhook delivery. The `Edgecron-Signature` timestamp must lie
 * within `tolerance` of `now`; then, when the header has a `v2`, it must match the
 * request's method, URL, `Edgecron-Job`, `-Slot`, `-Attempt` headers and body (v1 is
 * ignored); a header with only `v1` is refused as `v1-only` unless `acceptV1` is set.
 * Comparisons are constant-time; `secret` may be a list during a key rotation. Reads a
 * clone of the request, so the caller can still read the body.
 *
 * Receivers should dedupe on `(job, slot, attempt)` (see `createDeduper`).
 *
 * @throws {SchedulerError} `invalid-spec` when `secret` is empty or `tolerance` is not a duration.
 * @example
 * ```ts
 * import { verifySignature } from "edgecron/webhook";
 *
 * export async function receive(request: Request, env: { EDGECRON_SECRET: string }): Promise<Response> {
 *   const result = await verifySignature(request, env.EDGECRON_SECRET);
 *   if (!result.ok) return new Response(result.reason, { status: 401 });
 *   return new Response("ok");
 * }
 * ```
 */
export async function verifySignature(
  request: Request,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  const secrets = typeof secret === "string" ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== "string" || s.length === 0)) {
    throw new SchedulerError("invalid-spec", "secret: must be a non-empty string");
  }
  const tolerance = parseDuration(options.tolerance ?? "5m", { code: "invalid-spec", field: "tolerance" });
  const now = options.now ?? Date.now();
  const header = request.headers.get(SIGNATURE_HEADER);
  if (header === null) return { ok: false, reason: "missing" };
  const parsed = parseHeader(header);
  if (parsed === undefined) return { ok: false, reason: "malformed" };
  const skew = now - parsed.t * 1000;
  if (skew > tolerance) return { ok: false, reason: "stale" };
  if (-skew > tolerance) return { ok: false, reason: "future" };
  const body = await request.clone().text();
  const job = request.headers.get("Edgecron-Job");
  const slot = request.headers.get("Edgecron-Slot");
  const attempt = request.headers.get("Edgecron-Attempt");
  const identity = { job, slot, attempt };
  if (parsed.v2.length > 0) {
    if (job === null || slot === null || attempt === null) return { ok: false, reason: "malformed" };
    const url = options.url ?? request.url;
    const base = await signatureBaseV2(parsed.t, { method: request.method, url, job, slot, attempt, body });
    const ok = await anyMatch(secrets, parsed.v2, base);
    return ok ? { ok: true, body, timestamp: parsed.t, scheme: "v2", ...identity } : { ok: false, reason: "mismatch" };
  }
  if (options.acceptV1 !== true) return { ok: false, reason: "v1-only" };
  const ok = await anyMatch(secrets, parsed.v1, `${parsed.t}.${body}`);
  return ok ? { ok: true, body, timestamp: parsed.t, scheme: "v1", ...identity } : { ok: false, reason: "mismatch" };
}
