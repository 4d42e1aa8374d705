/**
 * What the Postgres store needs from postgres.js (3.x), typed here so the store's
 * declarations never name the optional `postgres` package, and the driver failures
 * it tells apart.
 */
import { SchedulerError } from "../../core/errors.ts";

/** A result row, by column name (int8 columns arrive as strings). */
export type PgRow = Record<string, unknown>;

/** A pending postgres.js query: a promise of rows that can be cancelled. */
export interface PgQuery extends PromiseLike<readonly PgRow[]> {
  cancel?(): unknown;
}

/** The parts of a postgres.js transaction the store calls. */
export interface PgTx {
  /** A query text with `$n` parameters; `prepare` makes it a named prepared statement. */
  unsafe(query: string, parameters?: unknown[], options?: { prepare?: boolean }): PgQuery;
}

/** The parts of a postgres.js `sql` instance the store calls. */
export interface PostgresSqlLike extends PgTx {
  /** A transaction; rejects (after ROLLBACK) when `cb` does. */
  begin(options: string, cb: (tx: PgTx) => unknown): Promise<unknown>;
  /** Ends the pool. */
  end(options?: { timeout?: number }): Promise<void>;
}

const field = (error: unknown, name: string): string => {
  const value = (error as Record<string, unknown> | null)?.[name];
  return typeof value === "string" ? value : "";
};

/** A serialization failure or deadlock: Postgres rolled the transaction back, so a retry is safe. */
export function isRolledBack(error: unknown): boolean {
  const code = field(error, "code");
  return code === "40001" || code === "40P01";
}

/** SQLSTATE 42501 (insufficient_privilege): the role lacks a grant, or does not own what a migration alters. */
export function isDenied(error: unknown): boolean {
  return field(error, "code") === "42501";
}

/**
 * The connection broke (network, server restart, backend terminated). Whether the
 * statement ran is unknown, so only reads retry on it; postgres.js opens a fresh
 * connection for the next query by itself.
 */
export function isConnectionLost(error: unknown): boolean {
  const code = field(error, "code");
  return code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" ||
    ["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "ECONNRESET", "ECONNREFUSED", "EPIPE"].includes(
      code,
    );
}

/** Blanks every secret out of a text. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a password inside the user info is not half-replaced.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join("***");
  return out;
}

/**
 * What to do about a missing privilege: `init` (or the first call, which runs it) creates
 * and migrates the tables, which needs the schema's owner; every other call needs grants.
 */
function privilegeHint(operation: string, schema: string): string {
  const grants = (on: string): string =>
    `grant the role nodes run as USAGE on ${on} and SELECT, INSERT, UPDATE, DELETE on its tables (docs/stores.md, "Roles and privileges")`;
  return operation === "init"
    ? `; run init() once as a role that owns schema "${schema}" or may create it (it creates and migrates the tables), and ${
      grants("the schema")
    }`
    : `; ${grants(`schema "${schema}"`)}`;
}

/**
 * Wraps a driver failure as `store-error`: the Postgres SQLSTATE (or driver code) and
 * message, never a credential, and for a missing privilege what to grant or run. The
 * driver error stays as `cause` with its message redacted too.
 */
export function storeError(
  operation: string,
  cause: unknown,
  secrets: readonly string[],
  schema: string,
): SchedulerError {
  const message = field(cause, "message") || String(cause);
  const code = field(cause, "code");
  // Only the driver's words are blanked: a password that is also a common word ("postgres")
  // turned this store's own prefix into "***: init failed".
  const text = `postgres: ${operation} failed: ${code === "" || message.includes(code) ? "" : `${code}: `}${
    redact(message, secrets)
  }${isDenied(cause) ? privilegeHint(operation, schema) : ""}`;
  if (cause instanceof Error && secrets.length > 0) {
    try {
      cause.message = redact(cause.message, secrets);
      if (typeof cause.stack === "string") cause.stack = redact(cause.stack, secrets);
    } catch { /* a frozen error keeps its text */ }
  }
  return new SchedulerError("store-error", text, { cause });
}
