/**
 * Webhook signatures: `Edgecron-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.
 * Web Crypto only, so senders and receivers run on every runtime.
 */
import { parseDuration } from "../core/duration.ts";
import { SchedulerError } from "../core/errors.ts";

/** The header carrying the signature. */
export const SIGNATURE_HEADER = "Edgecron-Signature";

const encoder = new TextEncoder();

async function hmac(secret: string, message: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/**
 * Compares two byte strings in time that depends only on their lengths.
 *
 * @example constantTimeEqual(new Uint8Array([1]), new Uint8Array([1])) // true
 */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

/**
 * Compares two secrets in constant time, whatever their lengths: both are hashed
 * first, so neither the content nor the length of the expected one leaks.
 *
 * @example await secretsEqual(presentedToken, configuredToken)
 */
export async function secretsEqual(presented: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(presented)),
    crypto.subtle.digest("SHA-256", encoder.encode(expected)),
  ]);
  return constantTimeEqual(new Uint8Array(a), new Uint8Array(b));
}

/**
 * Hex HMAC-SHA256 of `message` under `secret`.
 *
 * @example await hmacHex("k", "hello") // "a2b1..." (64 hex digits)
 */
export async function hmacHex(secret: string, message: string): Promise<string> {
  return toHex(await hmac(secret, message));
}

/**
 * Builds the `Edgecron-Signature` header value for `body` sent at `timestampSec`.
 *
 * @throws {SchedulerError} `invalid-spec` when the secret is empty or the timestamp not an integer.
 * @example await signPayload("s3cret", '{"a":1}', 1764504000) // "t=1764504000,v1=<64 hex>"
 */
export async function signPayload(secret: string, body: string, timestampSec: number): Promise<string> {
  if (typeof secret !== "string" || secret.length === 0) {
    throw new SchedulerError("invalid-spec", "webhookSecret: must be a non-empty string");
  }
  if (!Number.isSafeInteger(timestampSec) || timestampSec < 0) {
    throw new SchedulerError("invalid-spec", `signature timestamp: expected whole unix seconds, got ${String(timestampSec)}`);
  }
  return `t=${timestampSec},v1=${await hmacHex(secret, `${timestampSec}.${body}`)}`;
}

/** What `verifySignature()` found. On success `body` is the request's body text. */
export type VerifyResult =
  | { ok: true; body: string; timestamp: number }
  | { ok: false; reason: "missing" | "malformed" | "stale" | "future" | "mismatch" };

/** Options of `verifySignature()`. */
export interface VerifyOptions {
  /** How far the signed timestamp may lie from `now`, either way; default `"5m"`. */
  tolerance?: string | number;
  /** The receiver's clock, epoch ms; default `Date.now()`. */
  now?: number;
}

function parseHeader(value: string): { t: number; v1: string[] } | undefined {
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of value.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) return undefined;
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === "t") {
      if (!/^\d{1,15}$/.test(val) || t !== undefined) return undefined;
      t = Number(val);
    } else if (key === "v1") {
      if (!/^[0-9a-f]{64}$/.test(val)) return undefined;
      v1.push(val);
    }
    // Other keys (future schemes) are ignored so receivers keep working across upgrades.
  }
  return t === undefined || v1.length === 0 ? undefined : { t, v1 };
}

/**
 * Verifies an incoming webhook delivery: the `Edgecron-Signature` header must carry a
 * timestamp within `tolerance` of `now` (refusing replays and clock-skewed forgeries)
 * and a `v1` HMAC of `"<t>.<body>"` under `secret`, compared in constant time.
 * `secret` may be a list during a key rotation. Reads a clone of the request, so the
 * caller can still read the body; on success the body text is returned too.
 *
 * Options: `tolerance` (default `"5m"`), `now` (epoch ms, default `Date.now()`).
 *
 * @throws {SchedulerError} `invalid-spec` when `secret` is empty or `tolerance` is not a duration.
 * @example
 * const result = await verifySignature(request, env.EDGECRON_SECRET);
 * if (!result.ok) return new Response(result.reason, { status: 401 });
 * const payload = JSON.parse(result.body);
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
  const presented = parsed.v1.map((hex) => encoder.encode(hex));
  let match = false;
  for (const s of secrets) {
    const expected = encoder.encode(await hmacHex(s, `${parsed.t}.${body}`));
    // Check every pair without an early exit so timing says nothing about which matched.
    for (const p of presented) match = constantTimeEqual(p, expected) || match;
  }
  return match ? { ok: true, body, timestamp: parsed.t } : { ok: false, reason: "mismatch" };
}
