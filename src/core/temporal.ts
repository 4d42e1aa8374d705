/**
 * The single place Temporal is resolved: the runtime's own `globalThis.Temporal`
 * where it exists, `@js-temporal/polyfill` otherwise (Node 20, workerd).
 *
 * The choice is synchronous (no top-level await), so the compiled package can be loaded
 * with `require("edgecron")` (Node 20.19+ and 22 refuse `require()` of an ES module that
 * awaits at the top level). The price: the polyfill module is evaluated on every runtime;
 * where Temporal is native it is loaded but never used.
 */
import { Temporal as Polyfill } from "@js-temporal/polyfill";

type TemporalNamespace = typeof Polyfill;

const native = (globalThis as unknown as { Temporal?: TemporalNamespace }).Temporal;

/** The Temporal namespace in use: native when available, else the polyfill. */
export const Temporal: TemporalNamespace = native ?? Polyfill;

export type { Polyfill as TemporalTypes };
