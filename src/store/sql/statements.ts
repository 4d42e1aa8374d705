/**
 * The SQL shared by the libSQL and D1 stores: statements with bound parameters only,
 * and the mapping from result rows to records. Job names go in as ONE JSON array
 * parameter read with `json_each`, so a tick over 10 000 jobs never hits SQLite's
 * bound-parameter limit (D1 allows 100 per statement).
 */
import { quote } from "../../core/errors.ts";
import type {
  AttemptKey,
  EnqueueRequest,
  JobDef,
  LeaseRenewal,
  PromoteRequest,
  RunRecord,
  RunStatus,
} from "../types.ts";
import type { SqlResult, SqlRow, SqlStatement, SqlValue } from "./executor.ts";
import { BUFFER_FULL_ERRORS, COUNTED_SQL_LIST } from "../_validate.ts";

/** The run columns, in `RunRecord` order. */
export const COLUMNS =
  "job, slot, kind, status, attempt, node, claimed_at, started_at, finished_at, lease_until, error";

/**
 * Turns `:name` placeholders into numbered `?N` ones with a positional argument list.
 * SQL stays readable, and positional binding means the same thing to the embedded
 * driver, the Hrana protocol (Turso, sqld) and D1, which treat name prefixes differently.
 */
export function bind(sql: string, args: Record<string, SqlValue>): SqlStatement {
  const order: string[] = [];
  const text = sql.replace(/:([a-z_]+)/g, (_, name: string) => {
    if (!(name in args)) throw new TypeError(`edgecron: SQL placeholder :${name} has no value`);
    if (!order.includes(name)) order.push(name);
    return `?${order.indexOf(name) + 1}`;
  });
  return { sql: text, args: order.map((name) => args[name] ?? null) };
}

const num = (value: unknown): number => Number(value);
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** Maps a row selected with the run columns to a `RunRecord`. */
export function runRecord(row: SqlRow): RunRecord {
  return {
    job: String(row.job),
    slot: num(row.slot),
    kind: String(row.kind) as RunRecord["kind"],
    status: String(row.status) as RunStatus,
    attempt: num(row.attempt),
    node: String(row.node),
    claimedAt: num(row.claimed_at),
    startedAt: num(row.started_at),
    finishedAt: numOrNull(row.finished_at),
    leaseUntil: numOrNull(row.lease_until),
    error: row.error === null || row.error === undefined ? null : String(row.error),
  };
}

/**
 * Maps a definition row to a `JobDef`. A row edited by hand into something unreadable
 * (a `spec` that is not a JSON object) comes back `broken`, naming the row and the
 * column, so that job alone is disabled; it never throws.
 */
export function jobDef(row: SqlRow, label = "libsql"): JobDef {
  const name = String(row.name);
  const def: JobDef = { name, spec: {}, version: num(row.version), updatedAt: num(row.updated_at) };
  try {
    const spec: unknown = JSON.parse(String(row.spec));
    if (typeof spec === "object" && spec !== null && !Array.isArray(spec)) def.spec = spec as Record<string, unknown>;
    else def.broken = `${label}: edgecron_defs row ${quote(name)}: column spec is not a JSON object`;
  } catch (e) {
    def.broken = `${label}: edgecron_defs row ${quote(name)}: column spec is not valid JSON (${
      e instanceof Error ? e.message : String(e)
    })`;
  }
  return def;
}

/**
 * A stored instant column as a number; undefined when it is not an integer (text where a
 * number belongs). Integer text is accepted: some drivers return BIGINT as a string.
 */
