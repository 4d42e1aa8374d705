/**
 * What the libSQL and Postgres connections share: a driver handle opened lazily (a
 * failed open is retried by the next call), the caller's deadline, jittered backoff
 * waits that `close()` ends at once, and the closed state every call checks first.
 * Each connection keeps its own retry rules (lock contention for libSQL, rolled-back
 * transactions and lost reads for Postgres). Private to `src/store/`.
 */
import { SchedulerError } from "../core/errors.ts";
import { checkCallTimeout } from "./_validate.ts";

/** The life of one store's driver handle. */
export interface ConnectionLife<T> {
  /** The handle, opened on first use; after a failed open, the next call opens again. */
  get(): Promise<T>;
  /** The pending or opened handle, if any (to compare before `forget`). */
  readonly current: Promise<T> | undefined;
  /** Drops the handle if it is still `current`, so the next `get` opens a fresh one. */
  forget(current: Promise<T>): boolean;
  /** Waits `ms`; `close()` ends the wait at once. */
  pause(ms: number): Promise<void>;
  /** Throws `store-error` "<label>: the store is closed" once closed. */
  checkOpen(cause?: unknown): void;
  readonly closed: boolean;
  /** The deadline of one call in all, retries included; Infinity until set. */
  readonly callTimeout: number;
  /** Sets the deadline (the scheduler's storeTimeout); throws `invalid-spec` for a bad value. */
  setCallTimeout(ms: number): void;
  /** Marks the store closed, ends every wait, and hands back the handle that was opened (if any). */
  close(): Promise<T | undefined>;
}

/** A retry delay: doubling from `base` up to `cap` ms, jittered by ±50% so contending callers spread out. */
export function backoff(attempt: number, base: number, cap: number): number {
  return Math.min(2 ** attempt * base, cap) * (0.5 + Math.random());
}

/** Starts the life of a handle that `open` makes; `label` names the backend in messages. */
export function connectionLife<T>(label: string, open: () => Promise<T>): ConnectionLife<T> {
  let handle: Promise<T> | undefined;
  let closed = false;
  let callTimeout = Infinity;
  const waits = new Set<() => void>();
  const message = `${label}: the store is closed`;

  return {
    get(): Promise<T> {
      handle ??= open().catch((error: unknown) => {
        handle = undefined;
        throw error;
      });
      return handle;
    },

    get current(): Promise<T> | undefined {
      return handle;
    },

    forget(current: Promise<T>): boolean {
      if (handle !== current) return false;
      handle = undefined;
      return true;
    },

    pause: (ms: number): Promise<void> =>
      new Promise((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          waits.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waits.add(done);
      }),

    checkOpen(cause?: unknown): void {
      if (closed) throw new SchedulerError("store-error", message, cause === undefined ? {} : { cause });
    },

    get closed(): boolean {
      return closed;
    },

    get callTimeout(): number {
      return callTimeout;
    },

    setCallTimeout(ms: number): void {
      callTimeout = checkCallTimeout(ms);
    },

    async close(): Promise<T | undefined> {
      if (closed) return undefined;
      closed = true;
      for (const done of [...waits]) done();
      const opened = await handle?.catch(() => undefined);
      handle = undefined;
      return opened;
    },
  };
}
