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
  /** False from a failed write until a write succeeds: reads alone do not show that claims can be made. */
  readonly writable: boolean;
  readonly lastError: string | undefined;
  /**
   * While not `writable`: writes one setting ({@link HEALTH_PROBE_KEY}), waiting at most
   * {@link HEALTH_PROBE_MS} for it; its success heals the store. Otherwise does nothing.
   */
  probe(): Promise<void>;
}

/** The setting `probe()` writes (its value: the clock's time). */
export const HEALTH_PROBE_KEY = "edgecron.health-probe";
/** How long `probe()` waits for its write before `health()` answers with the store as it stands. */
export const HEALTH_PROBE_MS = 2_000;

/**
 * The store methods that write. A failed write is healed only by a successful write:
 * beside another process's write lock (SQLite in WAL mode) every read still answers, so
 * a read that succeeds says nothing of the claims that fail.
 */
const WRITES: ReadonlySet<string> = new Set(
  "init claim update renew updateMany reap reclaim promote enqueue setPaused putDef deleteDef prune pruneRows putSetting"
    .split(" "),
);

/**
 * Wraps `store`: every method through `withDeadline(store, clock, timeoutMs)`, then
 * health bookkeeping. `emit` receives one `store-error` per failed call, with the method that failed.
 *
 * @example const health = createStoreHealth(createMemoryStore(), { clock, timeoutMs: 30_000, emit })
 */
export function createStoreHealth(
  raw: Store,
  options: { clock: Clock; timeoutMs: number; emit: (event: SchedulerEvent, method: string) => void },
): StoreHealth {
  const deadlined = withDeadline(raw, options.clock, options.timeoutMs);
  let writable = true;
  let readable = true;
  let lastError: string | undefined;
  let probing: Promise<void> | undefined;
  const store = {} as Record<string, unknown>;
  for (const name of asyncMethods(raw)) {
    const method = (deadlined as unknown as Record<string, unknown>)[name] as
      | ((...args: unknown[]) => Promise<unknown>)
      | undefined;
    if (typeof method !== "function") continue;
    store[name] = async (...args: unknown[]): Promise<unknown> => {
      try {
        const result = await method.apply(deadlined, args);
        readable = true;
        if (WRITES.has(name)) writable = true;
        if (writable) lastError = undefined;
        return result;
      } catch (e) {
        // A refusal the store reasons about (a version conflict, a bad argument) is an
        // answer, not an outage: only store failures change health.
        if (e instanceof SchedulerError && e.code !== "store-error") throw e;
        if (WRITES.has(name)) writable = false;
        else readable = false;
        lastError = errorText(e);
        options.emit({ type: "store-error", error: lastError }, name);
        throw e;
      }
    };
  }
  return {
    store: store as unknown as Store,
    get ok() {
      return writable && readable;
    },
    get writable() {
      return writable;
    },
    get lastError() {
      return lastError;
    },
    probe() {
      const put = store["putSetting"] as ((key: string, value: string) => Promise<void>) | undefined;
      // A store without settings (a hand-made one in JavaScript) is left to its next write.
      if (writable || typeof put !== "function") return Promise.resolve();
      const { clock } = options;
      let timer: unknown;
      const waited = new Promise<void>((resolve) => (timer = clock.setTimeout(resolve, HEALTH_PROBE_MS)));
      // One write at a time, however many ask: a store that is down is not sent a write per request.
      probing ??= put(HEALTH_PROBE_KEY, String(clock.now())).then(() => {}, () => {}).finally(
        () => (probing = undefined),
      );
      return Promise.race([probing, waited]).finally(() => clock.clearTimeout(timer));
    },
  };
}
