/**
 * The Postgres dialect of the store's statements: one function per operation, each
 * returning `$n`-parameter text with its arguments. Lists travel as typed arrays read
 * with `unnest`, so a tick over 10 000 jobs is still one parameter per column.
 * Row mapping (`runRecord`, `jobDef`, `claimOutcomes`) is shared with the SQLite stores;
 * the claim statements are in claims.ts.
 */
import type { AttemptKey, EnqueueRequest, LeaseRenewal, PromoteRequest, RunPatch } from "../types.ts";
import type { PgStatement } from "./connection.ts";
import { BUFFER_FULL_ERRORS, COUNTED_SQL_LIST } from "../_validate.ts";
import type { PgTables } from "./schema.ts";

/** The run columns, in `RunRecord` order (the shared `runRecord` maps them). */
export const PG_COLUMNS =
  "job, slot, kind, status, attempt, node, claimed_at, started_at, finished_at, lease_until, error";

/** The statuses of a row not yet settled (never pruned, never a last outcome). */
export const OPEN = "('running', 'cancelling', 'buffered')";
/** The statuses of a live run (with leaseUntil >= now); a `cancelling` row is still live. */
export const LIVE = "('running', 'cancelling')";

const prefixed = (alias: string): string => PG_COLUMNS.split(", ").map((c) => `${alias}.${c}`).join(", ");

/** The patchable fields, their column and SQL type. */
const PATCH = [
  ["status", "status", "text"],
  ["attempt", "attempt", "integer"],
  ["startedAt", "started_at", "bigint"],
  ["leaseUntil", "lease_until", "bigint"],
  ["finishedAt", "finished_at", "bigint"],
  ["error", "error", "text"],
] as const;

/** `snapshot()`'s write: a state row for every asked name and definition not yet seen. */
export function ensureJobsStatement(t: PgTables, names: readonly string[], now: number): PgStatement {
  return {
    text: `INSERT INTO ${t.jobs} (name, first_seen, paused)
      SELECT name, $2::bigint, false FROM (SELECT unnest($1::text[]) AS name UNION SELECT name FROM ${t.defs}) s
      ON CONFLICT (name) DO NOTHING`,
    args: [names, now],
  };
}

const STATES = (t: PgTables): string =>
  `SELECT j.name, j.first_seen, j.paused, j.pause_note, j.paused_at, j.paused_by, j.pruned_runs,
    (SELECT MAX(r.slot) FROM ${t.runs} r WHERE r.job = j.name AND r.kind = 'scheduled') AS watermark
  FROM ${t.jobs} j`;

/** `snapshot()` after its write: states (asked and data-defined) with watermarks and pause info, every definition, every open row. */
export function snapshotStatements(t: PgTables, names: readonly string[]): PgStatement[] {
  return [
    { text: `${STATES(t)} WHERE j.name = ANY($1::text[]) OR j.name IN (SELECT name FROM ${t.defs})`, args: [names] },
    defsStatement(t),
    { text: `SELECT ${PG_COLUMNS} FROM ${t.runs} WHERE status IN ${OPEN}`, args: [] },
  ];
}

/** `read()`: the named jobs only (states, definitions, open rows), each an index lookup per name. */
export function readStatements(t: PgTables, names: readonly string[]): PgStatement[] {
  return [
    { text: `${STATES(t)} WHERE j.name = ANY($1::text[])`, args: [names] },
    {
      text: `SELECT name, spec::text AS spec, version, updated_at FROM ${t.defs}
        WHERE name = ANY($1::text[]) ORDER BY name COLLATE "C"`,
      args: [names],
    },
    { text: `SELECT ${PG_COLUMNS} FROM ${t.runs} WHERE job = ANY($1::text[]) AND status IN ${OPEN}`, args: [names] },
  ];
}

/**
 * Every definition by name, one definition, or a page after `query.after` (at most
 * `query.limit`); the spec as JSON text for the shared `jobDef`. Names sort in code-point
 * order (`COLLATE "C"`) whatever the database's collation, as every other store sorts.
 */
