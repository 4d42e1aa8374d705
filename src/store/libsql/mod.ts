/**
 * The libSQL `Store` (`edgecron/libsql`): SQLite files, Turso and sqld through
 * `@libsql/client`, whose export conditions pick the web client on Workers.
 *
 * @module
 */
import { type LibsqlStoreOptions, resolveLibsqlOptions } from "./client.ts";
import { libsqlConnection } from "./connection.ts";
import { libsqlExecutor } from "./executor.ts";
import { createSqlStore } from "../sql/store.ts";
import type { Store } from "../types.ts";

export type { LibsqlStoreOptions } from "./client.ts";

/**
 * Creates a `Store` on libSQL. Every `claim()` call is one atomic write batch (one
 * round trip) whose insert decides the overlap check in the same statement, so any
 * number of processes, isolates or regions sharing the database win each slot once.
 *
 * The client is opened and the schema migrated on `init()` (or on first use). For
 * `file:` URLs the database is switched to WAL and connections wait up to
 * `busyTimeout` for a lock; lock contention is also retried, so several processes
 * can share one file.
 *
 * Options: `{ url, authToken?, busyTimeout? }` — url default `"file:edgecron.db"`,
 * busyTimeout default 5000 ms — or `{ client }`, a client you own (never closed by the
 * store). On Cloudflare Workers use a `libsql://` or `https://` URL (no files there).
 *
 * @throws {SchedulerError} `invalid-spec` at once for a bad URL or option. Methods
 * reject with `store-error` (driver error as `cause`) when the database fails, and
 * with `invalid-*` codes for malformed arguments.
 *
 * @example
 * ```ts
 * import { libsqlStore } from "edgecron/libsql";
 *
 * const store = libsqlStore({ url: "file:jobs.db" });
 * await store.init();
 * await store.putDef("ping", { schedule: "*\\/5 * * * *" }, Date.now());
 * ```
 */
export function libsqlStore(options: LibsqlStoreOptions = {}): Store {
  return createSqlStore(libsqlExecutor(libsqlConnection(resolveLibsqlOptions(options))));
}
