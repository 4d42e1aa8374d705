/**
 * A deadline on every store call. A remote store whose connection hangs without an
 * error (a partition with no TCP reset, a fetch with no timeout) would otherwise hold a
 * tick forever, and the timer loop, which waits for a tick's claims before re-arming,
 * would never tick again. With the deadline the call fails as `store-error`, the tick
 * fails closed, and the next one retries.
 *
 * A write that times out may still land later; that is safe by construction: a claim
 * that lands unseen is a `running` row nobody runs, reaped as `abandoned` when its lease
 * ends (and re-run when retries are left); an outcome write is read back before retrying.
 */
import { formatDuration } from "../../core/duration.ts";
import { SchedulerError } from "../../core/errors.ts";
import type { Store } from "../../store/types.ts";
import type { Clock } from "../types.ts";

/** Every asynchronous method of the port. */
export const STORE_METHODS = [
  "init",
  "close",
  "snapshot",
  "read",
  "recorded",
  "claim",
  "update",
  "updateMany",
  "renew",
  "reap",
  "reclaim",
  "getRun",
  "runs",
  "lastOutcomes",
  "counts",
  "overview",
  "tally",
  "setPaused",
  "listDefs",
  "getDef",
  "putDef",
  "deleteDef",
  "prune",
  "pruneRows",
  "getSetting",
  "putSetting",
] as const satisfies readonly (keyof Store)[];

/**
 * The port's asynchronous methods, plus any other method the store has (a port method
 * added later), except the synchronous `setCallTimeout`.
 */
export function asyncMethods(store: Store): string[] {
  const names = new Set<string>(STORE_METHODS);
  for (const key of Object.keys(store)) {
    if (key !== "setCallTimeout" && typeof (store as unknown as Record<string, unknown>)[key] === "function") {
      names.add(key);
    }
  }
  return [...names];
}

/**
 * Returns a `Store` whose every method rejects with `store-error` when `store` has not
 * answered within `ms` on `clock`. `ms` of `Infinity` returns `store` itself.
 *
 * @example const guarded = withDeadline(libsqlStore({ url }), systemClock(), 30_000)
 */
export function withDeadline(store: Store, clock: Clock, ms: number): Store {
  if (ms === Infinity) return store;
  const guarded = {} as Record<string, unknown>;
  for (const name of asyncMethods(store)) {
    const method = (store as unknown as Record<string, unknown>)[name] as
      | ((...args: unknown[]) => Promise<unknown>)
      | undefined;
    // A store from before this port version lacks the newest methods; the engine checks for them.
    if (typeof method !== "function") continue;
    guarded[name] = (...args: unknown[]): Promise<unknown> =>
      new Promise((resolve, reject) => {
        const timer = clock.setTimeout(() => {
          reject(new SchedulerError("store-error", `store: ${name}() did not answer within ${formatDuration(ms)}`));
        }, ms);
        let pending: Promise<unknown>;
        try {
          pending = Promise.resolve(method.apply(store, args));
        } catch (e) {
          pending = Promise.reject(e);
        }
        pending.then(
          (value) => {
            clock.clearTimeout(timer);
            resolve(value);
          },
          (error: unknown) => {
            clock.clearTimeout(timer);
            reject(error);
          },
        );
      });
  }
  return guarded as unknown as Store;
}
