/**
 * The Postgres dialect of the store's statements: one function per operation, each
 * returning `$n`-parameter text with its arguments. Lists travel as typed arrays read
 * with `unnest`, so a tick over 10 000 jobs is still one parameter per column.
 * Row mapping (`runRecord`, `jobDef`, `claimOutcomes`) is shared with the SQLite stores.
 */
import type { AttemptKey, ClaimRequest, LeaseRenewal, RunPatch } from "../types.ts";
import type { PgStatement } from "./connection.ts";
import type { PgTables } from "./schema.ts";

/** The run columns, in `RunRecord` order (the shared `runRecord` maps them). */
export const PG_COLUMNS = "job, slot, kind, status, attempt, node, claimed_at, started_at, finished_at, lease_until, error";

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

/** `read()` (and `snapshot()` after its write): states with watermarks, definitions, running rows. */
export function readStatements(t: PgTables, names: readonly string[]): PgStatement[] {
  return [
    {
      text: `SELECT j.name, j.first_seen, j.paused,
          (SELECT MAX(r.slot) FROM ${t.runs} r WHERE r.job = j.name AND r.kind = 'scheduled') AS watermark
        FROM ${t.jobs} j
        WHERE j.name = ANY($1::text[]) OR j.name IN (SELECT name FROM ${t.defs})`,
      args: [names],
    },
    defsStatement(t),
    { text: `SELECT ${PG_COLUMNS} FROM ${t.runs} WHERE status = 'running'`, args: [] },
  ];
}

/** Every definition, by name (the spec as JSON text for the shared `jobDef`). */
export function defsStatement(t: PgTables, name?: string): PgStatement {
  const select = `SELECT name, spec::text AS spec, version, updated_at FROM ${t.defs}`;
  return name === undefined ? { text: `${select} ORDER BY name`, args: [] } : { text: `${select} WHERE name = $1`, args: [name] };
}

/**
 * Serialises claims of the jobs given against one another: a transaction-scoped
 * advisory lock per job (two-int keys: the schema, the job), taken in key order so two
 * claimers never deadlock. Under READ COMMITTED the next statement of the transaction
 * takes a fresh snapshot after the locks, so its overlap check sees every running row a
 * previous holder committed. Null when no job needs it.
 */
export function jobLocksStatement(t: PgTables, jobs: readonly string[]): PgStatement | null {
  if (jobs.length === 0) return null;
  return {
    text: `SELECT count(pg_advisory_xact_lock(hashtext($1), k)) AS locked
      FROM (SELECT DISTINCT hashtext(job) AS k FROM unnest($2::text[]) AS job ORDER BY k) s`,
    args: [t.schema, [...new Set(jobs)]],
  };
}

/** The jobs of a claim batch whose overlap check must be serialised (`skip`, to run). */
export function jobsToLock(requests: readonly ClaimRequest[]): string[] {
  return [...new Set(requests.filter((r) => r.overlap === "skip" && r.status === "running").map((r) => r.job))];
}

/**
 * Splits a claim call into rounds that each can be one statement with the same result
 * as applying the requests one by one. Requests interact only within a job (the overlap
 * check and the `(job, slot)` key), and a statement's rows never block others of their
 * own batch; so each round takes, per job, its next run of requests sharing a batch id.
 * A tick (one batch id) is one round.
 */
export function claimRounds(requests: readonly ClaimRequest[]): ClaimRequest[][] {
  const rounds: ClaimRequest[][] = [];
  const last = new Map<string, { batch: string; round: number }>();
  for (const r of requests) {
    const prev = last.get(r.job);
    const round = prev === undefined ? 0 : prev.batch === r.batch ? prev.round : prev.round + 1;
    last.set(r.job, { batch: r.batch, round });
    (rounds[round] ??= []).push(r);
  }
  return rounds;
}

/**
 * A claim batch as ONE `INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING`: the
 * requests as columns of `unnest`, each row's overlap check decided in the same
 * statement, a taken slot a no-op. `RETURNING` lists the rows inserted; a request
 * without one lost its slot. Repeated `(job, slot)`: the first request (ordinality) wins.
 */
export function claimsStatement(t: PgTables, requests: readonly ClaimRequest[]): PgStatement {
  const col = <T>(f: (r: ClaimRequest) => T): T[] => requests.map(f);
  return {
    text: `WITH req AS MATERIALIZED (
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
          $8::bigint[], $9::bigint[]) WITH ORDINALITY AS r(job, slot, kind, want, overlap, node, batch, now, lease, k)
      ),
      decided AS MATERIALIZED (
        SELECT req.*, CASE
          WHEN want = 'missed' THEN 'missed'
          WHEN overlap = 'skip' AND EXISTS (
            SELECT 1 FROM ${t.runs} o
            WHERE o.job = req.job AND o.status = 'running' AND o.lease_until > req.now AND o.batch <> req.batch
          ) THEN 'skipped'
          ELSE 'running' END AS status
        FROM req
      )
      INSERT INTO ${t.runs} (${PG_COLUMNS}, batch)
      SELECT job, slot, kind, status, 1, node, now, now,
        CASE WHEN status = 'running' THEN NULL ELSE now END,
        CASE WHEN status = 'running' THEN lease ELSE NULL END,
        NULL, batch
      FROM decided ORDER BY k
      ON CONFLICT (job, slot) DO NOTHING
      RETURNING job, slot, status`,
    args: [
      col((r) => r.job),
      col((r) => r.slot),
      col((r) => r.kind),
      col((r) => r.status),
      col((r) => r.overlap),
      col((r) => r.node),
      col((r) => r.batch),
      col((r) => r.now),
      col((r) => (r.status === "running" ? r.leaseUntil : null)),
    ],
  };
}

