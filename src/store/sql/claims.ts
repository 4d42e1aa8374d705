/**
 * The claim SQL of the libSQL and D1 stores: the overlap check and the insert are ONE
 * statement, so no other writer can slip a running row in between them.
 */
import type { SqlRow, SqlStatement } from "./executor.ts";
import { bind, COLUMNS } from "./statements.ts";
import type { ClaimOutcome, ClaimRequest, ClaimResult } from "../types.ts";

/**
 * A whole claim batch as ONE statement: the requests go in as one JSON array, each
 * row's overlap check (`EXISTS` a live running row of the job from another batch) is
 * decided inside the statement, and `ON CONFLICT DO NOTHING` makes a taken slot a
 * no-op. `RETURNING` lists the rows this statement inserted; a request without one
 * lost its slot. One statement instead of one per request measured ~6x more claims/s
 * on a file at 1000 per batch (the driver prepares every statement it runs).
 * The CTEs are MATERIALIZED so the `EXISTS` runs once per request, not once per use.
 */
export function claimsStatement(requests: readonly ClaimRequest[]): SqlStatement {
  const rows = requests.map((r) => [
    r.job,
    r.slot,
    r.kind,
    r.status,
    r.overlap,
    r.node,
    r.batch,
    r.now,
    r.status === "running" ? r.leaseUntil : null,
  ]);
  return {
    sql: `WITH req AS MATERIALIZED (
        SELECT r.key AS k,
          json_extract(r.value, '$[0]') AS job, json_extract(r.value, '$[1]') AS slot,
          json_extract(r.value, '$[2]') AS kind, json_extract(r.value, '$[3]') AS want,
          json_extract(r.value, '$[4]') AS overlap, json_extract(r.value, '$[5]') AS node,
          json_extract(r.value, '$[6]') AS batch, json_extract(r.value, '$[7]') AS now,
          json_extract(r.value, '$[8]') AS lease
        FROM json_each(?) r
      ),
      decided AS MATERIALIZED (
        SELECT req.*, CASE
          WHEN want = 'missed' THEN 'missed'
          WHEN overlap = 'skip' AND EXISTS (
            SELECT 1 FROM edgecron_runs o
            WHERE o.job = req.job AND o.status = 'running' AND o.lease_until >= req.now AND o.batch <> req.batch
          ) THEN 'skipped'
          ELSE 'running' END AS status
        FROM req
      )
      INSERT INTO edgecron_runs (${COLUMNS}, batch)
      SELECT job, slot, kind, status, 1, node, now, now,
        CASE WHEN status = 'running' THEN NULL ELSE now END,
        CASE WHEN status = 'running' THEN lease ELSE NULL END,
        NULL, batch
      FROM decided WHERE true ORDER BY k
      ON CONFLICT (job, slot) DO NOTHING
      RETURNING job, slot, status`,
    args: [JSON.stringify(rows)],
  };
}

/**
 * One claim as one statement, for a call that mixes batch ids: those claims can block
 * one another, so each needs to see the rows the ones before it inserted.
 */
export function claimStatement(r: ClaimRequest): SqlStatement {
  return bind(
    `INSERT INTO edgecron_runs (${COLUMNS}, batch)
      SELECT :job, :slot, :kind, status, 1, :node, :now, :now,
        CASE WHEN status = 'running' THEN NULL ELSE :now END,
        CASE WHEN status = 'running' THEN :lease ELSE NULL END,
        NULL, :batch
      FROM (SELECT CASE
        WHEN :want = 'missed' THEN 'missed'
        WHEN :overlap = 'skip' AND EXISTS (
          SELECT 1 FROM edgecron_runs o
          WHERE o.job = :job AND o.status = 'running' AND o.lease_until >= :now AND o.batch <> :batch
        ) THEN 'skipped'
        ELSE 'running' END AS status)
      WHERE true
      ON CONFLICT (job, slot) DO NOTHING
      RETURNING job, slot, status`,
    {
      job: r.job,
      slot: r.slot,
      kind: r.kind,
      node: r.node,
      now: r.now,
      lease: r.status === "running" ? r.leaseUntil : null,
      batch: r.batch,
      want: r.status,
      overlap: r.overlap,
    },
  );
}

/** Maps the inserted rows back to the requests, in order; a repeated `(job, slot)` loses to its first request. */
export function claimOutcomes(requests: readonly ClaimRequest[], inserted: readonly SqlRow[]): ClaimResult[] {
  const statusOf = new Map(inserted.map((row) => [`${String(row.job)}\u0000${Number(row.slot)}`, String(row.status)]));
  return requests.map((r) => {
    const key = `${r.job}\u0000${r.slot}`;
    const status = statusOf.get(key);
    statusOf.delete(key);
    const outcome: ClaimOutcome = status === undefined ? "lost" : status === "running" ? "won" : (status as ClaimOutcome);
    return { job: r.job, slot: r.slot, outcome };
  });
}
