/**
 * `tally()` of the SQL stores (libSQL, D1): one statement that answers a whole page of
 * jobs as ONE row holding a JSON array, so the driver builds one row object, not one per
 * job and column (at 100 000 jobs the row objects of `read()` and `overview()` cost
 * more than SQLite's own work).
 */
import { BUFFER_FULL_ERRORS, setOwn, zeroCounts } from "../_validate.ts";
import { type JobTally, RUN_STATUSES, type RunStatus } from "../types.ts";
import type { SqlRow, SqlStatement } from "./executor.ts";
import { bind } from "./statements.ts";

const OPEN = "('running', 'cancelling', 'buffered')";
/** The buffer-full skip errors as an SQL list (fixed words, no input: a literal list is read once, not per row). */
const FULL_LIST = `(${BUFFER_FULL_ERRORS.map((e) => `'${e.replaceAll("'", "''")}'`).join(", ")})`;

/** An integer column as JSON text: `null` for NULL or anything that is not an integer (a row edited by hand). */
const int = (column: string): string => `CASE WHEN typeof(${column}) = 'integer' THEN ${column} ELSE 'null' END`;

/**
 * Per named job, a run of numbers in one JSON array (built by SQLite as text, so the
 * driver returns one row of one column, and `JSON.parse` reads numbers only): the name's
 * index in `names`, paused (0/1), its oldest open slot with a lease at or after `now`,
 * the number of statuses it has rows in, then per status five numbers: the status's index
 * in `RUN_STATUSES`, its rows, its rows with a buffer-full error, and its newest slot's
 * started and finished times (SQLite takes bare columns from the row `MAX()` picked).
 * Grouping by status reads each row once; every part is an index lookup or a range on the
 * job's primary-key prefix.
 */
export function tallyStatement(names: readonly string[], now: number): SqlStatement {
  const statusIndex = `CASE c.status ${RUN_STATUSES.map((s, i) => `WHEN '${s}' THEN ${i}`).join(" ")} ELSE -1 END`;
  return bind(
    `SELECT '[' || COALESCE(group_concat(n.key || ',' ||
        COALESCE((SELECT j.paused FROM edgecron_jobs j WHERE j.name = n.value), 0) || ',' ||
        COALESCE((SELECT MIN(o.slot) FROM edgecron_runs o
          WHERE o.job = n.value AND o.status IN ${OPEN} AND o.lease_until >= :now), 'null') || ',' ||
        COALESCE((SELECT COUNT(*) || ',' || group_concat(g.t, ',') FROM (
            SELECT ${statusIndex} || ',' || COUNT(*) || ',' ||
                COUNT(CASE WHEN c.error IN ${FULL_LIST} THEN 1 END) || ',' ||
                COALESCE(MAX(CASE WHEN typeof(c.slot) = 'integer' THEN c.slot END), 'null') || ',' ||
                ${int("c.started_at")} || ',' || ${int("c.finished_at")} AS t
              FROM edgecron_runs c WHERE c.job = n.value GROUP BY c.status) g), '0'), ','), '') || ']' AS tally
      FROM json_each(:names) n`,
    { names: JSON.stringify(names), now },
  );
}

const SKIPPED = RUN_STATUSES.indexOf("skipped");
const OPEN_INDEXES = new Set(["running", "cancelling", "buffered"].map((s) => RUN_STATUSES.indexOf(s as RunStatus)));

/** Maps `tallyStatement`'s row for `names` to `tally()`'s record (a name asked for twice comes once). */
export function tallyOf(names: readonly string[], row: SqlRow | undefined): Record<string, JobTally> {
  const result: Record<string, JobTally> = Object.create(null);
  const values = JSON.parse(String(row?.tally ?? "[]")) as (number | null)[];
  let at = 0;
  while (at + 4 <= values.length) {
    const name = names[values[at]!];
    const paused = values[at + 1] === 1;
    const runningSince = values[at + 2] ?? undefined;
    const groups = values[at + 3] ?? 0;
    at += 4;
    const counts = zeroCounts();
    let bufferFull = 0;
    let last: JobTally["last"];
    let lastSlot = -Infinity;
    for (let g = 0; g < groups; g++, at += 6) {
      const index = values[at] ?? -1;
      const status = RUN_STATUSES[index];
      if (status === undefined) continue;
      counts[status] = values[at + 1] ?? 0;
      if (index === SKIPPED) bufferFull = values[at + 2] ?? 0;
      // The newest finished row: the finished status whose newest slot is the newest.
      const slot = values[at + 3], startedAt = values[at + 4];
      if (OPEN_INDEXES.has(index) || slot === null || slot === undefined || slot <= lastSlot) continue;
      if (startedAt === null || startedAt === undefined) continue;
      lastSlot = slot;
      last = { status, startedAt, finishedAt: values[at + 5] ?? null };
    }
    if (name === undefined) continue;
    setOwn(result, name, { paused, runningSince, last, counts, bufferFull });
  }
  return result;
}
