/**
 * The D1 `Store` (`edgecron/d1`): Cloudflare's built-in SQLite, bound to a Worker as
 * `env.DB`. The same SQL store as libSQL (src/store/sql/), over D1's batch API.
 *
 * @module
 */
import { quote, SchedulerError } from "../../core/errors.ts";
import { createSqlStore } from "../sql/store.ts";
import type { SqlExecutor, SqlResult, SqlRow, SqlStatement, SqlValue } from "../sql/executor.ts";
import type { Store } from "../types.ts";

/** The parts of a D1 prepared statement the store uses (from `@cloudflare/workers-types`). */
export interface D1PreparedStatementLike {
  bind(...values: SqlValue[]): D1PreparedStatementLike;
  all(): Promise<D1ResultLike>;
}

/** The parts of a D1 result the store reads. */
export interface D1ResultLike {
  results?: SqlRow[];
  meta?: { changes?: number };
}

/** The parts of a `D1Database` binding the store uses. */
export interface D1DatabaseLike {
  prepare(query: string): D1PreparedStatementLike;
  batch(statements: D1PreparedStatementLike[]): Promise<D1ResultLike[]>;
}

/** Whether `value` looks like a D1 binding (a `prepare` and a `batch` method). */
export function isD1Database(value: unknown): value is D1DatabaseLike {
  const db = value as D1DatabaseLike | null;
  return typeof db === "object" && db !== null && typeof db.prepare === "function" && typeof db.batch === "function";
}

function storeError(operation: string, cause: unknown): SchedulerError {
  const text = typeof (cause as Error | null)?.message === "string" ? (cause as Error).message : String(cause);
  return new SchedulerError("store-error", `d1: ${operation} failed: ${text}`, { cause });
}

/** A lock held by another connection: the batch (one transaction) wrote nothing. */
const isBusy = (error: unknown): boolean =>
  /SQLITE_BUSY|database is locked/i.test(String((error as Error | null)?.message ?? error));

/** How long one call retries a locked database in all, in ms (bounded by the call timeout). */
const BUSY_BUDGET = 5_000;

/**
 * The D1 `SqlExecutor`: every write is one `db.batch()` (D1 runs a batch as one
 * transaction). Production D1 serialises writers itself; a local database that several
 * processes share (Miniflare `d1Persist`) answers SQLITE_BUSY at once, so that is
 * retried with async backoff, never past the call timeout or `close()`.
 */
function d1Executor(db: D1DatabaseLike): SqlExecutor {
  let closed = false;
  let callTimeout = Infinity;
  const toResult = (r: D1ResultLike): SqlResult => ({ rows: r.results ?? [], changes: r.meta?.changes ?? 0 });
  const bound = (s: SqlStatement): D1PreparedStatementLike => db.prepare(s.sql).bind(...s.args);
  const once = async (statements: readonly SqlStatement[], write: boolean): Promise<SqlResult[]> =>
    // A lone read needs no transaction; every write is one batch, one transaction.
    !write && statements.length === 1
      ? [toResult(await bound(statements[0]!).all())]
      : (await db.batch(statements.map(bound))).map(toResult);
  const run = async (operation: string, statements: readonly SqlStatement[], write: boolean): Promise<SqlResult[]> => {
    const limit = Date.now() + Math.min(BUSY_BUDGET, callTimeout);
    for (let attempt = 0;; attempt += 1) {
      if (closed) throw new SchedulerError("store-error", "d1: the store is closed");
      try {
        return await once(statements, write);
      } catch (error) {
        const delay = Math.min(2 ** attempt, 50) * (0.5 + Math.random());
        if (!isBusy(error) || Date.now() + delay > limit) throw storeError(operation, error);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  };
  return {
    label: "d1",
    write: (operation, statements) => run(operation, statements, true),
    read: (operation, statements) => run(operation, statements, false),
    setCallTimeout(ms: number): void {
      callTimeout = ms;
    },
    close: async () => {
      closed = true;
    },
  };
}

/**
 * Creates a `Store` on a D1 database binding. Each tick's claims are one `db.batch()`
 * whose insert decides the overlap check in the same statement, so every isolate and
 * Worker bound to the database wins each slot once. The schema is created and migrated
 * by `init()` (or on first use); `close()` does not touch the binding.
 *
 * @throws {SchedulerError} `invalid-spec` at once when `db` is not a D1 binding. Methods
 * reject with `store-error` (the D1 error as `cause`) when the database fails.
 *
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { cloudflareWorker } from "edgecron/cloudflare";
 * import { d1Store, type D1DatabaseLike } from "edgecron/d1";
 *
 * // With @cloudflare/workers-types, write `DB: D1Database`.
 * export default cloudflareWorker((env: { DB: D1DatabaseLike }) =>
 *   createScheduler({ store: d1Store(env.DB) })
 *     .job("hello", { schedule: "* * * * *", run: () => console.log("hello from D1") }));
 * ```
 */
export function d1Store(db: D1DatabaseLike): Store {
  if (!isD1Database(db)) {
    throw new SchedulerError("invalid-spec", `d1Store: expected a D1 database binding (env.DB), got ${quote(db)}`, {
      path: "db",
    });
  }
  return createSqlStore(d1Executor(db));
}