export function defsStatement(t: PgTables, name?: string, query: { after?: string; limit?: number } = {}): PgStatement {
  const select = `SELECT name, spec::text AS spec, version, updated_at FROM ${t.defs}`;
  if (name !== undefined) return { text: `${select} WHERE name = $1`, args: [name] };
  const limit = query.limit === undefined ? "" : ` LIMIT ${Math.floor(query.limit)}`;
  return query.after === undefined
    ? { text: `${select} ORDER BY name COLLATE "C"${limit}`, args: [] }
    : { text: `${select} WHERE name COLLATE "C" > $1 ORDER BY name COLLATE "C"${limit}`, args: [query.after] };
}

const KEY_WHERE = `job = $1 AND slot = $2 AND attempt = $3 AND node = $4 AND status IN ${LIVE}`;

/** The compare-and-set of `update()`; a pure check when the patch sets nothing. */
export function updateStatement(t: PgTables, key: AttemptKey, patch: RunPatch): PgStatement {
  const args: unknown[] = [key.job, key.slot, key.attempt, key.node];
  const sets: string[] = [];
  for (const [field, column, type] of PATCH) {
    const value = patch[field];
    if (value === undefined) continue;
    args.push(value);
    sets.push(`${column} = $${args.length}::${type}`);
  }
  if (sets.length === 0) return { text: `SELECT 1 AS hit FROM ${t.runs} WHERE ${KEY_WHERE}`, args };
  return { text: `UPDATE ${t.runs} SET ${sets.join(", ")} WHERE ${KEY_WHERE} RETURNING 1 AS hit`, args };
}

/**
 * A group commit as ONE set-based `UPDATE … FROM unnest(…)`, for writes naming distinct
 * `(job, slot)` rows that each set something; undefined otherwise (then each write is
 * its own statement in one transaction, seeing the ones before it). Every patch field is
 * a typed array; a bit mask per write says which fields it sets, so a field a patch
 * leaves out keeps its column and a null sets NULL.
 */
export function updateManyStatement(
  t: PgTables,
  writes: readonly { key: AttemptKey; patch: RunPatch }[],
): PgStatement | undefined {
  const seen = new Set<string>();
  const masks: number[] = [];
  for (const { key, patch } of writes) {
    const row = JSON.stringify([key.job, key.slot]);
    let mask = 0;
    PATCH.forEach(([field], bit) => {
      if (patch[field] !== undefined) mask |= 1 << bit;
    });
    if (seen.has(row) || mask === 0) return undefined;
    seen.add(row);
    masks.push(mask);
  }
  const sets = PATCH.map(([, column], bit) =>
    `${column} = CASE WHEN req.mask & ${1 << bit} <> 0 THEN req.new_${column} ELSE r.${column} END`
  );
  const columns = PATCH.map(([, column]) => `new_${column}`).join(", ");
  const types = PATCH.map(([, , type], i) => `$${i + 6}::${type}[]`).join(", ");
  return {
    text: `UPDATE ${t.runs} AS r SET ${sets.join(", ")}
      FROM unnest($1::text[], $2::bigint[], $3::integer[], $4::text[], $5::integer[], ${types})
        AS req(job, slot, attempt, node, mask, ${columns})
      WHERE r.job = req.job AND r.slot = req.slot AND r.attempt = req.attempt AND r.node = req.node AND r.status IN ${LIVE}
      RETURNING r.job, r.slot`,
    args: [
      writes.map((w) => w.key.job),
      writes.map((w) => w.key.slot),
      writes.map((w) => w.key.attempt),
      writes.map((w) => w.key.node),
      masks,
      ...PATCH.map(([field]) => writes.map((w) => w.patch[field] ?? null)),
    ],
  };
}

/** `renew()`: every live lease of the request in one statement; an ended lease is never revived. */
export function renewStatement(t: PgTables, items: readonly LeaseRenewal[], now: number): PgStatement {
  return {
    text: `UPDATE ${t.runs} AS r SET lease_until = req.lease
      FROM unnest($1::text[], $2::bigint[], $3::integer[], $4::text[], $5::bigint[]) AS req(job, slot, attempt, node, lease)
      WHERE r.job = req.job AND r.slot = req.slot AND r.attempt = req.attempt AND r.node = req.node
        AND r.status = 'running' AND r.lease_until >= $6::bigint
      RETURNING r.job, r.slot, r.attempt, r.node`,
    args: [
      items.map((i) => i.job),
      items.map((i) => i.slot),
      items.map((i) => i.attempt),
      items.map((i) => i.node),
      items.map((i) => i.leaseUntil),
      now,
    ],
  };
}

