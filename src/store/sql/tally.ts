/**
 * `tally()` of the SQL stores (libSQL, D1): one statement that answers a whole page of
 * jobs as one row of two JSON arrays, so the driver builds one row object, not one per
 * job and column (at 100 000 jobs the row objects of `read()` and `overview()` cost more
 * than SQLite's own work).
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
 * `tally()`'s statement: ONE row of two columns, each a JSON array built by SQLite as
 * text, so the driver builds one row object, not one per job, and `JSON.parse` reads
 * numbers. One statement reads one consistent view, so no read transaction is opened.
 * `paused`: the names of the paused jobs (most are not; every name has a tally, paused
 * or not, known or not). `tally`, one array per job and status: the job's name, the
 * status's index in `RUN_STATUSES`, its rows, its rows with a buffer-full error (skipped
 * rows only, else 0), its slots with a lease at or after `now` (open rows only, text
 * `"slot,slot"`, else null), its newest integer slot and that row's started and finished
 * times (SQLite takes bare columns from the row the group's one `MAX()` picked).
 *
 * Why this shape (at 100 000 jobs SQLite's work for it is most of a libSQL scrape's
 * store time): the groups come from the `edgecron_runs_tally` index alone, in its
 * order, so no row is read from the table and none is sorted; the columns only skipped
 * and open groups need are read for those groups alone; and each group is one
 * `json_array`, not a string grown by `||` field by field.
 *
 * A page of many names (a scrape's: consecutive jobs in name order) is read as the
 * range from its least to its greatest name: one walk along each index instead of a
 * seek per name through a `json_each` list (at 1 000 names a page, the group part took
 * 166-327 ms per 100 pages instead of 414-514 ms, the paused part 20-33 instead of 81-97). The range may hold jobs not asked for (rows of a job this node does not
 * know); `tallyOf()` drops their groups, and pages of one scrape never overlap, so a
 * scrape reads each index entry at most once. A name beyond U+FFFF (whose UTF-8 and
 * UTF-16 orders may differ) sends its page through the list, as do pages of a few
 * names, which may lie far apart.
 */
export function tallyStatement(names: readonly string[], now: number): SqlStatement {
  const statusIndex = `CASE c.status ${RUN_STATUSES.map((s, i) => `WHEN '${s}' THEN ${i}`).join(" ")} ELSE -1 END`;
  const range = rangeOf(names);
  const where = (column: string): string =>
    range === undefined ? `${column} IN (SELECT value FROM json_each(:names))` : `${column} BETWEEN :lo AND :hi`;
  return bind(
    `SELECT (SELECT json_group_array(j.name) FROM edgecron_jobs j WHERE ${where("j.name")} AND j.paused = 1)
        AS paused,
      (SELECT json_group_array(json_array(g.job, g.status, g.n, g.full, g.leases, g.slot, g.started, g.finished))
        FROM (
          SELECT c.job AS job, ${statusIndex} AS status, COUNT(*) AS n,
              CASE c.status WHEN 'skipped' THEN (SELECT COUNT(*) FROM edgecron_runs s
                WHERE s.job = c.job AND s.status = 'skipped' AND s.${FINISHED_ROWS} AND s.error IN ${FULL_LIST})
                ELSE 0 END AS full,
              NULL AS leases, MAX(${int("c.slot")}) AS slot, ${int("c.started_at")} AS started,
              ${int("c.finished_at")} AS finished
            FROM edgecron_runs c WHERE ${where("c.job")} AND c.${FINISHED_ROWS}
            GROUP BY c.job, c.status
          UNION ALL
          SELECT c.job, ${statusIndex}, COUNT(*), 0, group_concat(CASE WHEN c.lease_until >= :now THEN c.slot END),
              NULL, NULL, NULL
            FROM edgecron_runs c WHERE ${where("c.job")} AND c.${OPEN_ROWS}
            GROUP BY c.job, c.status) g) AS tally`,
    range === undefined ? { names: JSON.stringify(names), now } : { lo: range[0], hi: range[1], now },
  );
}

