/** The read-only methods of the Postgres store: rows, history, counts and the one-snapshot `overview()`. */
import {
  checkInstant,
  checkNames,
  checkText,
  resolveOverviewQuery,
  resolveRunQuery,
  setOwn,
  zeroCounts,
} from "../_validate.ts";
import { runRecord } from "../sql/statements.ts";
import type { JobOverview, RunRecord, RunStatus, StatusCounts, Store } from "../types.ts";
import type { PgConnection } from "./connection.ts";
import type { PgRow } from "./driver.ts";
import type { PgTables } from "./schema.ts";
import {
  bufferFullStatement,
  countsStatement,
  getRunStatement,
  lastOutcomesStatement,
  recentStatement,
  runsStatement,
} from "./statements.ts";

type Reads = Pick<Store, "getRun" | "runs" | "lastOutcomes" | "counts" | "overview">;

function tally(names: readonly string[], rows: readonly PgRow[]): Record<string, StatusCounts> {
  const result: Record<string, StatusCounts> = {};
  for (const name of names) setOwn(result, name, zeroCounts());
  for (const row of rows) {
    const counts = Object.hasOwn(result, String(row.job)) ? result[String(row.job)] : undefined;
    if (counts) counts[String(row.status) as RunStatus] = Number(row.n);
  }
  return result;
}

/** The read methods over `db`; `ready` runs before each call (init on first use). */
export function pgReads(db: PgConnection, t: PgTables, ensureReady: () => Promise<void>): Reads {
  return {
    async getRun(job, slot): Promise<RunRecord | undefined> {
      checkText(job, "getRun.job");
      checkInstant(slot, "getRun.slot");
      await ensureReady();
      return (await db.one("getRun", getRunStatement(t, job, slot), "read")).map(runRecord)[0];
    },

    async runs(job, query): Promise<RunRecord[]> {
      checkText(job, "runs.job");
      const { limit, before } = resolveRunQuery(query);
      await ensureReady();
      return (await db.one("runs", runsStatement(t, job, limit, before), "read")).map(runRecord);
    },

    async lastOutcomes(names): Promise<Record<string, RunRecord>> {
      checkNames(names, "lastOutcomes.jobs");
      await ensureReady();
      const result: Record<string, RunRecord> = {};
      for (const row of await db.one("lastOutcomes", lastOutcomesStatement(t, names), "read")) {
        const run = runRecord(row);
        setOwn(result, run.job, run);
      }
      return result;
    },

    async counts(names): Promise<Record<string, StatusCounts>> {
      checkNames(names, "counts.jobs");
      await ensureReady();
      return tally(names, await db.one("counts", countsStatement(t, names), "read"));
    },

    async overview(names, query): Promise<Record<string, JobOverview>> {
      checkNames(names, "overview.names");
      const { since, perJob } = resolveOverviewQuery(query);
      await ensureReady();
      const [last = [], counts = [], recent = [], full = []] = await db.many("overview", [
        lastOutcomesStatement(t, names),
        countsStatement(t, names),
        recentStatement(t, names, since, perJob),
        bufferFullStatement(t, names),
      ], "read");
      const countsOf = tally(names, counts);
      const result: Record<string, JobOverview> = Object.create(null);
      for (const name of names) {
        result[name] = { last: undefined, counts: countsOf[name] ?? zeroCounts(), recent: [], bufferFull: 0 };
      }
      for (const row of full) {
        const view = Object.hasOwn(result, String(row.job)) ? result[String(row.job)] : undefined;
        if (view) view.bufferFull = Number(row.n);
      }
      for (const row of last) {
        const view = result[String(row.job)];
        if (view) view.last = runRecord(row);
      }
      // Newest slot first per job: the statement orders by job, then slot descending.
      for (const row of recent) result[String(row.job)]?.recent.push(runRecord(row));
      return result;
    },
  };
}
