/**
 * The libSQL `Store` (`edgecron/libsql`): SQLite files, Turso and sqld through
 * `@libsql/client`, whose export conditions pick the web client on Workers.
 *
 * @module
 */
import type { Client } from "@libsql/client";
import { SchedulerError } from "../../core/errors.ts";
import { type LibsqlStoreOptions, resolveLibsqlOptions, withRetry } from "./client.ts";
import { libsqlDefs } from "./defs.ts";
import { libsqlSettings } from "./settings.ts";
import { migrate } from "./schema.ts";
import { claimOutcomes, claimStatement, claimsStatement } from "./claims.ts";
import {
  COLUMNS,
  countsStatement,
  isRunningStatement,
  jobDef,
  lastOutcomesStatement,
  reapStatement,
  reclaimStatement,
  runRecord,
  runsStatement,
  snapshotStatements,
  updateStatement,
} from "./sql.ts";
import {
  checkBoolean,
  checkClaims,
  checkInstant,
  checkNames,
  checkReclaim,
  checkText,
  checkUpdate,
  LEASE_EXPIRED,
  resolveRunQuery,
  zeroCounts,
} from "../_validate.ts";
import type { ClaimResult, JobState, RunRecord, RunStatus, StatusCounts, Store, TickSnapshot } from "../types.ts";

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
 * import { libsqlStore } from "edgecron/libsql";
 * const store = libsqlStore({ url: "file:jobs.db" });
 * await store.init();
 * await store.putDef("ping", { schedule: "*\/5 * * * *" }, Date.now());
 */