/**
 * `reap()`: ended leases become `abandoned` (a `cancelling` row `cancelled`).
 * `FOR UPDATE SKIP LOCKED` lets concurrent reapers split the rows without waiting on
 * one another; a row another node is finishing right now is left to that node.
 */
export function reapStatement(t: PgTables, now: number, error: string, cancelled: string): PgStatement {
  return {
    text: `UPDATE ${t.runs} AS r
      SET status = CASE WHEN r.status = 'cancelling' THEN 'cancelled' ELSE 'abandoned' END, finished_at = $1::bigint,
        error = CASE WHEN r.status = 'cancelling' THEN $3::text ELSE $2::text END
      FROM (SELECT job, slot FROM ${t.runs} WHERE status IN ${LIVE} AND lease_until < $1::bigint FOR UPDATE SKIP LOCKED) AS due
      WHERE r.job = due.job AND r.slot = due.slot AND r.status IN ${LIVE}
      RETURNING ${prefixed("r")}`,
    args: [now, error, cancelled],
  };
}

/**
 * `promote()`, under the job's claim lock: the job's oldest buffered row (of the kind
 * asked) starts, in the statement that checks no run of the job is live, the job is not
 * paused and, with `maxRuns`, its counted, pruned and running rows are below it. With
 * `maxRuns`, a statement before it turns the buffered rows `skipped` when the counted
 * and pruned rows alone reach the limit and nothing runs. The last one returns the row.
 */
export function promoteStatements(t: PgTables, r: PromoteRequest, maxRunsText: string): PgStatement[] {
  if (r.maxRuns === undefined) return [promoteStatement(t, r)];
  return [
    {
      text: `UPDATE ${t.runs} AS r SET status = 'skipped', finished_at = $2::bigint, error = $3::text
        WHERE r.job = $1::text AND r.status = 'buffered'
          AND NOT EXISTS (SELECT 1 FROM ${t.runs} o WHERE o.job = $1::text AND o.status IN ${LIVE})
          AND (SELECT COUNT(*) FROM ${t.runs} c WHERE c.job = $1::text AND c.status IN ${COUNTED_SQL_LIST})
            + COALESCE((SELECT j.pruned_runs FROM ${t.jobs} j WHERE j.name = $1::text), 0) >= $4::bigint`,
      args: [r.job, r.now, maxRunsText, r.maxRuns],
    },
    promoteStatement(t, r),
  ];
}

function promoteStatement(t: PgTables, r: PromoteRequest): PgStatement {
  return {
    text: `UPDATE ${t.runs} AS r SET status = 'running', node = $2::text, batch = $3::text, started_at = $4::bigint,
        lease_until = $5::bigint
      WHERE r.job = $1::text AND r.status = 'buffered' AND r.slot = (
          SELECT MIN(b.slot) FROM ${t.runs} b
          WHERE b.job = $1::text AND b.status = 'buffered' AND ($6::text IS NULL OR b.kind = $6::text)
        )
        AND NOT EXISTS (
          SELECT 1 FROM ${t.runs} o WHERE o.job = $1::text AND o.status IN ${LIVE} AND o.lease_until >= $4::bigint
        )
        AND NOT EXISTS (SELECT 1 FROM ${t.jobs} j WHERE j.name = $1::text AND j.paused)
        AND ($7::bigint IS NULL OR (SELECT COUNT(*) FROM ${t.runs} c WHERE c.job = $1::text
            AND (c.status IN ${COUNTED_SQL_LIST} OR c.status IN ${LIVE}))
          + COALESCE((SELECT j.pruned_runs FROM ${t.jobs} j WHERE j.name = $1::text), 0) < $7::bigint)
      RETURNING ${prefixed("r")}`,
    args: [r.job, r.node, `promote:${r.node}:${r.now}`, r.now, r.leaseUntil, r.kind ?? null, r.maxRuns ?? null],
  };
}