/**
 * A surrogate: a character beyond U+FFFF, which UTF-8 (SQLite's BINARY) sorts after
 * U+E000-U+FFFF and UTF-16 (JavaScript) before. Names without one order alike in both.
 */
const UNORDERED = /[\ud800-\udfff]/;

/** Pages this long or longer are read as a range (fewer may be a few names far apart). */
export const RANGE_MIN = 32;

/** The least and greatest of `names`, when they are many and every one orders alike in SQLite and JavaScript. */
function rangeOf(names: readonly string[]): [string, string] | undefined {
  if (names.length < RANGE_MIN) return undefined;
  let lo = names[0]!, hi = lo;
  for (const name of names) {
    if (UNORDERED.test(name)) return undefined;
    if (name < lo) lo = name;
    else if (name > hi) hi = name;
  }
  return [lo, hi];
}

/** How long one tally statement on an embedded engine should hold the event loop, in ms. */
export const TALLY_TARGET_MS = 20;
/** Names of the first tally statement on an embedded engine: small, since the history's size is not known yet. */
export const TALLY_FIRST_PART = 64;
/**
 * The most names per tally statement: a power of two above a scrape's page (1 000 names and
 * the next page's first), so that doubling from `TALLY_FIRST_PART` reaches a size that
 * takes a whole page in one statement (a cap of 1 000 split every page in two).
 */
export const TALLY_MAX_PART = 2_048;

/** How many names the next tally statement takes, learnt from the time the last ones took. */
export interface TallyPace {
  readonly size: number;
  /** A statement of `names` names took `ms`. */
  observe(names: number, ms: number): void;
}

/**
 * The pace of `tally()` on an engine that steps statements on the event loop's thread.
 * SQLite's part of a tally walks every retained row of the page's jobs (about 0.24 µs a
 * row on a libSQL file): 1 000 jobs with 7 days of minutely history held the loop for
 * seconds in one statement. The size starts small, shrinks to what fits about
 * `TALLY_TARGET_MS` after a slow statement and doubles after a fast one that was full.
 *
 * @example
 * const pace = createTallyPace();
 * pace.observe(64, 400); // 64 names took 400 ms
 * pace.size; // 3
 */
export function createTallyPace(): TallyPace {
  let size = TALLY_FIRST_PART;
  return {
    get size() {
      return size;
    },
    observe(names, ms) {
      if (ms > 2 * TALLY_TARGET_MS) size = Math.max(1, Math.floor((names * TALLY_TARGET_MS) / ms));
      else if (ms < TALLY_TARGET_MS / 2 && names >= size) size = Math.min(TALLY_MAX_PART, size * 2);
    },
  };
}

const SKIPPED = RUN_STATUSES.indexOf("skipped");
const OPEN_INDEXES = new Set(OPEN_STATUSES.map((s) => RUN_STATUSES.indexOf(s)));

/** One group of the second statement: job, status index, rows, buffer-full rows, live slots, newest slot, its started and finished times. */
type Group = [string, number, number, number, string | null, number | null, number | null, number | null];

/**
 * Maps `tallyStatement`'s row for `names` to `tally()`'s record (a name asked for twice
 * comes once; a group or paused name not asked for is dropped). A group's name is a
 * string SQLite just made, so hashing it to find its job costs a pass over its
 * characters: the groups come in the index's order, which is the order of a sorted
 * `names`, so each is first compared with the name it most likely is (the previous
 * group's, or the one after it) and only looked up on a miss.
 */
export function tallyOf(
  names: readonly string[],
  row: SqlRow | undefined,
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
  for (const name of JSON.parse(String(row?.paused ?? "[]")) as string[]) {
    const at = first.get(name);
    if (at !== undefined) tallies[at]!.paused = true;
  }
  // The newest finished row: of the job's finished statuses, the one whose newest slot is newest.
  const lastSlot = new Map<JobTally, number>();
  let p = 0;
  for (const group of JSON.parse(String(row?.tally ?? "[]")) as Group[]) {
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
