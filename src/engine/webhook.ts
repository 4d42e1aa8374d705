/**
 * Webhook delivery for data-defined jobs (owned by the HTTP work; the engine calls it).
 * Signs with `Edgecron-Signature: t=<unix s>,v1=<hex HMAC-SHA256 of "<t>.<body>">`
 * and sends `Edgecron-Job`, `Edgecron-Slot`, `Edgecron-Attempt`.
 * Resolves on a 2xx answer; rejects otherwise (non-2xx, network error, abort).
 */
import type { RunContext, WebhookTarget } from "./types.ts";

export interface DeliveryOptions {
  fetch: typeof fetch;
  secret: string;
  /** Seconds since epoch for the signature; defaults to the slot clock passed by the engine. */
  nowMs: number;
}

export function deliverWebhook(
  _target: WebhookTarget,
  _ctx: RunContext,
  _options: DeliveryOptions,
): Promise<void> {
  return Promise.reject(new Error("deliverWebhook is not implemented yet"));
}