/**
 * `enqueue()`: new slots inserted `buffered` (returning the ones inserted), then, with
 * `rerun`, final rows finished at or before the request's `now` turned back into
 * `buffered` at attempt + 1 (returning those). One transaction.
 */
export function enqueueStatements(t: PgTables, requests: readonly EnqueueRequest[]): [PgStatement, PgStatement] {
  const args = [
    requests.map((r) => r.job),
    requests.map((r) => r.slot),
    requests.map((r) => r.kind),
    requests.map((r) => r.node),
    requests.map((r) => r.now),
    // 1/0: postgres.js sends a JS boolean array as one boolean, not boolean[].
    requests.map((r) => (r.rerun ? 1 : 0)),
  ];
  const req = "unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::integer[])";
  return [
    {
      text: `INSERT INTO ${t.runs} (${PG_COLUMNS}, batch)
        SELECT job, slot, kind, 'buffered', 1, node, now, now, NULL, NULL, NULL, 'enqueue:' || node
        FROM ${req} WITH ORDINALITY AS req(job, slot, kind, node, now, rerun, k) ORDER BY k
        ON CONFLICT (job, slot) DO NOTHING
        RETURNING job, slot`,
      args,
    },
    {
      text: `UPDATE ${t.runs} AS r SET status = 'buffered', attempt = r.attempt + 1, node = req.node,
          batch = 'enqueue:' || req.node, claimed_at = req.now, started_at = req.now, finished_at = NULL,
          lease_until = NULL, error = NULL
        FROM ${req} AS req(job, slot, kind, node, now, rerun)
        WHERE r.job = req.job AND r.slot = req.slot AND req.rerun = 1
          AND r.status NOT IN ${OPEN} AND r.finished_at <= req.now
        RETURNING r.job, r.slot`,
      args,
    },
  ];
}

/** `reclaim()`: the next attempt of a finished, retryable row; with `skip`, only while no other run of the job is live. */
export function reclaimStatement(
  t: PgTables,
  key: { job: string; slot: number; attempt: number },
  node: string,
  now: number,
  leaseUntil: number,
  overlap: "skip" | "allow",
  maxRuns?: number,
): PgStatement {
  return {
    text: `UPDATE ${t.runs}
      SET status = 'running', attempt = attempt + 1, node = $1::text, batch = $2::text,
        started_at = $3::bigint, finished_at = NULL, lease_until = $4::bigint, error = NULL
      WHERE job = $5::text AND slot = $6::bigint AND attempt = $7::integer AND status IN ('abandoned', 'error', 'timeout')
        AND NOT ($8::text = 'skip' AND EXISTS (
          SELECT 1 FROM ${t.runs} o WHERE o.job = $5::text AND o.status IN ${LIVE} AND o.lease_until >= $3::bigint
        ))
        AND ($9::bigint IS NULL OR (SELECT COUNT(*) FROM ${t.runs} c WHERE c.job = $5::text AND c.slot <> $6::bigint
            AND (c.status IN ${COUNTED_SQL_LIST} OR c.status IN ${OPEN}))
          + COALESCE((SELECT j.pruned_runs FROM ${t.jobs} j WHERE j.name = $5::text), 0) < $9::bigint)
      RETURNING attempt`,
    args: [
      node,
      `reclaim:${node}:${key.attempt + 1}`,
      now,
      leaseUntil,
      key.job,
      key.slot,
      key.attempt,
      overlap,
      maxRuns ?? null,
    ],
  };
}

/** `getRun()`. */
export function getRunStatement(t: PgTables, job: string, slot: number): PgStatement {
  return { text: `SELECT ${PG_COLUMNS} FROM ${t.runs} WHERE job = $1 AND slot = $2`, args: [job, slot] };
}

/** `runs()`: newest first, a primary-key range scan. */
export function runsStatement(t: PgTables, job: string, limit: number, before: number | undefined): PgStatement {
  return before === undefined
    ? { text: `SELECT ${PG_COLUMNS} FROM ${t.runs} WHERE job = $1 ORDER BY slot DESC LIMIT $2`, args: [job, limit] }
    : {
      text: `SELECT ${PG_COLUMNS} FROM ${t.runs} WHERE job = $1 AND slot < $2 ORDER BY slot DESC LIMIT $3`,
      args: [job, before, limit],
    };
}