export function instantColumn(value: unknown): number | undefined {
  const n = typeof value === "number"
    ? value
    : typeof value === "bigint" || (typeof value === "string" && /^-?\d{1,16}$/.test(value))
    ? Number(value)
    : Number.NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The open-row term: word for word the WHERE of the `edgecron_runs_open` index (schema version 5), so SQLite uses it. */
export const OPEN_ROWS = "status IN ('running', 'cancelling', 'buffered')";
/** Finished rows, as `edgecron_runs_tally`'s WHERE says it (word for word, or SQLite will not use the index). */
export const FINISHED_ROWS = "status NOT IN ('running', 'cancelling', 'buffered')";

/**
 * Names per statement of `snapshot()`: at 100 000 jobs one statement over every name
 * blocked the event loop for 3 s in the embedded driver (SQLite's work and the driver's
 * row objects); a page of this many is about 10–30 ms on a loaded 2-core machine.
 */
export const SNAPSHOT_PAGE = 1_000;

/**
 * Writes per transaction of `updateMany()`: a tick's outcomes at 100 000 jobs were one
 * statement of up to 20 000 rows, a block of about 1 s in the embedded driver (its work
 * is synchronous); a part of this many is about 50 ms, with a turn of the event loop
 * between parts.
 */
export const UPDATE_PART = 1_000;

/**
 * The first read of `snapshot()` (one read transaction): the states with watermarks of
 * the first page of names, every definition and every open row. The definitions and
 * open rows are read once per snapshot; later pages read states only
 * (`snapshotPageStatement`).
 */
export function snapshotReadStatements(names: readonly string[]): SqlStatement[] {
  return [
    snapshotPageStatement(names),
    { sql: "SELECT name, spec, version, updated_at FROM edgecron_defs ORDER BY name", args: [] },
    { sql: `SELECT ${COLUMNS} FROM edgecron_runs WHERE ${OPEN_ROWS}`, args: [] },
  ];
}

/** The states with watermarks of one page of `snapshot()`'s names. */
export function snapshotPageStatement(names: readonly string[]): SqlStatement {
  return bind(jobStatesSql, { names: JSON.stringify(names) });
}

/**
 * `snapshot()` for a page with a name that has no state row yet (one write transaction):
 * insert the missing rows with firstSeen = now, then read the page's states.
 */
export function snapshotWriteStatements(names: readonly string[], now: number): SqlStatement[] {
  return [
    bind(
      `INSERT INTO edgecron_jobs (name, first_seen, paused)
        SELECT value, :now, 0 FROM json_each(:names) WHERE true
        ON CONFLICT (name) DO NOTHING`,
      { names: JSON.stringify(names), now },
    ),
    snapshotPageStatement(names),
  ];
}

/**
 * The statements of `read()`: the named jobs only (states, definitions, open rows), each
 * an index lookup per name, so a page of a large job list costs a page.
 */
export function readStatements(names: readonly string[]): SqlStatement[] {
  const list = JSON.stringify(names);
  return [
    bind(jobStatesSql, { names: list }),
    bind(
      `SELECT name, spec, version, updated_at FROM edgecron_defs
        WHERE name IN (SELECT value FROM json_each(:names)) ORDER BY name`,
      { names: list },
    ),
    bind(
      `SELECT ${COLUMNS} FROM edgecron_runs WHERE job IN (SELECT value FROM json_each(:names)) AND ${OPEN_ROWS}`,
      { names: list },
    ),
  ];
}

/** A column as JSON can hold it: a BLOB (a broken row) as its hex text, which names it in the job's error. */
const jsonable = (column: string): string => `iif(typeof(${column}) = 'blob', hex(${column}), ${column})`;

/** The order of a state's fields in each array of {@link jobStatesSql}'s `states`. */
const STATE_FIELDS = [
  "name",
  "first_seen",
  "paused",
  "pause_note",
  "paused_at",
  "paused_by",
  "pruned_runs",
  "watermark",
] as const;

/**
 * The named jobs' states with their watermark (`snapshot()` pages and `read()`), as ONE row
 * whose `states` is a JSON array of arrays in {@link STATE_FIELDS} order: the embedded
 * driver builds a row object property by property, and 2 500 rows of eight columns cost
 * about 20 ms of CPU a snapshot where the one string parses in 5. Exported so a test can
 * show the plan uses the index.
 */
export const jobStatesSql = `SELECT json_group_array(json_array(${STATE_FIELDS.map(jsonable).join(", ")})) AS states
  FROM (SELECT j.name, j.first_seen, j.paused, j.pause_note, j.paused_at, j.paused_by, j.pruned_runs,
      (SELECT MAX(r.slot) FROM edgecron_runs r WHERE r.job = j.name AND r.kind = 'scheduled') AS watermark
    FROM edgecron_jobs j WHERE j.name IN (SELECT value FROM json_each(:names)))`;

/** The state rows of a {@link jobStatesSql} result, each an array in {@link STATE_FIELDS} order. */
export function stateRows(result: SqlResult | undefined): unknown[][] {
  const text = result?.rows[0]?.states;
  return typeof text === "string" ? JSON.parse(text) as unknown[][] : [];
}

/** `listDefs()`: every definition, or a page of them by name (a primary-key range, never a scan from the start). */
export function listDefsStatement(after: string | undefined, limit: number | undefined): SqlStatement {
  const select = "SELECT name, spec, version, updated_at FROM edgecron_defs";
  // LIMIT -1 is SQLite's "no limit".
  return after === undefined
    ? { sql: `${select} ORDER BY name LIMIT ?`, args: [limit ?? -1] }
    : { sql: `${select} WHERE name > ? ORDER BY name LIMIT ?`, args: [after, limit ?? -1] };
}

const PATCH_COLUMNS = {
  status: "status",
  attempt: "attempt",
  startedAt: "started_at",
  leaseUntil: "lease_until",
  finishedAt: "finished_at",
  error: "error",
} as const;

/** The compare-and-set `UPDATE` of `update()`; null when the patch sets nothing. */
export function updateStatement(
  key: AttemptKey,
  patch: Partial<Record<keyof typeof PATCH_COLUMNS, unknown>>,
): SqlStatement | null {
  const sets: string[] = [];
  const args: Record<string, SqlValue> = {
    key_job: key.job,
    key_slot: key.slot,
    key_attempt: key.attempt,
    key_node: key.node,
  };
  for (const [field, column] of Object.entries(PATCH_COLUMNS)) {
    const value = patch[field as keyof typeof PATCH_COLUMNS];
    if (value === undefined) continue;
    sets.push(`${column} = :${column}`);
    args[column] = value as SqlValue;
  }
  if (sets.length === 0) return null;
  return bind(
    `UPDATE edgecron_runs SET ${sets.join(", ")}
      WHERE job = :key_job AND slot = :key_slot AND attempt = :key_attempt AND node = :key_node
        AND status IN ('running', 'cancelling')
      RETURNING 1`,
    args,
  );
}

/**
 * A group commit of compare-and-sets as set-based `UPDATE ... FROM json_each` statements,
 * one per set of patched fields (a tick's outcomes all patch the same fields: one
 * statement), for a batch whose writes name distinct `(job, slot)` rows and each set
 * something; undefined otherwise (then each write is its own statement, so a later write
 * sees an earlier one). Each statement sets only its fields, so no column is copied onto
 * itself: at 2 500 outcomes on a file that is about a third less CPU than one statement
 * choosing per row and column. A key part or value every write of a statement shares (the
 * node, the attempt, a minute's slot, the status, a null lease) is bound once; only the
 * rest goes in per row, and a row that is its job's name alone is a JSON string, not an
 * array to take apart. Each `UPDATE` follows a `SELECT` (same transaction) of the
 * `(job, slot)` of the writes it will refuse, their row no longer that running attempt:
 * usually none. The `UPDATE` returns nothing: a row returned per write (RETURNING) was
 * the embedded driver's largest allocation in a large minute (an object per row, its
 * columns defined one by one), and a string key per row to match it back.
 */
export function updateManyStatements(
  writes: readonly { key: AttemptKey; patch: Partial<Record<keyof typeof PATCH_COLUMNS, unknown>> }[],
): SqlStatement[] | undefined {
  if (!distinctRows(writes)) return undefined;
  // The writes by the fields they patch (a bit per field; a tick's outcomes share one set),
  // as indexes: no array of each write's values is made (at 2 500 outcomes those arrays were
  // most of what the write allocated, and a scavenge during it promoted them).
  const groups = new Map<number, number[]>();
  for (let w = 0; w < writes.length; w++) {
    const patch = writes[w]!.patch;
    let mask = 0;
    for (let i = 0; i < PATCH_FIELDS.length; i++) if (patch[PATCH_FIELDS[i]!] !== undefined) mask |= 1 << i;
    if (mask === 0) return undefined;
    const group = groups.get(mask);
    if (group === undefined) groups.set(mask, [w]);
    else group.push(w);
  }
  return [...groups].flatMap(([mask, members]) => {
    const fields = PATCH_FIELDS.filter((_, i) => (mask & (1 << i)) !== 0);
    // A write's places as columns of `req`: the key's, then `v_` and each patched column.
    const columns = [...KEY_NAMES, ...fields.map((field) => `v_${PATCH_COLUMNS[field]}`)];
    const valueAt = (w: number, c: number): unknown => {
      const { key, patch } = writes[w]!;
      return c < KEY_NAMES.length ? key[KEY_NAMES[c]!] : patch[fields[c - KEY_NAMES.length]!];
    };
    // The places that vary between writes (the job's always: its name is the row); every
    // other is shared, and bound once.
    const first = members[0]!;
    const varying = columns.map((_, c) => c).filter((c) =>
      c === 0 || members.some((w) => valueAt(w, c) !== valueAt(first, c))
    );
    const args: Record<string, SqlValue> = {};
    const exprs = columns.map((column, c) => {
      const at = varying.indexOf(c);
      if (at >= 0) {
        // A row of one varying place (the job) is its value; more, an array of them.
        return `${varying.length === 1 ? "value" : `json_extract(value, '$[${at}]')`} AS ${column}`;
      }
      args[`s_${column}`] = valueAt(first, c) as SqlValue;
      return `:s_${column} AS ${column}`;
    });
    args.items = JSON.stringify(
      varying.length === 1
        ? members.map((w) => writes[w]!.key.job)
        : members.map((w) => varying.map((c) => valueAt(w, c))),
    );
    const from = `FROM (SELECT ${exprs.join(", ")} FROM json_each(:items)) AS req`;
    const sets = fields.map((field) => `${PATCH_COLUMNS[field]} = req.v_${PATCH_COLUMNS[field]}`);
    return [
      bind(`SELECT req.job, req.slot ${from} WHERE NOT EXISTS (SELECT 1 FROM edgecron_runs WHERE ${HELD})`, args),
      bind(`UPDATE edgecron_runs SET ${sets.join(", ")} ${from} WHERE ${HELD}`, args),
    ];
  });
}

/**
 * Whether no two writes name the same `(job, slot)`. A key text is made only for a job
 * named twice (a job's slots are few in a batch; its jobs are many).
 */
function distinctRows(writes: readonly { key: AttemptKey }[]): boolean {
  const slotOf = new Map<string, number>();
  let keys: Set<string> | undefined;
  for (const { key } of writes) {
    const seen = slotOf.get(key.job);
    if (seen === undefined) {
      slotOf.set(key.job, key.slot);
      keys?.add(slotKeyText(key.job, key.slot));
      continue;
    }
    if (keys === undefined) {
      keys = new Set();
      for (const [job, slot] of slotOf) keys.add(slotKeyText(job, slot));
    }
    const row = slotKeyText(key.job, key.slot);
    if (keys.has(row)) return false;
    keys.add(row);
  }
  return true;
}

/** The row of `edgecron_runs` is the running attempt `req` names (its compare-and-set holds). */
const HELD = `edgecron_runs.job = req.job AND edgecron_runs.slot = req.slot
  AND edgecron_runs.attempt = req.attempt AND edgecron_runs.node = req.node
  AND edgecron_runs.status IN ('running', 'cancelling')`;

/** The patch fields, in the order `updateManyStatements` writes their values. */
const PATCH_FIELDS = Object.keys(PATCH_COLUMNS) as (keyof typeof PATCH_COLUMNS)[];
/** The key's columns, the first places of each write's row. */
const KEY_NAMES = ["job", "slot", "attempt", "node"] as const;

/** Checks whether `key` is the running attempt (for an `update()` with an empty patch). */
export function isRunningStatement(key: AttemptKey): SqlStatement {
  return {
    sql: `SELECT 1 FROM edgecron_runs
      WHERE job = ? AND slot = ? AND attempt = ? AND node = ? AND status IN ('running', 'cancelling')`,
    args: [key.job, key.slot, key.attempt, key.node],
  };
}

/**
 * `reap()`: ended leases become `abandoned` (a `cancelling` row `cancelled`) in one
 * statement, so concurrent reapers split the rows. Running and cancelling rows are
 * selected as open rows that are not buffered, so the open-row index serves it.
 */
export function reapStatement(now: number, error: string, cancelled: string): SqlStatement {
  return bind(
    `UPDATE edgecron_runs
      SET status = CASE WHEN status = 'cancelling' THEN 'cancelled' ELSE 'abandoned' END, finished_at = :now,
        error = CASE WHEN status = 'cancelling' THEN :cancelled ELSE :error END
      WHERE ${OPEN_ROWS} AND status <> 'buffered' AND lease_until < :now
      RETURNING ${COLUMNS}`,
    { now, error, cancelled },
  );
}

/**
 * `promote()`: the job's oldest buffered row starts, in the statement that checks no run
 * of the job is live (and, with `maxRuns`, that its counted, pruned and running rows are
 * below it). With `maxRuns`, a statement before it first turns the job's buffered rows
 * `skipped` when its counted and pruned rows alone reach the limit and nothing runs.
 * The last statement's rows are the started row.
 */
export function promoteStatements(r: PromoteRequest, maxRunsText: string): SqlStatement[] {
  if (r.maxRuns === undefined) return [promoteStatement(r)];
  const counted = `(SELECT COUNT(*) FROM edgecron_runs c WHERE c.job = :job AND c.status IN ${COUNTED_SQL_LIST})
    + COALESCE((SELECT j.pruned_runs FROM edgecron_jobs j WHERE j.name = :job), 0)`;
  return [
    bind(
      `UPDATE edgecron_runs SET status = 'skipped', finished_at = :now, error = :text
        WHERE job = :job AND status = 'buffered'
          AND NOT EXISTS (SELECT 1 FROM edgecron_runs o WHERE o.job = :job AND o.status IN ('running', 'cancelling'))
          AND ${counted} >= :lim`,
      { job: r.job, now: r.now, text: maxRunsText, lim: r.maxRuns },
    ),
    promoteStatement(r),
  ];
}

function promoteStatement(r: PromoteRequest): SqlStatement {
  return bind(
    `UPDATE edgecron_runs SET status = 'running', node = :node, batch = :batch, started_at = :now, lease_until = :lease
      WHERE job = :job AND status = 'buffered' AND slot = (
          SELECT MIN(b.slot) FROM edgecron_runs b
          WHERE b.job = :job AND b.status = 'buffered' AND (:kind IS NULL OR b.kind = :kind)
        )
        AND NOT EXISTS (
          SELECT 1 FROM edgecron_runs o WHERE o.job = :job AND o.status IN ('running', 'cancelling') AND o.lease_until >= :now
        )
        AND NOT EXISTS (SELECT 1 FROM edgecron_jobs j WHERE j.name = :job AND j.paused = 1)
        AND (:lim IS NULL OR (SELECT COUNT(*) FROM edgecron_runs c WHERE c.job = :job
            AND (c.status IN ${COUNTED_SQL_LIST} OR c.status IN ('running', 'cancelling')))
          + COALESCE((SELECT j.pruned_runs FROM edgecron_jobs j WHERE j.name = :job), 0) < :lim)
      RETURNING ${COLUMNS}`,
    {
      lim: r.maxRuns ?? null,
      job: r.job,
      node: r.node,
      batch: `promote:${r.node}:${r.now}`,
      now: r.now,
      lease: r.leaseUntil,
      kind: r.kind ?? null,
    },
  );
}

/**
 * `enqueue()`: new slots inserted `buffered` (returning the ones inserted), then, with
 * `rerun`, final rows finished at or before the request's `now` turned back into
 * `buffered` at attempt + 1 (returning those).
 */
export function enqueueStatements(requests: readonly EnqueueRequest[]): [SqlStatement, SqlStatement] {
  const items = JSON.stringify(requests.map((r) => [r.job, r.slot, r.kind, r.node, r.now, r.rerun ? 1 : 0]));
  const req = `SELECT json_extract(value, '$[0]') AS job, json_extract(value, '$[1]') AS slot,
      json_extract(value, '$[2]') AS kind, json_extract(value, '$[3]') AS node,
      json_extract(value, '$[4]') AS now, json_extract(value, '$[5]') AS rerun, key AS k
    FROM json_each(:items)`;
  return [
    bind(
      `INSERT INTO edgecron_runs (${COLUMNS}, batch)
        SELECT job, slot, kind, 'buffered', 1, node, now, now, NULL, NULL, NULL, 'enqueue:' || node
        FROM (${req}) WHERE true ORDER BY k
        ON CONFLICT (job, slot) DO NOTHING
        RETURNING job, slot`,
      { items },
    ),
    bind(
      `UPDATE edgecron_runs SET status = 'buffered', attempt = attempt + 1, node = req.node,
          batch = 'enqueue:' || req.node, claimed_at = req.now, started_at = req.now, finished_at = NULL,
          lease_until = NULL, error = NULL
        FROM (${req}) AS req
        WHERE edgecron_runs.job = req.job AND edgecron_runs.slot = req.slot AND req.rerun = 1
          AND edgecron_runs.status NOT IN ('running', 'cancelling', 'buffered') AND edgecron_runs.finished_at <= req.now
        RETURNING edgecron_runs.job AS job, edgecron_runs.slot AS slot`,
      { items },
    ),
  ];
}

/** `reclaim()`: the next attempt of a finished, retryable row; with `skip`, only while no other run of the job is live. */
export function reclaimStatement(
  key: { job: string; slot: number; attempt: number },
  node: string,
  now: number,
  leaseUntil: number,
  overlap: "skip" | "allow" = "allow",
  maxRuns?: number,
): SqlStatement {
  return bind(
    `UPDATE edgecron_runs
      SET status = 'running', attempt = attempt + 1, node = :node, batch = :batch,
        started_at = :now, finished_at = NULL, lease_until = :lease, error = NULL
      WHERE job = :job AND slot = :slot AND attempt = :attempt AND status IN ('abandoned', 'error', 'timeout')
        AND NOT (:overlap = 'skip' AND EXISTS (
          SELECT 1 FROM edgecron_runs o WHERE o.job = :job AND o.status IN ('running', 'cancelling') AND o.lease_until >= :now
        ))
        AND (:lim IS NULL OR (SELECT COUNT(*) FROM edgecron_runs c WHERE c.job = :job AND c.slot <> :slot
            AND (c.status IN ${COUNTED_SQL_LIST} OR c.status IN ('running', 'cancelling', 'buffered')))
          + COALESCE((SELECT j.pruned_runs FROM edgecron_jobs j WHERE j.name = :job), 0) < :lim)
      RETURNING attempt`,
    {
      lim: maxRuns ?? null,
      overlap,
      node,
      batch: `reclaim:${node}:${key.attempt + 1}`,
      now,
      lease: leaseUntil,
      job: key.job,
      slot: key.slot,
      attempt: key.attempt,
    },
  );
}

/** `runs()`: newest first; two forms so both use the primary key range. */
export function runsStatement(job: string, limit: number, before: number | undefined): SqlStatement {
  return before === undefined
    ? { sql: `SELECT ${COLUMNS} FROM edgecron_runs WHERE job = ? ORDER BY slot DESC LIMIT ?`, args: [job, limit] }
    : {
      sql: `SELECT ${COLUMNS} FROM edgecron_runs WHERE job = ? AND slot < ? ORDER BY slot DESC LIMIT ?`,
      args: [job, before, limit],
    };
}

/** `lastOutcomes()`: the newest non-running row per job. */
export function lastOutcomesStatement(names: readonly string[]): SqlStatement {
  return {
    sql: `SELECT ${COLUMNS.split(", ").map((c) => `r.${c}`).join(", ")}
      FROM (SELECT DISTINCT value AS name FROM json_each(?)) n
      JOIN edgecron_runs r ON r.job = n.name AND r.slot = (
        -- Walks the job's slots newest first and stops at the first finished one.
        SELECT x.slot FROM edgecron_runs x WHERE x.job = n.name AND x.status NOT IN ('running', 'cancelling', 'buffered')
        ORDER BY x.slot DESC LIMIT 1
      )`,
    args: [JSON.stringify(names)],
  };
}

/** `overview()`'s `bufferFull`: per job, the skipped rows a full buffer dropped. */
export function bufferFullStatement(names: readonly string[]): SqlStatement {
  return bind(
    `SELECT job, COUNT(*) AS n FROM edgecron_runs
      WHERE job IN (SELECT value FROM json_each(:names)) AND status = 'skipped'
        AND error IN (SELECT value FROM json_each(:errors))
      GROUP BY job`,
    { names: JSON.stringify(names), errors: JSON.stringify(BUFFER_FULL_ERRORS) },
  );
}

/**
 * `prune()`: counted rows about to go add to their job's `pruned_runs`, then the finished
 * rows before the cutoff go; one transaction, so maxRuns never sees them twice or never.
 */
export function pruneStatements(before: number): SqlStatement[] {
  return [
    bind(
      `UPDATE edgecron_jobs SET pruned_runs = pruned_runs + (SELECT COUNT(*) FROM edgecron_runs r
          WHERE r.job = edgecron_jobs.name AND r.status IN ${COUNTED_SQL_LIST} AND r.slot < :before)
        WHERE name IN (SELECT DISTINCT job FROM edgecron_runs WHERE status IN ${COUNTED_SQL_LIST} AND slot < :before)`,
      { before },
    ),
    bind("DELETE FROM edgecron_runs WHERE status NOT IN ('running', 'cancelling', 'buffered') AND slot < :before", {
      before,
    }),
  ];
}

/**
 * `pruneRows()`: the job's finished rows beyond its newest `keep`, never its watermark
 * row; the counted ones first add to its `pruned_runs`, in the same transaction.
 * Plain SQL (LIMIT/OFFSET in a scalar subquery) that SQLite and Postgres both read.
 */
export function pruneRowsStatements(job: string, keep: number): SqlStatement[] {
  const doomed = `job = :job AND status NOT IN ('running', 'cancelling', 'buffered')
    AND slot <= (SELECT f.slot FROM edgecron_runs f WHERE f.job = :job AND f.status NOT IN ('running', 'cancelling', 'buffered')
      ORDER BY f.slot DESC LIMIT 1 OFFSET :keep)
    AND slot <> COALESCE((SELECT MAX(w.slot) FROM edgecron_runs w WHERE w.job = :job AND w.kind = 'scheduled'), -1)`;
  return [
    bind(
      `UPDATE edgecron_jobs SET pruned_runs = pruned_runs
          + (SELECT COUNT(*) FROM edgecron_runs WHERE ${doomed} AND status IN ${COUNTED_SQL_LIST})
        WHERE name = :job`,
      { job, keep },
    ),
    bind(`DELETE FROM edgecron_runs WHERE ${doomed}`, { job, keep }),
  ];
}

/** `counts()`: rows per job and status. */
export function countsStatement(names: readonly string[]): SqlStatement {
  return {
    sql: `SELECT job, status, COUNT(*) AS n FROM edgecron_runs
      WHERE job IN (SELECT value FROM json_each(?)) GROUP BY job, status`,
    args: [JSON.stringify(names)],
  };
}

/**
 * `renew()`: every live lease of the request in ONE statement. A row is extended only
 * while it is still that running attempt of that node with leaseUntil >= now, so an
 * ended lease is never revived. Returns the keys it renewed.
 */
export function renewStatement(items: readonly LeaseRenewal[], now: number): SqlStatement {
  const rows = items.map((r) => [r.job, r.slot, r.attempt, r.node, r.leaseUntil]);
  return bind(
    `UPDATE edgecron_runs SET lease_until = req.lease
      FROM (SELECT json_extract(value, '$[0]') AS job, json_extract(value, '$[1]') AS slot,
          json_extract(value, '$[2]') AS attempt, json_extract(value, '$[3]') AS node,
          json_extract(value, '$[4]') AS lease
        FROM json_each(:items)) AS req
      WHERE edgecron_runs.job = req.job AND edgecron_runs.slot = req.slot
        AND edgecron_runs.attempt = req.attempt AND edgecron_runs.node = req.node
        AND edgecron_runs.status = 'running' AND edgecron_runs.lease_until >= :now
      RETURNING edgecron_runs.job AS job, edgecron_runs.slot AS slot, edgecron_runs.attempt AS attempt,
        edgecron_runs.node AS node`,
    { items: JSON.stringify(rows), now },
  );
}

/** The key of one (job, slot) row, for matching returned rows to requests (claims, outcomes). */
export function slotKeyText(job: unknown, slot: unknown): string {
  return `${String(job)}\u0000${Number(slot)}`;
}

/** The key `renew()` matches its returned rows on. */
export function attemptKeyText(key: object): string {
  const k = key as Record<string, unknown>;
  return JSON.stringify([String(k.job), Number(k.slot), Number(k.attempt), String(k.node)]);
}

/** `overview()`'s recent rows: per job, slots >= since, newest first, at most perJob (a primary-key range per job). */
export function recentStatement(names: readonly string[], since: number, perJob: number): SqlStatement {
  return bind(
    `SELECT ${COLUMNS.split(", ").map((c) => `r.${c}`).join(", ")}
      FROM (SELECT DISTINCT value AS name FROM json_each(:names)) n
      JOIN edgecron_runs r ON r.job = n.name AND r.slot IN (
        SELECT x.slot FROM edgecron_runs x WHERE x.job = n.name AND x.slot >= :since ORDER BY x.slot DESC LIMIT :per_job
      )
      ORDER BY r.job, r.slot DESC`,
    { names: JSON.stringify(names), since, per_job: perJob },
  );
}