const KEY_WHERE = "job = $1 AND slot = $2 AND attempt = $3 AND node = $4 AND status = 'running'";

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
export function updateManyStatement(t: PgTables, writes: readonly { key: AttemptKey; patch: RunPatch }[]): PgStatement | undefined {
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
  const sets = PATCH.map(([, column], bit) => `${column} = CASE WHEN req.mask & ${1 << bit} <> 0 THEN req.new_${column} ELSE r.${column} END`);
  const columns = PATCH.map(([, column]) => `new_${column}`).join(", ");
  const types = PATCH.map(([, , type], i) => `$${i + 6}::${type}[]`).join(", ");
  return {
    text: `UPDATE ${t.runs} AS r SET ${sets.join(", ")}
      FROM unnest($1::text[], $2::bigint[], $3::integer[], $4::text[], $5::integer[], ${types})
        AS req(job, slot, attempt, node, mask, ${columns})
      WHERE r.job = req.job AND r.slot = req.slot AND r.attempt = req.attempt AND r.node = req.node AND r.status = 'running'
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
    args: [items.map((i) => i.job), items.map((i) => i.slot), items.map((i) => i.attempt), items.map((i) => i.node), items.map((i) => i.leaseUntil), now],
  };
}

/**
 * `reap()`: ended leases become `abandoned`. `FOR UPDATE SKIP LOCKED` lets concurrent
 * reapers split the rows without waiting on one another; a row another node is
 * finishing right now is left to that node.
 */
export function reapStatement(t: PgTables, now: number, error: string): PgStatement {
  return {
    text: `UPDATE ${t.runs} AS r SET status = 'abandoned', finished_at = $1::bigint, error = $2::text
      FROM (SELECT job, slot FROM ${t.runs} WHERE status = 'running' AND lease_until < $1::bigint FOR UPDATE SKIP LOCKED) AS due
      WHERE r.job = due.job AND r.slot = due.slot AND r.status = 'running'
      RETURNING ${prefixed("r")}`,
    args: [now, error],
  };
}

/** `reclaim()`: the next attempt of a finished, retryable row; with `skip`, only while no other run of the job is live. */
export function reclaimStatement(
  t: PgTables,
  key: { job: string; slot: number; attempt: number },
  node: string,
  now: number,
  leaseUntil: number,
  overlap: "skip" | "allow",
): PgStatement {
  return {
    text: `UPDATE ${t.runs}
      SET status = 'running', attempt = attempt + 1, node = $1::text, batch = $2::text,
        started_at = $3::bigint, finished_at = NULL, lease_until = $4::bigint, error = NULL
      WHERE job = $5::text AND slot = $6::bigint AND attempt = $7::integer AND status IN ('abandoned', 'error', 'timeout')
        AND NOT ($8::text = 'skip' AND EXISTS (
          SELECT 1 FROM ${t.runs} o WHERE o.job = $5::text AND o.status = 'running' AND o.lease_until > $3::bigint
        ))
      RETURNING attempt`,
    args: [node, `reclaim:${node}:${key.attempt + 1}`, now, leaseUntil, key.job, key.slot, key.attempt, overlap],
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
    : { text: `SELECT ${PG_COLUMNS} FROM ${t.runs} WHERE job = $1 AND slot < $2 ORDER BY slot DESC LIMIT $3`, args: [job, before, limit] };
}

/** `lastOutcomes()`: per job, the newest non-running row (one backward index walk each). */
export function lastOutcomesStatement(t: PgTables, names: readonly string[]): PgStatement {
  return {
    text: `SELECT ${prefixed("r")} FROM (SELECT DISTINCT unnest($1::text[]) AS name) n
      CROSS JOIN LATERAL (
        SELECT ${PG_COLUMNS} FROM ${t.runs} x WHERE x.job = n.name AND x.status <> 'running' ORDER BY x.slot DESC LIMIT 1
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

/** `putDef()`'s write: upsert, insert-if-absent (`ifVersion: 0`) or compare-and-set on the version. */
export function putDefStatement(t: PgTables, name: string, spec: string, now: number, expected: number | undefined): PgStatement {
  if (expected === undefined) {
    return {
      text: `INSERT INTO ${t.defs} AS d (name, spec, version, updated_at) VALUES ($1, $2::text::jsonb, 1, $3::bigint)
        ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, version = d.version + 1, updated_at = excluded.updated_at
        RETURNING version`,
      args: [name, spec, now],
    };
  }
  if (expected === 0) {
    return {
      text: `INSERT INTO ${t.defs} (name, spec, version, updated_at) VALUES ($1, $2::text::jsonb, 1, $3::bigint)
        ON CONFLICT (name) DO NOTHING RETURNING version`,
      args: [name, spec, now],
    };
  }
  return {
    text: `UPDATE ${t.defs} SET spec = $2::text::jsonb, version = version + 1, updated_at = $3::bigint
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
