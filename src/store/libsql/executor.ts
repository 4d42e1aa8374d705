/** The libSQL `SqlExecutor`: statement batches on `@libsql/client` through the retrying connection. */
import type { Client, InStatement, ResultSet } from "@libsql/client";
import type { SqlExecutor, SqlResult, SqlStatement } from "../sql/executor.ts";
import type { LibsqlConnection } from "./connection.ts";

const result = (set: ResultSet): SqlResult => ({
  rows: set.rows as unknown as SqlResult["rows"],
  changes: set.rowsAffected,
});
const statement = (s: SqlStatement): InStatement => ({ sql: s.sql, args: s.args });

/** Runs the SQL store's batches on `connection`: writes as `"write"` batches, reads without a write lock. */
export function libsqlExecutor(connection: LibsqlConnection): SqlExecutor {
  let blocking = false;
  return {
    label: "libsql",

    get blocking() {
      return blocking;
    },

    async write(operation, statements): Promise<SqlResult[]> {
      const sets = await connection.write(operation, (c) => c.batch(statements.map(statement), "write"));
      return sets.map(result);
    },

    async read(operation, statements): Promise<SqlResult[]> {
      return connection.run(operation, async (c: Client) => {
        // One statement reads one consistent view on its own; several share a read transaction.
        if (statements.length === 1) return [result(await c.execute(statement(statements[0]!)))];
        return (await c.batch(statements.map(statement), "read")).map(result);
      });
    },

    async prepare(): Promise<void> {
      await connection.run("init", async (c) => {
        // WAL lets readers run beside the one writer; the mode is stored in the file.
        // The embedded engine steps statements on this thread (remote URLs are I/O).
        blocking = c.protocol === "file";
        if (blocking) await c.execute("PRAGMA journal_mode = WAL");
      });
    },

    setCallTimeout: (ms) => connection.setCallTimeout(ms),

    close: () => connection.close(),
  };
}
