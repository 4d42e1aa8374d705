/** The memory store's `overview()` and `tally()`: last outcome, counts and recent rows per job, read-only. */
import { BUFFER_FULL_ERRORS, checkInstant, checkNames, resolveOverviewQuery, zeroCounts } from "../_validate.ts";
import { isOpenStatus } from "../_overlap.ts";
import type { JobOverview, JobTally, Store } from "../types.ts";
import { publicRecord, type Row, type RunTable } from "./runs.ts";

/** Builds `overview()` over `table`; `guard` throws while the store is set to fail. */
export function createOverview(table: RunTable, guard: (operation: string) => void): Store["overview"] {
  return async (names, query): Promise<Record<string, JobOverview>> => {
    guard("overview");
    checkNames(names, "overview.names");
    const { since, perJob: limit } = resolveOverviewQuery(query);
    // Job names come from users: a null-prototype record keeps `__proto__` an ordinary key.
    const result: Record<string, JobOverview> = Object.create(null);
    for (const name of names) {
      const counts = zeroCounts();
      let bufferFull = 0;
      let last;
      const recent = [];
      for (const row of table.rows(name)) {
        counts[row.status] += 1;
        if (row.status === "skipped" && row.error !== null && BUFFER_FULL_ERRORS.includes(row.error)) bufferFull += 1;
        if (!isOpenStatus(row.status) && (last === undefined || row.slot > last.slot)) last = row;
        if (row.slot >= since) recent.push(row);
      }
      recent.sort((a, b) => b.slot - a.slot);
      result[name] = {
        last: last === undefined ? undefined : publicRecord(last),
        counts,
        recent: recent.slice(0, limit).map(publicRecord),
        bufferFull,
      };
    }
    return result;
  };
}

/** Builds `tally()` over `table`; `paused` reads a job's flag (false when unknown). */
export function createTally(
  table: RunTable,
  guard: (operation: string) => void,
  paused: (name: string) => boolean,
): Store["tally"] {
  return async (names, now): Promise<Record<string, JobTally>> => {
    guard("tally");
    checkNames(names, "tally.names");
    checkInstant(now, "tally.now");
    const result: Record<string, JobTally> = Object.create(null);
    for (const name of names) {
      const counts = zeroCounts();
      let bufferFull = 0;
      let last: Row | undefined;
      for (const row of table.rows(name)) {
        counts[row.status] += 1;
        if (row.status === "skipped" && row.error !== null && BUFFER_FULL_ERRORS.includes(row.error)) bufferFull += 1;
        if (!isOpenStatus(row.status) && (last === undefined || row.slot > last.slot)) last = row;
      }
      let runningSince: number | undefined;
      for (const row of table.runningOf(name)) {
        if (
          row.leaseUntil !== null && row.leaseUntil >= now && (runningSince === undefined || row.slot < runningSince)
        ) {
          runningSince = row.slot;
        }
      }
      result[name] = {
        paused: paused(name),
        runningSince,
        last: last === undefined
          ? undefined
          : { status: last.status, startedAt: last.startedAt, finishedAt: last.finishedAt },
        counts,
        bufferFull,
      };
    }
    return result;
  };
}
