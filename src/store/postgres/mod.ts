/**
 * The Postgres `Store` (`edgecron/postgres`) on postgres.js 3.x: Node, Bun, Deno, and
 * Workers through `cloudflare:sockets` (Hyperdrive, Neon, Supabase).
 *
 * @module
 */
import { pgConnection } from "./connection.ts";
import { type PostgresStoreOptions, resolvePostgresOptions } from "./options.ts";
import { pgTables } from "./schema.ts";
import { createPostgresStore } from "./store.ts";
import type { Store } from "../types.ts";

export type { PostgresLease, PostgresStoreOptions } from "./options.ts";
export type { PostgresSqlLike } from "./driver.ts";

/**
 * Creates a `Store` on Postgres. A tick's claims are one `INSERT … ON CONFLICT DO
 * NOTHING RETURNING` whose primary key `(job, slot)` lets exactly one node win each
 * slot; jobs with `overlap: "skip"` take a transaction-scoped advisory lock per job
 * first, so the overlap check and the insert are never raced. Tables live in `schema`
 * (default `"edgecron"`), created by versioned migrations under an advisory lock.
 *
 * Options: `{ url, schema?, max?, prepare?, connectTimeout? }` — the store owns a
 * pool of at most `max` (default 10) connections and ends it on `close()` — or
 * `{ sql, schema? }`, a postgres.js instance you own and share (never ended by the
 * store). Or `{ url, lease, schema? }`: no pool, a connection lent for each call and
 * given back after it (for Workers, where `edgecron/cloudflare/postgres` does this).
 * The `postgres` package is loaded on first use.
 *
 * @throws {SchedulerError} `invalid-spec` at once for a bad URL or option (the URL's
 * password is never shown). Methods reject with `store-error` (driver error as
 * `cause`, credentials blanked) when the database fails or the call's deadline passes,
 * and with `store-error` naming the package when `postgres` is not installed.
 *
 * @example
 * ```ts
 * import { postgresStore } from "edgecron/postgres";
 *
 * const store = postgresStore({ url: "postgres://app:secret@db.internal:5432/app" });
 * await store.init();
 * ```
 */
export function postgresStore(options: PostgresStoreOptions): Store {
  const resolved = resolvePostgresOptions(options);
  return createPostgresStore(pgConnection(resolved), pgTables(resolved.schema));
}
