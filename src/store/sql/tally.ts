/**
 * `tally()` of the SQL stores (libSQL, D1): two statements in one read that answer a
 * whole page of jobs as two rows, each holding a JSON array, so the driver builds two row
 * objects, not one per job and column (at 100 000 jobs the row objects of `read()` and
 * `overview()` cost more than SQLite's own work).
 */
import { BUFFER_FULL_ERRORS, setOwn, zeroCounts } from "../_validate.ts";
import { type JobTally, RUN_STATUSES, type RunStatus } from "../types.ts";
import type { SqlRow, SqlStatement } from "./executor.ts";
import { bind, FINISHED_ROWS, OPEN_ROWS } from "./statements.ts";

/** The buffer-full skip errors as an SQL list (fixed words, no input: a literal list is read once, not per row). */
const FULL_LIST = `(${BUFFER_FULL_ERRORS.map((e) => `'${e.replaceAll("'", "''")}'`).join(", ")})`;

/** The statuses of open rows (a lease, no outcome yet). */
const OPEN_STATUSES: readonly RunStatus[] = ["running", "cancelling", "buffered"];

/** An integer column, NULL for anything that is not an integer (a row edited by hand). */
const int = (column: string): string => `CASE WHEN typeof(${column}) = 'integer' THEN ${column} END`;

/**
 * `tally()`'s two statements, read in one transaction. Each answers ONE row of one column:
 * a JSON array built by SQLite as text, so the driver builds one row object, not one per
 * job, and `JSON.parse` reads numbers. The first: the indexes in `names` of the paused
 * jobs (most are not; every name has a tally, paused or not, known or not). The second,
 * one array per job and status: the job's name, the status's index in `RUN_STATUSES`,
 * its rows, its rows with a buffer-full error (skipped rows only, else 0), its slots with
 * a lease at or after `now` (open rows only, text `"slot,slot"`, else null), its newest
 * integer slot and that row's started and finished times (SQLite takes bare columns
 * from the row the group's one `MAX()` picked).
 *
 * Why this shape (at 100 000 jobs SQLite's work for it is most of a libSQL scrape's
 * store time): the groups come from the `edgecron_runs_tally` index alone, in its
 * order (the `IN` list is walked sorted), so no row is read from the table and none is
 * sorted; the columns only skipped and open groups need are read for those groups
 * alone; and each group is one `json_array`, not a string grown by `||` field by field.
 * About 40% fewer instructions than grouping by the name's position in `names`.
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
      `SELECT json_group_array(json_array(g.job, g.status, g.n, g.full, g.leases, g.slot, g.started, g.finished))
          AS tally FROM (
          SELECT c.job AS job, ${statusIndex} AS status, COUNT(*) AS n,
              CASE c.status WHEN 'skipped' THEN (SELECT COUNT(*) FROM edgecron_runs s
                WHERE s.job = c.job AND s.status = 'skipped' AND s.${FINISHED_ROWS} AND s.error IN ${FULL_LIST})
                ELSE 0 END AS full,
              NULL AS leases, MAX(${int("c.slot")}) AS slot, ${int("c.started_at")} AS started,
              ${int("c.finished_at")} AS finished
            FROM edgecron_runs c WHERE c.job IN (SELECT value FROM json_each(:names)) AND c.${FINISHED_ROWS}
            GROUP BY c.job, c.status
          UNION ALL
          SELECT c.job, ${statusIndex}, COUNT(*), 0, group_concat(CASE WHEN c.lease_until >= :now THEN c.slot END),
              NULL, NULL, NULL
            FROM edgecron_runs c WHERE c.job IN (SELECT value FROM json_each(:names)) AND c.${OPEN_ROWS}
            GROUP BY c.job, c.status) g`,
      { names: list, now },
    ),
  ];
}

const SKIPPED = RUN_STATUSES.indexOf("skipped");
const OPEN_INDEXES = new Set(OPEN_STATUSES.map((s) => RUN_STATUSES.indexOf(s)));

/** One group of the second statement: job, status index, rows, buffer-full rows, live slots, newest slot, its started and finished times. */
type Group = [string, number, number, number, string | null, number | null, number | null, number | null];

/**
 * Maps `tallyStatements`' two rows for `names` to `tally()`'s record (a name asked for
 * twice comes once). A group's name is a string SQLite just made, so hashing it to find
 * its job costs a pass over its characters: the groups come in the index's order, which
 * is the order of a sorted `names`, so each is first compared with the name it most
 * likely is (the previous group's, or the one after it) and only looked up on a miss.
 */
export function tallyOf(
  names: readonly string[],
  states: SqlRow | undefined,
  groups: SqlRow | undefined,
): Record<string, JobTally> {
  const result: Record<string, JobTally> = Object.create(null);
  // Per position in `names`: its job's tally and the position of the name's first copy.
  const tallies: JobTally[] = new Array(names.length);
  const first = new Map<string, number>();
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const seen = first.get(name);
    if (seen !== undefined) {
      tallies[i] = tallies[seen]!;
      continue;
    }
    first.set(name, i);
    const tally: JobTally = {
      paused: false,
      runningSince: undefined,
      last: undefined,
      counts: zeroCounts(),
      bufferFull: 0,
    };
    tallies[i] = tally;
    setOwn(result, name, tally);
  }
  for (const at of JSON.parse(String(states?.tally ?? "[]")) as number[]) {
    const tally = tallies[at];
    if (tally !== undefined) tally.paused = true;
  }
  // The newest finished row: of the job's finished statuses, the one whose newest slot is newest.
  const lastSlot = new Map<JobTally, number>();
  let p = 0;
  for (const group of JSON.parse(String(groups?.tally ?? "[]")) as Group[]) {
    const [name, index, n, full, leases, slot, startedAt, finishedAt] = group;
    if (names[p] !== name) {
      if (names[p + 1] === name) p++;
      else {
        const at = first.get(name);
        if (at === undefined) continue;
        p = at;
      }
    }
    const tally = tallies[p]!;
    const status = RUN_STATUSES[index];
    if (status === undefined) continue;
    tally.counts[status] = n;
    if (index === SKIPPED) tally.bufferFull = full;
    if (OPEN_INDEXES.has(index)) {
      for (const text of String(leases ?? "").split(",")) {
        const at = Number(text);
        if (text !== "" && Number.isSafeInteger(at) && (tally.runningSince === undefined || at < tally.runningSince)) {
          tally.runningSince = at;
        }
      }
      continue;
    }
    if (slot === null || startedAt === null || slot <= (lastSlot.get(tally) ?? -Infinity)) continue;
    lastSlot.set(tally, slot);
    tally.last = { status, startedAt, finishedAt };
  }
  return result;
}
