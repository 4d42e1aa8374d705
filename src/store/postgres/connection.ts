/**
 * The Postgres connection: the pool opened lazily, every call bounded by the caller's
 * deadline, rolled-back transactions retried, reads retried once the driver has
 * replaced a broken connection, and everything stopped by `close()`.
 *
 * Why only reads retry a lost connection: a write whose connection broke may have
 * committed. The store reports it as `store-error` and the engine settles it (a claim
 * of unknown outcome is reconciled on the next tick from the rows themselves).
 */
import { SchedulerError } from "../../core/errors.ts";
import { backoff, connectionLife } from "../_connection.ts";
import { isConnectionLost, isRolledBack, type PgRow, type PgTx, type PostgresSqlLike, storeError } from "./driver.ts";
import type { PostgresLease, ResolvedPostgresOptions } from "./options.ts";

/** One statement: `$n` parameters, bound in order. */
export interface PgStatement {
  text: string;
  args: unknown[];
}

/** Runs the store's statements on one lazily opened pool, or on a connection lent per call. */
export interface PgConnection {
  /** Names the backend in messages. */
  readonly label: "postgres";
  /** Runs one statement on its own (one round trip, atomic by itself). */
  one(operation: string, statement: PgStatement, kind: "read" | "write"): Promise<readonly PgRow[]>;
  /**
   * Runs statements in order in ONE transaction; a `null` entry gives no rows. Reads
   * share one snapshot (`REPEATABLE READ READ ONLY`).
   */
  many(
    operation: string,
    statements: readonly (PgStatement | null)[],
    kind: "read" | "write",
  ): Promise<(readonly PgRow[])[]>;
  /** Runs `fn` in one transaction on the pool (migrations). */
  transaction<T>(operation: string, fn: (tx: PgTx) => Promise<T>): Promise<T>;
  /** Bounds every later call to `ms` in all, retries included (the scheduler's storeTimeout). */
  setCallTimeout(ms: number): void;
  /** Rejects every later call; ends a store-owned pool. */
  close(): Promise<void>;
}

/** How long `close()` lets the calls under way finish before it ends an owned pool. */
export const END_GRACE_MS = 5_000;

/** Opens the connection manager for resolved options. */
export function pgConnection(resolved: ResolvedPostgresOptions): PgConnection {
  // The pool (for `{ url }` and `{ sql }`); a lease form never opens one.
  const life = connectionLife<PostgresSqlLike>(
    "postgres",
    "open" in resolved ? resolved.open : () => Promise.reject(new Error("postgres: a lease store has no pool")),
  );
  const borrow = (): Promise<PostgresLease> =>
    "lend" in resolved ? resolved.lend() : life.get().then((sql) => ({ sql, release: () => {} }));
  const giveBack = (lease: PostgresLease): Promise<void> =>
    Promise.resolve().then(() => lease.release()).catch(() => undefined);

  // Rejects at the deadline; the query itself is cancelled where the driver can.
  const bounded = <T>(work: Promise<T>, ms: number, operation: string, cancel: () => void): Promise<T> => {
    // The message names the caller's deadline, not what was left of it.
    if (!Number.isFinite(ms)) return work;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        cancel();
        reject(
          new SchedulerError("store-error", `postgres: ${operation} failed: no answer within ${life.callTimeout} ms`),
        );
      }, Math.max(0, ms));
    });
    work.catch(() => undefined);
    return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
  };

  // The calls under way, which close() lets finish before it ends an owned pool.
  const inflight = new Set<Promise<unknown>>();
  function run<T>(
    operation: string,
    kind: "read" | "write",
    fn: (sql: PostgresSqlLike, cancels: (() => unknown)[]) => Promise<T>,
  ): Promise<T> {
    const call = attempts(operation, kind, fn);
    inflight.add(call);
    void call.catch(() => undefined).finally(() => inflight.delete(call));
    return call;
  }

  async function attempts<T>(
    operation: string,
    kind: "read" | "write",
    fn: (sql: PostgresSqlLike, cancels: (() => unknown)[]) => Promise<T>,
  ): Promise<T> {
    const limit = Date.now() + life.callTimeout;
    for (let attempt = 0;; attempt += 1) {
      life.checkOpen();
      const cancels: (() => unknown)[] = [];
      const lent = borrow();
      try {
        const { sql } = await bounded(lent, limit - Date.now(), operation, () => {});
        return await bounded(fn(sql, cancels), limit - Date.now(), operation, () => {
          for (const cancel of cancels) void Promise.resolve().then(cancel).catch(() => undefined);
        });
      } catch (error) {
        if (error instanceof SchedulerError) throw error;
        life.checkOpen(error);
        const retry = isRolledBack(error) || (kind === "read" && isConnectionLost(error) && attempt < 2);
        const delay = backoff(attempt, 5, 200);
        if (!retry || Date.now() + delay > limit) throw storeError(operation, error, resolved.secrets, resolved.schema);
        await life.pause(delay);
      } finally {
        // Every lease goes back once, also one that came after the deadline gave up on it.
        void lent.then(giveBack, () => undefined);
      }
    }
  }

  const query = (sql: PgTx, s: PgStatement, cancels: (() => unknown)[]): PromiseLike<readonly PgRow[]> => {
    // Named and prepared once per connection: otherwise postgres.js describes every
    // statement first, a second round trip per query.
    const q = sql.unsafe(s.text, s.args, { prepare: resolved.prepare });
    if (typeof q.cancel === "function") cancels.push(() => q.cancel?.());
    return q;
  };

  return {
    label: "postgres",

    one: (operation, statement, kind) =>
      run(operation, kind, async (sql, cancels) => await query(sql, statement, cancels)),

    many(operation, statements, kind): Promise<(readonly PgRow[])[]> {
      const mode = kind === "read" ? "isolation level repeatable read read only" : "isolation level read committed";
      return run(operation, kind, async (sql, cancels) => {
        const results = await sql.begin(mode, async (tx) => {
          // One after another: measured faster than postgres.js pipelining `unsafe` queries,
          // and a later statement's snapshot then follows the earlier ones (READ COMMITTED).
          const out: (readonly PgRow[])[] = [];
          for (const s of statements) out.push(s === null ? [] : await query(tx, s, cancels));
          return out;
        });
        return results as (readonly PgRow[])[];
      });
    },

    transaction: <T>(operation: string, fn: (tx: PgTx) => Promise<T>): Promise<T> =>
      run(operation, "write", async (sql) => (await sql.begin("isolation level read committed", fn)) as T),

    setCallTimeout: (ms: number): void => life.setCallTimeout(ms),

    async close(): Promise<void> {
      const opened = await life.close();
      if (!("owned" in resolved && resolved.owned) || opened === undefined) return;
      // The calls under way get up to END_GRACE_MS, then every connection ends at once.
      // Not postgres.js's end({ timeout: 5 }): after a connection broke under a query
      // (server restart, pg_terminate_backend) it waited the whole timeout on that
      // connection whatever was running, so close() took 5 s, past a short storeTimeout.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...inflight]),
        new Promise((resolve) => (timer = setTimeout(resolve, END_GRACE_MS))),
      ]).finally(() => clearTimeout(timer));
      await opened.end({ timeout: 0 });
    },
  };
}
