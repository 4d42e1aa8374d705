/**
 * The single place Temporal is resolved: the runtime's own `globalThis.Temporal`
 * where it exists (Deno, Bun), `@js-temporal/polyfill` otherwise (Node 20, workerd).
 * The polyfill is loaded with a dynamic import, so runtimes with native Temporal
 * never evaluate it.
 */
import type { Temporal as PolyfillTemporal } from "@js-temporal/polyfill";

type TemporalNamespace = typeof PolyfillTemporal;

const native = (globalThis as unknown as { Temporal?: TemporalNamespace }).Temporal;

/** The Temporal namespace in use: native when available, else the polyfill. */
export const Temporal: TemporalNamespace = native ??
  (await import("@js-temporal/polyfill")).Temporal;

export type { PolyfillTemporal as TemporalTypes };
