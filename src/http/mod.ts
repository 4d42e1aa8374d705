/**
 * `edgecron/hono`: the HTTP router (JSON API and dashboard) and the webhook signature
 * helpers receivers use.
 *
 * @module
 */
export { edgecronRouter } from "./router.ts";
export type { RouterOptions } from "./router.ts";
export type { ErrorBody } from "./_errors.ts";