export function libsqlStore(options: LibsqlStoreOptions = {}): Store {
  const resolved = resolveLibsqlOptions(options);
  let client: Promise<Client> | undefined;
  let ready: Promise<void> | undefined;
  let closed = false;

  const connect = (): Promise<Client> => {
    if (closed) return Promise.reject(new SchedulerError("store-error", "libsql: the store is closed"));
    client ??= resolved.open().catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  };
  const prepare = async (): Promise<void> => {
    const c = await connect();
    // WAL lets readers run beside the one writer; the mode is stored in the file.
    if (c.protocol === "file") await c.execute("PRAGMA journal_mode = WAL");
    await migrate(c);
  };
  const ensureReady = (): Promise<void> => {
    ready ??= withRetry("init", prepare).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
  const op = async <T>(operation: string, fn: (c: Client) => Promise<T>): Promise<T> => {
    await ensureReady();
    return withRetry(operation, async () => fn(await connect()));
  };
  const one = async (operation: string, sql: string, args: (string | number)[]): Promise<RunRecord[]> =>
    op(operation, async (c) => (await c.execute({ sql, args })).rows.map(runRecord));

  return {
    init: ensureReady,

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      const opened = await client?.catch(() => undefined);
      if (resolved.owned) opened?.close();
    },

    async snapshot(names, now): Promise<TickSnapshot> {
      checkNames(names, "snapshot.names");
      checkInstant(now, "snapshot.now");
      return op("snapshot", async (c) => {
        const [, states, defs, running] = await c.batch(snapshotStatements(names, now), "write");
        // Built with fromEntries: job names such as "__proto__" become own keys, never a prototype.
        const jobs: [string, JobState][] = [];
        const watermarks: [string, number][] = [];
        for (const row of states?.rows ?? []) {
          const name = String(row.name);
          jobs.push([name, { name, firstSeen: Number(row.first_seen), paused: Number(row.paused) === 1 }]);
          if (row.watermark !== null && row.watermark !== undefined) watermarks.push([name, Number(row.watermark)]);
        }
        const snapshot: TickSnapshot = { jobs: Object.fromEntries(jobs), watermarks: Object.fromEntries(watermarks), defs: [], running: [] };
        snapshot.defs = (defs?.rows ?? []).map(jobDef);
        snapshot.running = (running?.rows ?? []).map(runRecord);
        return snapshot;
      });
    },

    async claim(requests): Promise<ClaimResult[]> {
      checkClaims(requests);
      if (requests.length === 0) return [];
      // A tick sends one batch id: one statement. Mixed ids need one statement per claim.
      const single = requests.every((r) => r.batch === requests[0]?.batch);
      const statements = single ? [claimsStatement(requests)] : requests.map(claimStatement);
      const results = await op("claim", (c) => c.batch(statements, "write"));
      return claimOutcomes(requests, results.flatMap((result) => result.rows));
    },

    async update(key, patch): Promise<boolean> {
      checkUpdate(key, patch);
      const statement = updateStatement(key, patch);
      if (statement === null) return op("update", async (c) => (await c.execute(isRunningStatement(key))).rows.length > 0);
      const [result] = await op("update", (c) => c.batch([statement], "write"));
      return (result?.rows.length ?? 0) > 0;
    },

    async reap(now): Promise<RunRecord[]> {
      checkInstant(now, "reap.now");
      const [result] = await op("reap", (c) => c.batch([reapStatement(now, LEASE_EXPIRED)], "write"));
      return (result?.rows ?? []).map(runRecord);
    },

    async reclaim(key, node, now, leaseUntil, options): Promise<boolean> {
      const overlap = checkReclaim(key, node, now, leaseUntil, options);
      const [result] = await op("reclaim", (c) => c.batch([reclaimStatement(key, node, now, leaseUntil, overlap)], "write"));
      return (result?.rows.length ?? 0) > 0;
    },

    async getRun(job, slot): Promise<RunRecord | undefined> {
      checkText(job, "getRun.job");
      checkInstant(slot, "getRun.slot");
      const [row] = await one("getRun", `SELECT ${COLUMNS} FROM edgecron_runs WHERE job = ? AND slot = ?`, [job, slot]);
      return row;
    },

    async runs(job, query): Promise<RunRecord[]> {
      checkText(job, "runs.job");
      const { limit, before } = resolveRunQuery(query);
      return op("runs", async (c) => (await c.execute(runsStatement(job, limit, before))).rows.map(runRecord));
    },

    async lastOutcomes(names): Promise<Record<string, RunRecord>> {
      checkNames(names, "lastOutcomes.jobs");
      const rows = await op("lastOutcomes", async (c) => (await c.execute(lastOutcomesStatement(names))).rows);
      return Object.fromEntries(rows.map((row) => [String(row.job), runRecord(row)]));
    },

    async counts(names): Promise<Record<string, StatusCounts>> {
      checkNames(names, "counts.jobs");
      const rows = await op("counts", async (c) => (await c.execute(countsStatement(names))).rows);
      const result = new Map(names.map((name) => [name, zeroCounts()]));
      for (const row of rows) {
        const counts = result.get(String(row.job));
        if (counts) counts[String(row.status) as RunStatus] = Number(row.n);
      }
      return Object.fromEntries(result);
    },

    async setPaused(name, paused, now): Promise<void> {
      checkText(name, "setPaused.name");
      checkBoolean(paused, "setPaused.paused");
      checkInstant(now, "setPaused.now");
      await op("setPaused", (c) =>
        c.batch([{
          sql: `INSERT INTO edgecron_jobs (name, first_seen, paused) VALUES (?, ?, ?)
            ON CONFLICT (name) DO UPDATE SET paused = excluded.paused`,
          args: [name, now, paused ? 1 : 0],
        }], "write"));
    },

    ...libsqlDefs(op),

    ...libsqlSettings(op),

    async prune(before): Promise<number> {
      checkInstant(before, "prune.before");
      const [result] = await op("prune", (c) =>
        c.batch([{ sql: "DELETE FROM edgecron_runs WHERE status <> 'running' AND slot < ?", args: [before] }], "write"));
      return result?.rowsAffected ?? 0;
    },
  };
}
