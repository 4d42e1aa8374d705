/**
 * Generic Web Crypto helpers shared by webhook signing (engine) and sessions (http):
 * HMAC-SHA256, SHA-256 and constant-time comparison. Nothing here knows about jobs.
 */

const encoder = new TextEncoder();

/** Lower-case hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/**
 * Hex HMAC-SHA256 of `message` under `secret`.
 *
 * @example await hmacHex("k", "hello") // "a2b1..." (64 hex digits)
 */
export async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return toHex(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message))));
}

/**
 * Hex SHA-256 of `text` (UTF-8).
 *
 * @example await sha256Hex("") // "e3b0c442...b855"
 */
export async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text))));
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
