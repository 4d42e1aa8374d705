/**
 * Signing-key rotation: `webhookSecret` may be a list. Deliveries are signed with the
 * first key; receivers verify against every key they hold (`verifySignature(request,
 * [next, current])`), so keys roll without a gap (docs/guarantees.md, "Rotating the
 * webhook key").
 */
import { quote, SchedulerError } from "../core/errors.ts";

/**
 * The key deliveries are signed with: `secret` itself, or the first of a list. Checks
 * every key of a list, so a typo in the one kept for later fails at start-up.
 *
 * @throws {SchedulerError} `invalid-spec` naming `webhookSecret` (or `webhookSecret[i]`)
 * for an empty list or an empty or non-string key.
 * @example signingKey(["new-key", "old-key"]) // "new-key"
 */
export function signingKey(secret: string | readonly string[]): string {
  const keys = typeof secret === "string" ? [secret] : Array.isArray(secret) ? secret : undefined;
  if (keys === undefined || keys.length === 0) {
    throw new SchedulerError(
      "invalid-spec",
      `webhookSecret: expected a non-empty string or a non-empty list of them, got ${
        quote(Array.isArray(secret) ? "[]" : typeof secret)
      }`,
      { path: "webhookSecret" },
    );
  }
  keys.forEach((key, i) => {
    if (typeof key !== "string" || key.length === 0) {
      const field = typeof secret === "string" ? "webhookSecret" : `webhookSecret[${i}]`;
      // The value is a secret: only its type is named.
      throw new SchedulerError(
        "invalid-spec",
        `${field}: must be a non-empty string, got ${quote(typeof key === "string" ? "an empty string" : typeof key)}`,
        { path: field },
      );
    }
  });
  return keys[0]!;
}
