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
import { backoff, connectionLife } from "../_connection.ts";
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
  /**
   * {@link run} for a write. While other writers are about (this connection met a lock
   * in the last {@link CONTENDED_MS}), a write starts at least {@link WRITE_GAP_MS} after
   * this connection's previous write ended, so a process that writes batch after batch
   * leaves the others a window to take the lock.
   */
  write<T>(operation: string, fn: (client: Client) => Promise<T>): Promise<T>;
  /** Bounds every later call's retries to `ms` (the scheduler's storeTimeout). */
  setCallTimeout(ms: number): void;
  /** Stops every retry loop (each rejects with `store-error`) and closes an owned client. */
  close(): Promise<void>;
  /** How many times a fresh client was opened after a lock failure (for tests). */
  readonly reopened: number;
}

/**
 * The pause between two writes of one connection while others contend. SQLite's busy
 * handler polls a held lock after 1, 2, 5 and 10 ms: a window of 10 ms is one that every
 * waiting process looks into at least once. Without it, a process that writes batch after
 * batch takes the lock again within microseconds of releasing it, and the others wait
 * out their retries: under load one node claimed 41% of a minute that four shared.
 */
export const WRITE_GAP_MS = 10;
/** How long after its last lock failure a connection keeps the gap between its writes. */
export const CONTENDED_MS = 60_000;

/**
 * How long a write starting at `now` waits: the rest of {@link WRITE_GAP_MS} since the
 * previous write ended (`wroteAt`) when a lock was met within {@link CONTENDED_MS}
 * (`contendedAt`), else 0.
 */
export function writeGap(now: number, wroteAt: number, contendedAt: number): number {
  if (now - contendedAt >= CONTENDED_MS) return 0;
  return Math.max(0, wroteAt + WRITE_GAP_MS - now);
}

/** Opens the connection manager for resolved options. */
export function libsqlConnection(resolved: ResolvedLibsqlOptions): LibsqlConnection {
  const life = connectionLife<Client>("libsql", resolved.open);
  let reopened = 0;
  let contendedAt = -Infinity;
  let wroteAt = -Infinity;

  // Drops the client that just failed with a lock error, once (later failures on the
  // same client find it already replaced).
  const recover = (failed: Client): void => {
    const current = life.current;
    if (!resolved.owned || current === undefined) return;
    void current.then((c) => {
      if (c !== failed || !life.forget(current)) return;
      reopened += 1;
      c.close();
    }, () => undefined);
  };

  const run = async <T>(operation: string, fn: (client: Client) => Promise<T>): Promise<T> => {
    const started = Date.now();
    const limit = started + Math.min(resolved.busyTimeout, life.callTimeout);
    for (let attempt = 0;; attempt += 1) {
      life.checkOpen();
      let used: Client | undefined;
      try {
        used = await life.get();
        return await fn(used);
      } catch (error) {
        if (error instanceof SchedulerError) throw error;
        life.checkOpen(error);
        const busy = isBusy(error);
        // A client closed under this call by a recovery elsewhere: try the fresh one.
        if (!busy && !(used?.closed === true && resolved.owned)) throw storeError(operation, error, resolved.where);
        if (busy) contendedAt = Date.now();
        if (busy && used !== undefined) recover(used);
        // Jittered, capped backoff so contending processes spread out.
        const delay = backoff(attempt, 1, 50);
        if (Date.now() + delay > limit) {
          throw storeError(
            `${operation} (still locked after ${
              Date.now() - started
            } ms: another connection holds a write lock on the database; busyTimeout sets this wait)`,
            error,
            resolved.where,
          );
        }
        await life.pause(delay);
      }
    }
  };

  return {
    get reopened(): number {
      return reopened;
    },

    run,

    async write<T>(operation: string, fn: (client: Client) => Promise<T>): Promise<T> {
      const wait = writeGap(Date.now(), wroteAt, contendedAt);
      if (wait > 0) await life.pause(wait);
      try {
        return await run(operation, fn);
      } finally {
        wroteAt = Date.now();
      }
    },

    setCallTimeout: (ms: number): void => life.setCallTimeout(ms),

    async close(): Promise<void> {
      const opened = await life.close();
      if (resolved.owned) opened?.close();
    },
  };
}
