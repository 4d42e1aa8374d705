/**
 * `edgecron/webhook`: signing and verifying webhook deliveries, for a receiver that
 * does not load the router (`edgecron/hono`) or the scheduler.
 *
 * @module
 */
export { SIGNATURE_HEADER, signPayload, verifySignature } from "./engine/signature.ts";
export type { VerifyOptions, VerifyResult } from "./engine/signature.ts";
