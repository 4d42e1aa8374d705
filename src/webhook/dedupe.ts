/**
 * Receiver-side deduplication of webhook deliveries. edgecron runs each slot once, but
 * a delivery can still arrive twice (a receiver answered after the sender's timeout and
 * the attempt was retried, a proxy resent it): receivers key on `(job, slot, attempt)`.
 */
import { parseDuration } from "../core/duration.ts";
import { SchedulerError } from "../core/errors.ts";

/** A delivery's identity, as `verifySignature()` returns it or from the headers. */
export interface DeliveryIdentity {
  job: string | null;
  slot: string | null;
  attempt: string | number | null;
}

/**
 * The dedupe key of a delivery: `"<job>\n<slot>\n<attempt>"` (job names never hold a
 * newline). Pass a verified result or a `Request` (its `Edgecron-*` headers).
 *
 * @throws {SchedulerError} `invalid-spec` when the job, slot or attempt is missing.
 * @example
 * ```ts
 * import { deliveryKey } from "edgecron/webhook";
 *
 * deliveryKey({ job: "nightly", slot: "2026-11-30T12:00:00.000Z", attempt: "1" });
 * ```
 */
export function deliveryKey(delivery: DeliveryIdentity | Request): string {
  const id: DeliveryIdentity = delivery instanceof Request
    ? {
      job: delivery.headers.get("Edgecron-Job"),
      slot: delivery.headers.get("Edgecron-Slot"),
      attempt: delivery.headers.get("Edgecron-Attempt"),
    }
    : delivery;
  if (id.job === null || id.slot === null || id.attempt === null) {
    throw new SchedulerError("invalid-spec", "delivery: Edgecron-Job, Edgecron-Slot and Edgecron-Attempt are required");
  }
  return `${id.job}\n${id.slot}\n${String(id.attempt)}`;
}

/** Options of `createDeduper()`. */
export interface DeduperOptions {
  /** How long a key is remembered; default `"24h"` (keep it above your signature tolerance). */
  ttl?: string | number;
  /** Most keys kept; the oldest are forgotten first. Default 100 000. */
  max?: number;
  /** Clock (epoch ms); default `Date.now`. */
  now?: () => number;
}

/** A small in-memory dedupe set (one process; use your database for several). */
export interface Deduper {
  /** True the first time `delivery` is seen within the ttl, false for a repeat. */
  first(delivery: DeliveryIdentity | Request | string): boolean;
  /** Keys remembered now. */
  readonly size: number;
}

/**
 * Creates an in-memory deduper for a webhook receiver.
 *
 * @throws {SchedulerError} `invalid-spec` for a bad `ttl` or `max`.
 * @example
 * ```ts
 * import { createDeduper, verifySignature } from "edgecron/webhook";
 *
 * const dedupe = createDeduper({ ttl: "1h" });
 * export async function receive(request: Request, secret: string): Promise<Response> {
 *   const result = await verifySignature(request, secret);
 *   if (!result.ok) return new Response(result.reason, { status: 401 });
 *   if (!dedupe.first(result)) return new Response("duplicate", { status: 200 });
 *   return new Response("ok");
 * }
 * ```
 */
export function createDeduper(options: DeduperOptions = {}): Deduper {
  const ttl = parseDuration(options.ttl ?? "24h", { code: "invalid-spec", field: "ttl", min: 1 });
  const max = options.max ?? 100_000;
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new SchedulerError("invalid-spec", `max: expected a positive whole number, got ${String(max)}`);
  }
  const now = options.now ?? (() => Date.now());
  // Insertion order is expiry order (one ttl for all), so the oldest entries come first.
  const seen = new Map<string, number>();
  return {
    first(delivery) {
      const t = now();
      for (const [key, until] of seen) {
        if (until > t && seen.size < max) break;
        seen.delete(key);
      }
      const key = typeof delivery === "string" ? delivery : deliveryKey(delivery);
      if (seen.has(key)) return false;
      seen.set(key, t + ttl);
      return true;
    },
    get size() {
      return seen.size;
    },
  };
}
