/**
 * Store health: the one way the engine reaches its store. Every call goes through the
 * `storeTimeout` deadline and keeps `health()` in step with how it went.
 */
import { SchedulerError } from "../../core/errors.ts";
import type { Store } from "../../store/types.ts";
import { errorText } from "../text.ts";
import { asyncMethods, withDeadline } from "./deadline.ts";
import type { Clock, SchedulerEvent } from "../types.ts";

/** The guarded store and what the last calls said about it. */
export interface StoreHealth {
  /** The store behind the deadline; a failed call emits `store-error` and marks the store unhealthy, a good one heals it. */
  readonly store: Store;
  readonly ok: boolean;
  readonly lastError: string | undefined;
}

/**
 * Wraps `store`: every method through `withDeadline(store, clock, timeoutMs)`, then
 * health bookkeeping. `emit` receives one `store-error` per failed call.
 *
 * @example const health = createStoreHealth(createMemoryStore(), { clock, timeoutMs: 30_000, emit })
 */
export function createStoreHealth(
  raw: Store,
  options: { clock: Clock; timeoutMs: number; emit: (event: SchedulerEvent) => void },
): StoreHealth {
  const deadlined = withDeadline(raw, options.clock, options.timeoutMs);
  let ok = true;
  let lastError: string | undefined;
  const store = {} as Record<string, unknown>;
  for (const name of asyncMethods(raw)) {
    const method = (deadlined as unknown as Record<string, unknown>)[name] as
      | ((...args: unknown[]) => Promise<unknown>)
      | undefined;
    if (typeof method !== "function") continue;
    store[name] = async (...args: unknown[]): Promise<unknown> => {
      try {
        const result = await method.apply(deadlined, args);
        ok = true;
        lastError = undefined;
        return result;
      } catch (e) {
        // A refusal the store reasons about (a version conflict, a bad argument) is an
        // answer, not an outage: only store failures change health.
        if (e instanceof SchedulerError && e.code !== "store-error") throw e;
        ok = false;
        lastError = errorText(e);
        options.emit({ type: "store-error", error: lastError });
        throw e;
      }
    };
  }
  return {
    store: store as unknown as Store,
    get ok() {
      return ok;
    },
    get lastError() {
      return lastError;
    },
  };
}
