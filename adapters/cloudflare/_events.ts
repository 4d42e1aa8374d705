/**
 * Per-event hooks: what a store made from a worker's bindings asks `cloudflareWorker` to
 * wrap around each `fetch` and `scheduled` event (the Postgres store opens one connection
 * per event and ends it with the event). Kept by the bindings object, which Workers hand
 * to every event of an isolate, so the adapter needs no import of the store that asked.
 * Private to `adapters/cloudflare/`.
 */

/** The parts of the Workers runtime's `ExecutionContext` a hook uses. */
export interface EventContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** Runs one event's work inside whatever the hook sets up, and tears it down after. */
export type EventHook = <T>(ctx: EventContext, work: () => Promise<T>) => Promise<T>;

const hooks = new WeakMap<object, EventHook>();

/** Asks `cloudflareWorker` to run every later event of `env` through `hook`. */
export function wrapEvents(env: object, hook: EventHook): void {
  hooks.set(env, hook);
}

/** Runs `work` through the hook a store registered for `env`, or as it is. */
export function inEvent<T>(env: object, ctx: EventContext, work: () => Promise<T>): Promise<T> {
  const hook = hooks.get(env);
  return hook === undefined ? work() : hook(ctx, work);
}
