/**
 * The claim statements of the Postgres store: the per-job advisory locks that serialise
 * overlap checks across pools, the split of a call into rounds, the one-statement
 * insert with its overlap decision, and the `cancelOther` follow-ups.
 */
import {
  COUNTED_SQL_LIST,
  DEFAULT_BUFFER_LIMIT,
  SKIP_BUFFER_FULL,
  SKIP_OVERLAP,
  SKIP_SUPERSEDED,
} from "../_validate.ts";
import type { ClaimRequest, SlotKey } from "../types.ts";
import type { PgStatement } from "./connection.ts";
import type { PgTables } from "./schema.ts";
import { LIVE, OPEN, PG_COLUMNS } from "./statements.ts";

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

/**
 * The jobs of a claim batch whose check must be serialised: the overlap check (every
 * policy but `allow`) and the `maxRuns` count, of requests to run.
 */
export function jobsToLock(requests: readonly ClaimRequest[]): string[] {
  return [
    ...new Set(
      requests.filter((r) => r.status === "running" && (r.overlap !== "allow" || r.maxRuns !== undefined))
        .map((r) => r.job),
    ),
  ];
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
 * requests as columns of `unnest`, each row's overlap decision (`decideClaim` in
 * ../_overlap.ts, as the SQLite stores' claims.ts writes it) made in the same statement,
 * a taken slot a no-op. `rn` is a request's place among its job's running requests of
 * the batch, so the buffer counts the slots buffered before it in this statement.
 * `RETURNING` lists the rows inserted; a request without one lost its slot. Repeated
 * `(job, slot)`: the first request (ordinality) wins. A request with `maxRuns` is
 * refused (no row) when the job's used runs plus the requests of the statement admitted
 * before it reach the limit, counted under the job's claim lock.
 */
export function claimsStatement(t: PgTables, requests: readonly ClaimRequest[]): PgStatement {
  const col = <T>(f: (r: ClaimRequest) => T): T[] => requests.map(f);
  return {
    text: `WITH req AS MATERIALIZED (
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
          $8::bigint[], $9::bigint[], $10::integer[], $13::bigint[])
          WITH ORDINALITY AS r(job, slot, kind, want, overlap, node, batch, now, lease, cap, lim, k)
      ),
      ranked AS MATERIALIZED (
        SELECT req.*, SUM(CASE WHEN want = 'running' THEN 1 ELSE 0 END)
          OVER (PARTITION BY job ORDER BY k ROWS UNBOUNDED PRECEDING) AS rn
        FROM req
      ),
      facts AS MATERIALIZED (
        SELECT ranked.*,
          CASE WHEN want = 'running' AND overlap <> 'allow' AND EXISTS (
            SELECT 1 FROM ${t.runs} o
            WHERE o.job = ranked.job AND o.status IN ${LIVE} AND o.lease_until >= ranked.now AND o.batch <> ranked.batch
          ) THEN 1 ELSE 0 END AS live,
          CASE WHEN want = 'running' AND overlap IN ('bufferOne', 'bufferAll', 'cancelOther')
            THEN (SELECT COUNT(*) FROM ${t.runs} q WHERE q.job = ranked.job AND q.status = 'buffered') ELSE 0 END AS queued,
          CASE WHEN want = 'running' AND lim IS NOT NULL THEN
            (SELECT COUNT(*) FROM ${t.runs} c
              WHERE c.job = ranked.job AND (c.status IN ${COUNTED_SQL_LIST} OR c.status IN ${OPEN}))
            + COALESCE((SELECT j.pruned_runs FROM ${t.jobs} j WHERE j.name = ranked.job), 0)
            ELSE 0 END AS used,
          -- A request that will lose its slot takes nothing from the limit.
          CASE WHEN want = 'running' AND lim IS NOT NULL AND EXISTS (
            SELECT 1 FROM ${t.runs} x WHERE x.job = ranked.job AND x.slot = ranked.slot
          ) THEN 1 ELSE 0 END AS taken
        FROM ranked
      ),
      decided AS MATERIALIZED (
        SELECT facts.*, CASE
          WHEN want = 'missed' THEN 'missed'
          WHEN overlap = 'allow' THEN 'running'
          WHEN overlap = 'skip' THEN CASE WHEN live = 1 THEN 'skipped' ELSE 'running' END
          WHEN live = 0 AND queued = 0 THEN 'running'
          WHEN overlap = 'bufferOne' THEN CASE WHEN queued + rn - 1 = 0 THEN 'buffered' ELSE 'skipped' END
          WHEN overlap = 'bufferAll' THEN CASE WHEN queued + rn - 1 < cap THEN 'buffered' ELSE 'skipped' END
          ELSE 'buffered' END AS status
        FROM facts
      ),
      limited AS MATERIALIZED (
        SELECT decided.*, CASE WHEN lim IS NOT NULL AND taken = 0 AND status IN ('running', 'buffered')
            AND used + SUM(CASE WHEN lim IS NOT NULL AND taken = 0 AND status IN ('running', 'buffered') THEN 1 ELSE 0 END)
              OVER (PARTITION BY job ORDER BY k ROWS UNBOUNDED PRECEDING) > lim
          THEN 1 ELSE 0 END AS refused
        FROM decided
      )
      INSERT INTO ${t.runs} (${PG_COLUMNS}, batch)
      SELECT job, slot, kind, status, 1, node, now, now,
        CASE WHEN status IN ('running', 'buffered') THEN NULL ELSE now END,
        CASE WHEN status = 'running' THEN lease ELSE NULL END,
        CASE WHEN status = 'skipped' AND overlap = 'bufferOne' THEN $11::text
          WHEN status = 'skipped' AND overlap = 'bufferAll' THEN $12::text ELSE NULL END,
        batch
      FROM limited WHERE refused = 0 ORDER BY k
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
      col((r) => r.bufferLimit ?? DEFAULT_BUFFER_LIMIT),
      SKIP_OVERLAP,
      SKIP_BUFFER_FULL,
      col((r) => r.maxRuns ?? null),
    ],
  };
}

/**
 * After a call's inserts, in the same transaction: the `(job, slot)` of each `running`
 * request with `maxRuns` that has no row (it inserted nothing and found no row to lose
 * to: the limit refused it). Null when no request has `maxRuns`.
 */
export function refusedStatement(t: PgTables, requests: readonly ClaimRequest[]): PgStatement | null {
  const limited = requests.filter((r) => r.maxRuns !== undefined && r.status === "running");
  if (limited.length === 0) return null;
  return {
    text: `SELECT q.job, q.slot FROM unnest($1::text[], $2::bigint[]) AS q(job, slot)
      WHERE NOT EXISTS (SELECT 1 FROM ${t.runs} r WHERE r.job = q.job AND r.slot = q.slot)`,
    args: [limited.map((r) => r.job), limited.map((r) => r.slot)],
  };
}

/** `recorded()`: the request indexes (from 1) of the slots without a row, one primary-key probe each. */
export function recordedStatement(t: PgTables, slots: readonly SlotKey[]): PgStatement {
  return {
    text: `SELECT q.i FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS q(job, slot, i)
      WHERE NOT EXISTS (SELECT 1 FROM ${t.runs} r WHERE r.job = q.job AND r.slot = q.slot)`,
    args: [slots.map((s) => s.job), slots.map((s) => s.slot)],
  };
}

/**
 * After a claim round's insert, in the same transaction: for each job a `cancelOther`
 * request of the round buffered, its live runs from other batches become `cancelling`
 * (their holders see it at their next renewal and abort) and its older buffered
 * scheduled slots are `skipped` (superseded). Empty when the round has no such request.
 */
export function supersedeStatements(t: PgTables, requests: readonly ClaimRequest[]): PgStatement[] {
  const byBatch = new Map<string, { jobs: Set<string>; now: number }>();
  for (const r of requests) {
    if (r.overlap !== "cancelOther" || r.status !== "running") continue;
    const entry = byBatch.get(r.batch) ?? { jobs: new Set<string>(), now: r.now };
    entry.jobs.add(r.job);
    byBatch.set(r.batch, entry);
  }
  return [...byBatch].flatMap(([batch, { jobs, now }]) => [
    {
      text: `UPDATE ${t.runs} AS r SET status = 'cancelling'
        WHERE r.status = 'running' AND r.batch <> $1::text AND r.lease_until >= $2::bigint AND r.job = ANY($3::text[])
          AND EXISTS (SELECT 1 FROM ${t.runs} b WHERE b.job = r.job AND b.batch = $1::text AND b.status = 'buffered')`,
      args: [batch, now, [...jobs]],
    },
    {
      text: `UPDATE ${t.runs} AS r SET status = 'skipped', finished_at = $2::bigint, error = $4::text
        WHERE r.status = 'buffered' AND r.kind = 'scheduled' AND r.job = ANY($3::text[])
          AND r.slot < (SELECT MAX(b.slot) FROM ${t.runs} b WHERE b.job = r.job AND b.batch = $1::text AND b.status = 'buffered')`,
      args: [batch, now, [...jobs], SKIP_SUPERSEDED],
    },
  ]);
}
