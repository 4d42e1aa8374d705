/**
 * The read-only methods of the SQL stores (libSQL, D1): rows, history, counts and the
 * one-read `overview()` and `tally()`. None of them writes.
 */
import {
  checkInstant,
  checkNames,
  checkText,
  resolveOverviewQuery,
  resolveRunQuery,
  setOwn,
  zeroCounts,
} from "../_validate.ts";
import type { JobOverview, JobTally, RunRecord, RunStatus, StatusCounts, Store } from "../types.ts";
import type { SqlExecutor, SqlRow, SqlStatement } from "./executor.ts";
import {
  bufferFullStatement,
  COLUMNS,
  countsStatement,
  instantColumn,
  lastOutcomesStatement,
  recentStatement,
  runRecord,
  runsStatement,
} from "./statements.ts";
import { createTallyPace, tallyOf, tallyStatement } from "./tally.ts";
import { nextTurn } from "../_turn.ts";

// A row whose slot is not an instant (edited by hand) is left out of reads: its job is
// marked broken by the snapshot, and no reader has to cope with a slot that is not a number.
const readable = (row: SqlRow): boolean => instantColumn(row.slot) !== undefined;

type Reads = Pick<Store, "getRun" | "runs" | "lastOutcomes" | "counts" | "overview" | "tally">;

/** Tallies `job, status, n` rows into per-job counts (every name present, all zero to start). */
function tally(names: readonly string[], rows: readonly SqlRow[]): Record<string, StatusCounts> {
  const result: Record<string, StatusCounts> = {};
  for (const name of names) setOwn(result, name, zeroCounts());
  for (const row of rows) {
    const counts = Object.hasOwn(result, String(row.job)) ? result[String(row.job)] : undefined;
    if (counts) counts[String(row.status) as RunStatus] = Number(row.n);
  }
  return result;
}

/** The read methods over `db`; `ready` runs before each call (init on first use). */
export function sqlReads(db: SqlExecutor, ready: () => Promise<void>): Reads {
  const rowsOf = async (operation: string, statement: SqlStatement): Promise<RunRecord[]> => {
    await ready();
    const [result] = await db.read(operation, [statement]);
    return (result?.rows ?? []).filter(readable).map(runRecord);
  };

  // On an embedded engine a tally goes in parts sized to the history (`createTallyPace`).
  const pace = createTallyPace();
  const tallyInParts = async (names: readonly string[], now: number): Promise<Record<string, JobTally>> => {
    // In name order, so each part is a short range of the index (a page of a scrape is already).
    const sorted = [...new Set(names)].sort();
    const out: Record<string, JobTally> = Object.create(null);
    for (let at = 0; at < sorted.length;) {
      if (at > 0) await nextTurn();
      const part = sorted.slice(at, at + pace.size);
      at += part.length;
      const started = Date.now();
      const [result] = await db.read("tally", [tallyStatement(part, now)]);
      pace.observe(part.length, Date.now() - started);
      const tallies = tallyOf(part, result?.rows[0]);
      for (const name of part) setOwn(out, name, tallies[name]!);
    }
    return out;
  };

  return {
    async getRun(job, slot): Promise<RunRecord | undefined> {
      checkText(job, "getRun.job");
      checkInstant(slot, "getRun.slot");
      const [row] = await rowsOf("getRun", {
        sql: `SELECT ${COLUMNS} FROM edgecron_runs WHERE job = ? AND slot = ?`,
        args: [job, slot],
      });
      return row;
    },

    async runs(job, query): Promise<RunRecord[]> {
      checkText(job, "runs.job");
      const { limit, before } = resolveRunQuery(query);
      return rowsOf("runs", runsStatement(job, limit, before));
    },

    async lastOutcomes(names): Promise<Record<string, RunRecord>> {
      checkNames(names, "lastOutcomes.jobs");
      const result: Record<string, RunRecord> = {};
      for (const row of await rowsOf("lastOutcomes", lastOutcomesStatement(names))) setOwn(result, row.job, row);
      return result;
    },

    async counts(names): Promise<Record<string, StatusCounts>> {
      checkNames(names, "counts.jobs");
      await ready();
      const [result] = await db.read("counts", [countsStatement(names)]);
      return tally(names, result?.rows ?? []);
    },

    async overview(names, query): Promise<Record<string, JobOverview>> {
      checkNames(names, "overview.names");
      const { since, perJob } = resolveOverviewQuery(query);
      await ready();
      const [last, counts, recent, full] = await db.read("overview", [
        lastOutcomesStatement(names),
        countsStatement(names),
        recentStatement(names, since, perJob),
        bufferFullStatement(names),
      ]);
      const countsOf = tally(names, counts?.rows ?? []);
      const result: Record<string, JobOverview> = Object.create(null);
      for (const name of names) {
        result[name] = { last: undefined, counts: countsOf[name] ?? zeroCounts(), recent: [], bufferFull: 0 };
      }
      for (const row of full?.rows ?? []) {
        const view = Object.hasOwn(result, String(row.job)) ? result[String(row.job)] : undefined;
        if (view) view.bufferFull = Number(row.n);
      }
      for (const row of last?.rows ?? []) {
        const view = result[String(row.job)];
        if (view && readable(row)) view.last = runRecord(row);
      }
      // Newest slot first per job: the statement orders by job, then slot descending.
      for (const row of recent?.rows ?? []) if (readable(row)) result[String(row.job)]?.recent.push(runRecord(row));
      return result;
    },

    async tally(names, now): Promise<Record<string, JobTally>> {
      checkNames(names, "tally.names");
      checkInstant(now, "tally.now");
      await ready();
      if (db.blocking === true) return await tallyInParts(names, now);
      const [result] = await db.read("tally", [tallyStatement(names, now)]);
      return tallyOf(names, result?.rows[0]);
    },
  };
}
