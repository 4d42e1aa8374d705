/**
 * The libSQL connection: opened lazily, retried on lock contention with async backoff,
 * reopened after a lock failure, bounded by the caller's deadline, and stopped by
 * `close()`.
 *
 * Why reopen: after a write batch fails with SQLITE_BUSY, the embedded driver can keep
 * a connection that fails every later write even once the lock is gone (it still holds
 * a read mark on the WAL index). A store-owned client is therefore closed and a fresh
 * one opened for the next attempt; a client the caller owns is left as it is.
 */
import type { Client } from "@libsql/client";
import { SchedulerError } from "../../core/errors.ts";
import { checkCallTimeout } from "../_validate.ts";
import { isBusy, type ResolvedLibsqlOptions, storeError } from "./client.ts";

/** Runs store operations on one lazily opened client. */
export interface LibsqlConnection {
  /**
   * Runs `fn` on the client, retrying while the database reports lock contention, for
   * at most `busyTimeout` and never past the call timeout. Every batch the store sends
   * is atomic, so a busy failure wrote nothing and a retry is safe. Any other failure
   * becomes `store-error` with the driver error as cause.
   */
  run<T>(operation: string, fn: (client: Client) => Promise<T>): Promise<T>;
  /** Bounds every later call's retries to `ms` (the scheduler's storeTimeout). */
  setCallTimeout(ms: number): void;
  /** Stops every retry loop (each rejects with `store-error`) and closes an owned client. */
  close(): Promise<void>;
  /** How many times a fresh client was opened after a lock failure (for tests). */
  readonly reopened: number;
}

const CLOSED = "libsql: the store is closed";

/** Opens the connection manager for resolved options. */
export function libsqlConnection(resolved: ResolvedLibsqlOptions): LibsqlConnection {
  let client: Promise<Client> | undefined;
  let closed = false;
  let callTimeout = Infinity;
  let reopened = 0;
  // Pending backoff waits, so close() can end them at once.
  const waits = new Set<() => void>();

  const connect = (): Promise<Client> => {
    client ??= resolved.open().catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  };

  // Drops the client that just failed with a lock error, once (later failures on the
  // same client find it already replaced).
  const recover = (failed: Client): void => {
    if (!resolved.owned || client === undefined) return;
    const current = client;
    void current.then((c) => {
      if (c !== failed || client !== current) return;
      client = undefined;
      reopened += 1;
      c.close();
    }, () => undefined);
  };

  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        waits.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waits.add(done);
    });

  return {
    get reopened(): number {
      return reopened;
    },

    async run<T>(operation: string, fn: (client: Client) => Promise<T>): Promise<T> {
      const started = Date.now();
      const limit = started + Math.min(resolved.busyTimeout, callTimeout);
      for (let attempt = 0;; attempt += 1) {
        if (closed) throw new SchedulerError("store-error", CLOSED);
        let used: Client | undefined;
        try {
          used = await connect();
          return await fn(used);
        } catch (error) {
          if (error instanceof SchedulerError) throw error;
          if (closed) throw new SchedulerError("store-error", CLOSED, { cause: error });
          const busy = isBusy(error);
          // A client closed under this call by a recovery elsewhere: try the fresh one.
          if (!busy && !(used?.closed === true && resolved.owned)) throw storeError(operation, error, resolved.where);
          if (busy && used !== undefined) recover(used);
          // Jittered, capped backoff so contending processes spread out.
          const delay = Math.min(2 ** attempt, 50) * (0.5 + Math.random());
          if (Date.now() + delay > limit) {
            throw storeError(`${operation} (still locked after ${Date.now() - started} ms)`, error, resolved.where);
          }
          await pause(delay);
        }
      }
    },

    setCallTimeout(ms: number): void {
      callTimeout = checkCallTimeout(ms);
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      for (const done of [...waits]) done();
      const opened = await client?.catch(() => undefined);
      client = undefined;
      if (resolved.owned) opened?.close();
    },
  };
}
