/**
 * `edgecron/hono`: the HTTP router (JSON API and dashboard), Prometheus metrics and the
 * OpenAPI document. Webhook receivers import the signature helpers from
 * `edgecron/webhook`, which loads no router.
 *
 * @module
 */
export { edgecronRouter } from "./router.ts";
export { setClientAddress } from "./client_address.ts";
export type { RouterOptions } from "./router.ts";
export type { ErrorBody } from "./_errors.ts";
export { createMetrics } from "./metrics.ts";
export type { JobStateCounts, Metrics, MetricsOptions } from "./metrics.ts";
export { OPENAPI_DOCUMENT as openApiDocument } from "./openapi/document.ts";
