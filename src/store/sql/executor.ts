/**
 * What the shared SQL store needs from a SQLite-family database: batches of bound
 * statements, each batch one round trip. libSQL (`@libsql/client`) and Cloudflare D1
 * each provide one; every statement and row mapping above this line is shared.
 */

/** A bound parameter: the SQL store never binds anything else. */
export type SqlValue = string | number | null;

/** One statement with positional (`?N`) parameters. */
export interface SqlStatement {
  sql: string;
  args: SqlValue[];
}

/** A result row, by column name. */
export type SqlRow = Record<string, unknown>;

/** One statement's result. */
export interface SqlResult {
  rows: SqlRow[];
  /** Rows changed by an INSERT, UPDATE or DELETE. */
  changes: number;
}

/** A database connection as the SQL store sees it. */
export interface SqlExecutor {
  /** Names the backend in error messages (`libsql`, `d1`). */
  readonly label: string;
  /**
   * Runs the statements as ONE atomic write transaction in one round trip; a failure
   * applies none of them. Rejects with `SchedulerError` `store-error`.
   */
  write(operation: string, statements: readonly SqlStatement[]): Promise<SqlResult[]>;
  /** Runs read-only statements in one round trip, on one consistent view. Never writes. */
  read(operation: string, statements: readonly SqlStatement[]): Promise<SqlResult[]>;
  /**
   * True when statements run on the caller's thread (an embedded engine: a libSQL
   * `file:` URL), so a long statement blocks the event loop; known after `prepare()`.
   */
  readonly blocking?: boolean;
  /** Once, before the schema is migrated (libSQL files switch to WAL here). */
  prepare?(): Promise<void>;
  /** Bounds internal retries by the caller's deadline. */
  setCallTimeout?(ms: number): void;
  /** Releases what the executor owns; later calls reject. */
  close(): Promise<void>;
}

/** A statement without parameters. */
export function plain(sql: string): SqlStatement {
  return { sql, args: [] };
}
