/**
 * A minimal libSQL remote-protocol server (Hrana 2 over HTTP, JSON) on top of the
 * embedded `libsql` driver, for tests only: it lets `@libsql/client/web` inside workerd
 * (Miniflare) share one SQLite file across isolates, the way Workers share Turso.
 *
 * It answers `GET /v2` and `POST /v2/pipeline` with `execute`, `batch` (conditions),
 * `store_sql`, `close_sql` and `close`. Each pipeline runs synchronously on the one
 * connection, so batches are atomic against each other; a stream left inside a
 * transaction at the end of a pipeline is rolled back and reported as an error.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";

interface Statement {
  reader: boolean;
  raw(on?: boolean): Statement;
  safeIntegers(on?: boolean): Statement;
  columns(): { name: string; type: string | null }[];
  all(params: unknown): unknown[][];
  run(params: unknown): { changes: number; lastInsertRowid: number | bigint };
}
interface Database {
  prepare(sql: string): Statement;
  readonly inTransaction: boolean;
  exec(sql: string): void;
  close(): void;
}

type Value =
  | { type: "null" }
  | { type: "integer"; value: string }
  | { type: "float"; value: number }
  | { type: "text"; value: string }
  | { type: "blob"; base64: string };

interface Stmt {
  sql?: string;
  sql_id?: number;
  args?: Value[];
  named_args?: { name: string; value: Value }[];
  want_rows?: boolean;
}
type Cond =
  | { type: "ok" | "error"; step: number }
  | { type: "not"; cond: Cond }
  | { type: "and" | "or"; conds: Cond[] }
  | { type: "is_autocommit" };

const fromValue = (v: Value): unknown => {
  switch (v.type) {
    case "null":
      return null;
    case "integer":
      return BigInt(v.value);
    case "float":
      return v.value;
    case "text":
      return v.value;
    case "blob":
      return Buffer.from(v.base64, "base64");
  }
};
const toValue = (v: unknown): Value => {
  if (v === null || v === undefined) return { type: "null" };
  if (typeof v === "bigint") return { type: "integer", value: v.toString() };
  if (typeof v === "number") {
    return Number.isInteger(v) ? { type: "integer", value: String(v) } : { type: "float", value: v };
  }
  if (typeof v === "string") return { type: "text", value: v };
  return { type: "blob", base64: Buffer.from(v as Uint8Array).toString("base64") };
};
const sqlError = (e: unknown): { message: string; code: string } => ({
  message: e instanceof Error ? e.message : String(e),
  code: typeof (e as { code?: unknown })?.code === "string" ? (e as { code: string }).code : "SQLITE_ERROR",
});

/** A running server; `url` is an `http://` URL for `createClient({ url })`. */
export interface HranaServer {
  url: string;
  /** Pipelines served so far. */
  pipelines(): number;
  close(): Promise<void>;
}

/** Starts the server on a free port over the SQLite file at `path` (created if missing). */
export async function startHranaServer(path: string): Promise<HranaServer> {
  const Database = createRequire(import.meta.url)("libsql") as new (path: string) => Database;
  const db = new Database(path);
  const sqls = new Map<number, string>();
  let pipelines = 0;

  const execute = (stmt: Stmt): unknown => {
    const sql = stmt.sql ?? sqls.get(stmt.sql_id ?? -1);
    if (sql === undefined) throw new Error(`unknown sql_id ${stmt.sql_id}`);
    const named = stmt.named_args ?? [];
    const params = named.length > 0
      ? Object.fromEntries(named.map(({ name, value }) => [name.replace(/^[:@$]/, ""), fromValue(value)]))
      : (stmt.args ?? []).map(fromValue);
    const prepared = db.prepare(sql).safeIntegers(true);
    if (prepared.reader) {
      const rows = prepared.raw(true).all(params);
      return {
        cols: prepared.columns().map((c) => ({ name: c.name, decltype: c.type })),
        rows: rows.map((row) => row.map(toValue)),
        affected_row_count: /^\s*(insert|update|delete|replace)/i.test(sql) ? rows.length : 0,
        last_insert_rowid: null,
      };
    }
    const info = prepared.run(params);
    return { cols: [], rows: [], affected_row_count: info.changes, last_insert_rowid: String(info.lastInsertRowid) };
  };

  const batch = (steps: { condition?: Cond; stmt: Stmt }[]): unknown => {
    const results: unknown[] = [];
    const errors: unknown[] = [];
    const holds = (c: Cond): boolean => {
      switch (c.type) {
        case "ok":
          return results[c.step] != null;
        case "error":
          return errors[c.step] != null;
        case "not":
          return !holds(c.cond);
        case "and":
          return c.conds.every(holds);
        case "or":
          return c.conds.some(holds);
        case "is_autocommit":
          return !db.inTransaction;
      }
    };
    for (const step of steps) {
      if (step.condition && !holds(step.condition)) {
        results.push(null);
        errors.push(null);
        continue;
      }
      try {
        results.push(execute(step.stmt));
        errors.push(null);
      } catch (e) {
        results.push(null);
        errors.push(sqlError(e));
      }
    }
    return { step_results: results, step_errors: errors };
  };

  const handle = (
    request: {
      type: string;
      stmt?: Stmt;
      batch?: { steps: { condition?: Cond; stmt: Stmt }[] };
      sql_id?: number;
      sql?: string;
    },
  ): unknown => {
    switch (request.type) {
      case "execute":
        return { type: "execute", result: execute(request.stmt as Stmt) };
      case "batch":
        return { type: "batch", result: batch(request.batch?.steps ?? []) };
      case "store_sql":
        sqls.set(request.sql_id as number, request.sql as string);
        return { type: "store_sql" };
      case "close_sql":
        sqls.delete(request.sql_id as number);
        return { type: "close_sql" };
      case "close":
        return { type: "close" };
      case "get_autocommit":
        return { type: "get_autocommit", is_autocommit: !db.inTransaction };
      default:
        throw new Error(`unsupported request ${request.type}`);
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const send = (status: number, body: unknown): void => {
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      };
      if (req.method === "GET" && req.url === "/v2") return send(200, {});
      if (req.method !== "POST" || req.url !== "/v2/pipeline") return send(404, { message: "not found" });
      pipelines += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { requests: Parameters<typeof handle>[0][] };
      const results = body.requests.map((r) => {
        try {
          return { type: "ok", response: handle(r) };
        } catch (e) {
          return { type: "error", error: sqlError(e) };
        }
      });
      if (db.inTransaction) {
        // Interactive transactions across HTTP requests are out of this shim's scope.
        db.exec("ROLLBACK");
        return send(500, { message: "stream left inside a transaction; rolled back" });
      }
      send(200, { baton: null, base_url: null, results });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pipelines: () => pipelines,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          db.close();
          resolve();
        });
      }),
  };
}
