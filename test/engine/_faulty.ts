/** A memory store whose methods can be made to fail a given number of times, for fault tests. */
import { SchedulerError } from "../../src/core/errors.ts";
import { createMemoryStore, type MemoryStore } from "../../src/store/memory/mod.ts";
import type { Store } from "../../src/store/types.ts";

type Method = Exclude<keyof Store, "close">;

export interface FaultyStore extends MemoryStore {
  /* setFailing is only meaningful when the wrapped store is a memory store. */
  /** The next `times` calls of `method` reject with `store-error` without touching state. */
  failNext(method: Method, times?: number): void;
  /** Calls made, per method. */
  calls: Record<string, number>;
}

/** Wraps `inner` (default a fresh memory store); every method passes through unless told to fail. */
export function faultyStore(inner: Store = createMemoryStore()): FaultyStore {
  const pending = new Map<string, number>();
  const calls: Record<string, number> = {};
  const out = { ...inner, calls } as FaultyStore;
  out.failNext = (method, times = 1) => void pending.set(method, (pending.get(method) ?? 0) + times);
  for (const key of Object.keys(inner) as (keyof MemoryStore)[]) {
    const fn = (inner as MemoryStore)[key];
    if (typeof fn !== "function" || key === "close" || key === "setFailing") continue;
    (out as unknown as Record<string, unknown>)[key] = (...args: unknown[]) => {
      calls[key] = (calls[key] ?? 0) + 1;
      const left = pending.get(key) ?? 0;
      if (left > 0) {
        pending.set(key, left - 1);
        return Promise.reject(new SchedulerError("store-error", `faulty store: ${key} failed`));
      }
      return (fn as (...a: unknown[]) => unknown).apply(inner, args);
    };
  }
  return out;
}
