/**
 * `edgecron/webhook`: signing and verifying webhook deliveries (v1 and v2 signatures),
 * and deduplicating them on `(job, slot, attempt)`, for a receiver that does not load
 * the router (`edgecron/hono`) or the scheduler.
 *
 * @module
 */
export {
  createDeduper,
  deliveryKey,
  SIGNATURE_HEADER,
  signDelivery,
  signPayload,
  verifySignature,
} from "./signature.ts";
export type { Deduper, DeduperOptions, SignedDelivery, VerifyOptions, VerifyResult } from "./signature.ts";