/** `lastOutcomes()`: per job, the newest settled row (one backward index walk each). */
export function lastOutcomesStatement(t: PgTables, names: readonly string[]): PgStatement {
  return {
    text: `SELECT ${prefixed("r")} FROM (SELECT DISTINCT unnest($1::text[]) AS name) n
      CROSS JOIN LATERAL (
        SELECT ${PG_COLUMNS} FROM ${t.runs} x WHERE x.job = n.name AND x.status NOT IN ${OPEN} ORDER BY x.slot DESC LIMIT 1
      ) r`,
    args: [names],
  };
}

/** `counts()`: rows per job and status. */
export function countsStatement(t: PgTables, names: readonly string[]): PgStatement {
  return {
    text: `SELECT job, status, COUNT(*) AS n FROM ${t.runs} WHERE job = ANY($1::text[]) GROUP BY job, status`,
    args: [names],
  };
}

/** `overview()`'s `bufferFull`: per job, the skipped rows a full buffer dropped. */
export function bufferFullStatement(t: PgTables, names: readonly string[]): PgStatement {
  return {
    text: `SELECT job, COUNT(*) AS n FROM ${t.runs}
      WHERE job = ANY($1::text[]) AND status = 'skipped' AND error = ANY($2::text[]) GROUP BY job`,
    args: [names, [...BUFFER_FULL_ERRORS]],
  };
}

/** `overview()`'s recent rows: per job, slots >= since, newest first, at most perJob. */
export function recentStatement(t: PgTables, names: readonly string[], since: number, perJob: number): PgStatement {
  return {
    text: `SELECT ${prefixed("r")} FROM (SELECT DISTINCT unnest($1::text[]) AS name) n
      CROSS JOIN LATERAL (
        SELECT ${PG_COLUMNS} FROM ${t.runs} x WHERE x.job = n.name AND x.slot >= $2::bigint ORDER BY x.slot DESC LIMIT $3
      ) r
      ORDER BY r.job, r.slot DESC`,
    args: [names, since, perJob],
  };
}

/** The settings key that keeps a deleted definition's last version (as the SQLite stores name it). */
export const DEF_TOMBSTONE = "edgecron.def-version:";

/** A new row's version: one above the last version of a deleted definition of that name, else 1. */
const firstVersion = (t: PgTables): string =>
  `1 + COALESCE((SELECT s.value::integer FROM ${t.settings} s WHERE s.key = $4::text || $1::text), 0)`;

/** `putDef()`'s write: upsert, insert-if-absent (`ifVersion: 0`) or compare-and-set on the version. */
export function putDefStatement(
  t: PgTables,
  name: string,
  spec: string,
  now: number,
  expected: number | undefined,
): PgStatement {
  if (expected === undefined) {
    return {
      text: `INSERT INTO ${t.defs} AS d (name, spec, version, updated_at) VALUES ($1, $2::text, ${
        firstVersion(t)
      }, $3::bigint)
        ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, version = d.version + 1, updated_at = excluded.updated_at
        RETURNING version`,
      args: [name, spec, now, DEF_TOMBSTONE],
    };
  }
  if (expected === 0) {
    return {
      text: `INSERT INTO ${t.defs} (name, spec, version, updated_at) VALUES ($1, $2::text, ${
        firstVersion(t)
      }, $3::bigint)
        ON CONFLICT (name) DO NOTHING RETURNING version`,
      args: [name, spec, now, DEF_TOMBSTONE],
    };
  }
  return {
    text: `UPDATE ${t.defs} SET spec = $2::text, version = version + 1, updated_at = $3::bigint
      WHERE name = $1 AND version = $4::integer RETURNING version`,
    args: [name, spec, now, expected],
  };
}

/** A definition's state row, from when it is stored (not when some node first ticks). */
export function defJobStatement(t: PgTables, name: string, now: number): PgStatement {
  return {
    text: `INSERT INTO ${t.jobs} (name, first_seen, paused)
      SELECT name, $2::bigint, false FROM ${t.defs} WHERE name = $1
      ON CONFLICT (name) DO NOTHING`,
    args: [name, now],
  };
}

