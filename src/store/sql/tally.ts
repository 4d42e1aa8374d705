/**
 * `tally()` of the SQL stores (libSQL, D1): two statements in one read that answer a
 * whole page of jobs as two rows, each holding a JSON array, so the driver builds two row
 * objects, not one per job and column (at 100 000 jobs the row objects of `read()` and
 * `overview()` cost more than SQLite's own work).
 */
import { BUFFER_FULL_ERRORS, setOwn, zeroCounts } from "../_validate.ts";
import { type JobTally, RUN_STATUSES, type RunStatus } from "../types.ts";
import type { SqlRow, SqlStatement } from "./executor.ts";
import { bind } from "./statements.ts";

/** The buffer-full skip errors as an SQL list (fixed words, no input: a literal list is read once, not per row). */
const FULL_LIST = `(${BUFFER_FULL_ERRORS.map((e) => `'${e.replaceAll("'", "''")}'`).join(", ")})`;

/** An integer column as JSON text: `null` for NULL or anything that is not an integer (a row edited by hand). */
const int = (column: string): string => `CASE WHEN typeof(${column}) = 'integer' THEN ${column} ELSE 'null' END`;

/**
 * `tally()`'s two statements, read in one transaction. Each answers ONE row of one column:
 * a JSON array built by SQLite as text, so the driver builds one row object, not one per
 * job, and `JSON.parse` reads numbers. The first: the indexes in `names` of the paused
 * jobs (most are not; every name has a tally, paused or not, known or not). The second,
 * grouped by job and status (each row read once): the name's index, the status's index
 * in `RUN_STATUSES`, its rows, its rows with a buffer-full error, its slots with a lease
 * at or after `now` (text, `"slot,slot"`: open rows only have one), its newest integer
 * slot and that row's started and finished times (SQLite takes bare columns from the row
 * the group's one `MAX()` picked).
 */
export function tallyStatements(names: readonly string[], now: number): [SqlStatement, SqlStatement] {
  const list = JSON.stringify(names);
  const statusIndex = `CASE c.status ${RUN_STATUSES.map((s, i) => `WHEN '${s}' THEN ${i}`).join(" ")} ELSE -1 END`;
  return [
    bind(
      `SELECT '[' || COALESCE(group_concat(n.key, ','), '') || ']' AS tally
        FROM json_each(:names) n JOIN edgecron_jobs j ON j.name = n.value WHERE j.paused = 1`,
      { names: list },
    ),
    bind(
      `SELECT '[' || COALESCE(group_concat(g.t, ','), '') || ']' AS tally FROM (
          SELECT n.key || ',' || ${statusIndex} || ',' || COUNT(*) || ',' ||
              COUNT(CASE WHEN c.error IN ${FULL_LIST} THEN 1 END) || ',' ||
              COALESCE('"' || group_concat(CASE WHEN c.lease_until >= :now THEN c.slot END) || '"', 'null') || ',' ||
              COALESCE(MAX(CASE WHEN typeof(c.slot) = 'integer' THEN c.slot END), 'null') || ',' ||
              ${int("c.started_at")} || ',' || ${int("c.finished_at")} AS t
            FROM json_each(:names) n JOIN edgecron_runs c ON c.job = n.value
            GROUP BY n.key, c.status) g`,
      { names: list, now },
    ),
  ];
}

const SKIPPED = RUN_STATUSES.indexOf("skipped");
const OPEN_INDEXES = new Set(["running", "cancelling", "buffered"].map((s) => RUN_STATUSES.indexOf(s as RunStatus)));
const GROUP = 8;

/** Maps `tallyStatements`' two rows for `names` to `tally()`'s record (a name asked for twice comes once). */
export function tallyOf(
  names: readonly string[],
  states: SqlRow | undefined,
  groups: SqlRow | undefined,
): Record<string, JobTally> {
  const byIndex: JobTally[] = names.map(() => ({
    paused: false,
    runningSince: undefined,
    last: undefined,
    counts: zeroCounts(),
    bufferFull: 0,
  }));
  for (const at of JSON.parse(String(states?.tally ?? "[]")) as number[]) {
    const tally = byIndex[at];
    if (tally !== undefined) tally.paused = true;
  }
  // The newest finished row: of the job's finished statuses, the one whose newest slot is newest.
  const lastSlot: number[] = [];
  const values = JSON.parse(String(groups?.tally ?? "[]")) as (number | string | null)[];
  for (let at = 0; at + GROUP <= values.length; at += GROUP) {
    const key = values[at] as number;
    const tally = byIndex[key];
    const index = values[at + 1] as number;
    const status = RUN_STATUSES[index];
    if (tally === undefined || status === undefined) continue;
    tally.counts[status] = values[at + 2] as number;
    if (index === SKIPPED) tally.bufferFull = values[at + 3] as number;
    if (OPEN_INDEXES.has(index)) {
      for (const text of String(values[at + 4] ?? "").split(",")) {
        const slot = Number(text);
        if (
          text !== "" && Number.isSafeInteger(slot) && (tally.runningSince === undefined || slot < tally.runningSince)
        ) {
          tally.runningSince = slot;
        }
      }
      continue;
    }
    const slot = values[at + 5], startedAt = values[at + 6], finishedAt = values[at + 7];
    if (typeof slot !== "number" || typeof startedAt !== "number" || slot <= (lastSlot[key] ?? -Infinity)) continue;
    lastSlot[key] = slot;
    tally.last = { status, startedAt, finishedAt: typeof finishedAt === "number" ? finishedAt : null };
  }
  const result: Record<string, JobTally> = Object.create(null);
  byIndex.forEach((tally, i) => setOwn(result, names[i]!, tally));
  return result;
}