/**
 * `deleteDef()`: the tombstone first (a re-created definition continues above this
 * version), the job's runs and state (a job defined again under the name showed them as
 * its own), then the row; its last result says whether there was one.
 */
export function deleteDefStatements(t: PgTables, name: string): PgStatement[] {
  return [
    {
      text:
        `INSERT INTO ${t.settings} (key, value) SELECT $1::text || name, version::text FROM ${t.defs} WHERE name = $2
        ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      args: [DEF_TOMBSTONE, name],
    },
    ...forgetStatements(t, name, ""),
    { text: `DELETE FROM ${t.defs} WHERE name = $1 RETURNING name`, args: [name] },
  ];
}

/**
 * Deletes the finished runs and the state of `name` when it has (`""`) or has no (`"NOT"`)
 * definition; open rows stay until they end (a held slot keeps blocking a re-created job's claim).
 */
export function forgetStatements(t: PgTables, name: string, has: "" | "NOT"): PgStatement[] {
  return [`DELETE FROM ${t.runs} WHERE job = $1 AND status NOT IN ${OPEN}`, `DELETE FROM ${t.jobs} WHERE name = $1`]
    .map((text) => ({
      text: `${text} AND ${has} EXISTS (SELECT 1 FROM ${t.defs} WHERE name = $1)`,
      args: [name],
    }));
}

/** `prune()`: settled rows before `before`. */
export function pruneStatement(t: PgTables, before: number): PgStatement {
  return {
    text: `WITH gone AS (DELETE FROM ${t.runs} WHERE status NOT IN ${OPEN} AND slot < $1::bigint RETURNING job, status),
      ${BUMP_PRUNED(t)}
      SELECT count(*) AS n FROM gone`,
    args: [before],
  };
}

/**
 * maxRuns: the counted rows a `gone` CTE deleted add to their job's `pruned_runs`, in
 * the same statement as the delete.
 */
const BUMP_PRUNED = (t: PgTables): string =>
  `bump AS (
    UPDATE ${t.jobs} AS j SET pruned_runs = j.pruned_runs + g.n
    FROM (SELECT job, count(*) AS n FROM gone WHERE status IN ${COUNTED_SQL_LIST} GROUP BY job) g
    WHERE j.name = g.job
  )`;

/**
 * `pruneRows()`: the job's settled rows beyond its newest `keep`, never its newest
 * `scheduled` row (the watermark planning starts from).
 */
export function pruneRowsStatement(t: PgTables, job: string, keep: number): PgStatement {
  return {
    text: `WITH gone AS (
        DELETE FROM ${t.runs} WHERE job = $1 AND status NOT IN ${OPEN}
          AND slot <= (SELECT f.slot FROM ${t.runs} f WHERE f.job = $1 AND f.status NOT IN ${OPEN}
            ORDER BY f.slot DESC LIMIT 1 OFFSET $2::bigint)
          AND slot <> COALESCE((SELECT MAX(w.slot) FROM ${t.runs} w WHERE w.job = $1 AND w.kind = 'scheduled'), -1)
        RETURNING job, status
      ),
      ${BUMP_PRUNED(t)}
      SELECT count(*) AS n FROM gone`,
    args: [job, keep],
  };
}

/** `setPaused()`: the flag, with who paused it, when and why (cleared on resume). */
export function setPausedStatement(
  t: PgTables,
  name: string,
  paused: boolean,
  now: number,
  pause: { note: string | null; at: number; by: string } | undefined,
): PgStatement {
  return {
    text: `INSERT INTO ${t.jobs} (name, first_seen, paused, pause_note, paused_at, paused_by)
        VALUES ($1, $2::bigint, $3::boolean, $4::text, $5::bigint, $6::text)
      ON CONFLICT (name) DO UPDATE SET paused = excluded.paused, pause_note = excluded.pause_note,
        paused_at = excluded.paused_at, paused_by = excluded.paused_by`,
    args: [name, now, paused, pause?.note ?? null, pause?.at ?? null, pause?.by ?? null],
  };
}
