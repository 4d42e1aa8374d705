/**
 * The claim SQL of the libSQL and D1 stores: the overlap check and the insert are ONE
 * statement, so no other writer can slip a running row in between them.
 */
import type { SqlResult, SqlRow, SqlStatement } from "./executor.ts";
import { bind, COLUMNS, OPEN_ROWS, slotKeyText } from "./statements.ts";
import {
  COUNTED_SQL_LIST,
  DEFAULT_BUFFER_LIMIT,
  SKIP_BUFFER_FULL,
  SKIP_OVERLAP,
  SKIP_SUPERSEDED,
} from "../_validate.ts";
import type { ClaimOutcome, ClaimRequest, ClaimResult, SlotKey } from "../types.ts";

/**
 * A whole claim batch as ONE statement: the requests go in as one JSON array, each
 * row's overlap check (`EXISTS` a live running row of the job from another batch) is
 * decided inside the statement, and `ON CONFLICT DO NOTHING` makes a taken slot a
 * no-op. `RETURNING` lists the rows this statement inserted; a request without one
 * lost its slot. One statement instead of one per request measured ~6x more claims/s
 * on a file at 1000 per batch (the driver prepares every statement it runs).
 * The CTEs are MATERIALIZED so the `EXISTS` runs once per request, not once per use.
 * A request with `maxRuns` is refused (`limit`, no row) when the job's used runs, plus
 * the requests of this statement admitted before it, reach its limit: the count and
 * the insert are one statement, so no other claimer can slip a run in between.
 */
export function claimsStatement(requests: readonly ClaimRequest[]): SqlStatement {
  if (requests.every(plain)) return plainClaimsStatement(requests);
  const rows = requests.map((r) => [...requestRow(r), r.bufferLimit ?? DEFAULT_BUFFER_LIMIT, r.maxRuns ?? null]);
  return {
    sql: `WITH req AS MATERIALIZED (
        SELECT r.key AS k,
          json_extract(r.value, '$[0]') AS job, json_extract(r.value, '$[1]') AS slot,
          json_extract(r.value, '$[2]') AS kind, json_extract(r.value, '$[3]') AS want,
          json_extract(r.value, '$[4]') AS overlap, json_extract(r.value, '$[5]') AS node,
          json_extract(r.value, '$[6]') AS batch, json_extract(r.value, '$[7]') AS now,
          json_extract(r.value, '$[8]') AS lease, json_extract(r.value, '$[9]') AS cap,
          json_extract(r.value, '$[10]') AS lim
        FROM json_each(?) r
      ),
      ranked AS MATERIALIZED (
        -- rn: this request's place among the job's running requests of the batch, so the
        -- buffer sees the slots buffered before it in the same statement.
        SELECT req.*, SUM(CASE WHEN want = 'running' THEN 1 ELSE 0 END)
          OVER (PARTITION BY job ORDER BY k ROWS UNBOUNDED PRECEDING) AS rn
        FROM req
      ),
      facts AS MATERIALIZED (
        SELECT ranked.*,
          CASE WHEN want = 'running' AND overlap <> 'allow' AND EXISTS (${inBatch(LIVE_SQL)}) THEN 1 ELSE 0 END AS live,
          CASE WHEN want = 'running' AND overlap IN ('bufferOne', 'bufferAll', 'cancelOther')
            THEN (${inBatch(QUEUED_SQL)}) ELSE 0 END AS queued,
          CASE WHEN want = 'running' AND lim IS NOT NULL THEN ${inBatch(USED_SQL)} ELSE 0 END AS used,
          -- A request that will lose its slot takes nothing from the limit.
          CASE WHEN want = 'running' AND lim IS NOT NULL AND EXISTS (
            SELECT 1 FROM edgecron_runs t WHERE t.job = ranked.job AND t.slot = ranked.slot
          ) THEN 1 ELSE 0 END AS taken
        FROM ranked
      ),
      decided AS MATERIALIZED (
        SELECT facts.*, ${DECIDE_SQL} AS status FROM facts
      ),
      limited AS MATERIALIZED (
        SELECT decided.*, CASE WHEN lim IS NOT NULL AND taken = 0 AND status IN ('running', 'buffered')
            AND used + SUM(CASE WHEN lim IS NOT NULL AND taken = 0 AND status IN ('running', 'buffered') THEN 1 ELSE 0 END)
              OVER (PARTITION BY job ORDER BY k ROWS UNBOUNDED PRECEDING) > lim
          THEN 1 ELSE 0 END AS refused
        FROM decided
      )
      INSERT INTO edgecron_runs (${COLUMNS}, batch)
      SELECT job, slot, kind, status, 1, node, now, now,
        CASE WHEN status IN ('running', 'buffered') THEN NULL ELSE now END,
        CASE WHEN status = 'running' THEN lease ELSE NULL END,
        ${SKIP_REASON_SQL}, batch
      FROM limited WHERE refused = 0 ORDER BY k
      ON CONFLICT (job, slot) DO NOTHING
      RETURNING job, slot, status`,
    args: [JSON.stringify(rows)],
  };
}

/**
 * Whether a request needs none of the full statement's per-job bookkeeping: no run
 * limit, and a policy that never buffers (`allow`, or `skip`: a live run of another batch
 * makes it `skipped`). A tick of such jobs, the usual kind, claims through
 * {@link uniformClaim}, or {@link plainClaimsStatement} when its requests differ in more
 * than the job.
 */
const plain = (r: ClaimRequest): boolean =>
  r.maxRuns === undefined && (r.overlap === "skip" || r.overlap === "allow" || r.status === "missed");

/**
 * {@link claimsStatement} for a batch of plain requests: the same rows, decided by the same
 * live-run probe, without the ranking, queue counts and limit that only buffering policies
 * and `maxRuns` read. Each of those steps materialised every request once more: at 2 500
 * requests on a file this form takes about 28 µs of CPU a request against 42 µs (a
 * large minute's claims hold the write lock that much less). A repeated `(job, slot)`
 * still loses to its first request: `json_each` yields the array in order, and the
 * insert takes its rows in that order.
 */
function plainClaimsStatement(requests: readonly ClaimRequest[]): SqlStatement {
  return {
    sql: `INSERT INTO edgecron_runs (${COLUMNS}, batch)
      SELECT job, slot, kind, status, 1, node, now, now,
        CASE WHEN status = 'running' THEN NULL ELSE now END,
        CASE WHEN status = 'running' THEN lease ELSE NULL END, NULL, batch
      FROM (
        SELECT job, slot, kind, node, batch, now, lease, CASE
            WHEN want = 'missed' THEN 'missed'
            WHEN overlap = 'skip' AND EXISTS (${LIVE_SQL.replaceAll("req_", "req.")}) THEN 'skipped'
            ELSE 'running' END AS status
        FROM (
          SELECT json_extract(value, '$[0]') AS job, json_extract(value, '$[1]') AS slot,
            json_extract(value, '$[2]') AS kind, json_extract(value, '$[3]') AS want,
            json_extract(value, '$[4]') AS overlap, json_extract(value, '$[5]') AS node,
            json_extract(value, '$[6]') AS batch, json_extract(value, '$[7]') AS now,
            json_extract(value, '$[8]') AS lease
          FROM json_each(?)
        ) AS req
      ) WHERE true
      ON CONFLICT (job, slot) DO NOTHING
      RETURNING job, slot, status`,
    args: [JSON.stringify(requests.map(requestRow))],
  };
}

/**
 * Whether `r` differs from the batch's first request in its job only: the slot, status,
 * policy and lease a large minute's claims usually share.
 */
function alike(r: ClaimRequest, _: number, all: readonly ClaimRequest[]): boolean {
  const first = all[0]!;
  return r.slot === first.slot && r.kind === first.kind && r.status === first.status &&
    r.overlap === first.overlap && r.node === first.node && r.batch === first.batch && r.now === first.now &&
    r.leaseUntil === first.leaseUntil;
}

/** A claim call as statements to write in one transaction, and how to read their results. */
export interface ClaimBatch {
  statements: SqlStatement[];
  outcomes(results: readonly SqlResult[]): ClaimResult[];
}

/**
 * A minute's batch: plain requests that share everything but the job (see `alike`), each
 * job once. The job names go in as one JSON array of strings and the rest as bound
 * values. In one transaction: a read of the requests whose slot already has a row (they
 * are `lost`), the insert, which returns nothing, and a read of the inserted rows whose
 * status is not the one asked (`skipped` by a live run). Each read is one JSON text,
 * usually `[]`. RETURNING gave the driver a row object per claim, its columns defined one
 * by one, and three strings: at 2 500 claims, allocations that lived through the
 * scavenges of the minute's claim phase, where V8 promoted them (bench/README.md, 24th
 * pass). Undefined when the form does not apply (a job named twice loses its later
 * request, which the row form decides).
 */
export function uniformClaim(requests: readonly ClaimRequest[]): ClaimBatch | undefined {
  if (requests.length === 0 || !requests.every(plain) || !requests.every(alike)) return undefined;
  const jobs = requests.map((q) => q.job);
  if (new Set(jobs).size !== jobs.length) return undefined;
  const r = requests[0]!;
  const status = r.status === "missed"
    ? "'missed'"
    : r.overlap === "skip"
    ? `CASE WHEN EXISTS (${UNIFORM_LIVE_SQL}) THEN 'skipped' ELSE 'running' END`
    : "'running'";
  const args = {
    slot: r.slot,
    kind: r.kind,
    node: r.node,
    now: r.now,
    batch: r.batch,
    lease: r.status === "running" ? r.leaseUntil : null,
    jobs: JSON.stringify(jobs),
  };
  const asked = r.status === "missed" ? "missed" : "running";
  const wanted: ClaimOutcome = asked === "missed" ? "missed" : "won";
  const indexes = (where: string, fields: string): SqlStatement =>
    bind(
      `SELECT json_group_array(${fields}) AS x FROM json_each(:jobs) AS req
        JOIN edgecron_runs r ON r.job = req.value AND r.slot = :slot WHERE ${where}`,
      { jobs: args.jobs, slot: args.slot, asked },
    );
  return {
    statements: [
      indexes("true", "CAST(req.key AS INTEGER)"),
      bind(
        `INSERT INTO edgecron_runs (${COLUMNS}, batch)
          SELECT job, :slot, :kind, status, 1, :node, :now, :now,
            CASE WHEN status = 'running' THEN NULL ELSE :now END,
            CASE WHEN status = 'running' THEN :lease ELSE NULL END, NULL, :batch
          FROM (SELECT req.value AS job, ${status} AS status FROM json_each(:jobs) AS req) WHERE true
          ON CONFLICT (job, slot) DO NOTHING`,
        args,
      ),
      indexes("r.status <> :asked", "json_array(CAST(req.key AS INTEGER), r.status)"),
    ],
    outcomes(results) {
      const out: ClaimResult[] = requests.map((q) => ({ job: q.job, slot: q.slot, outcome: wanted }));
      for (const [i, status] of jsonRows<[number, string]>(results[2])) {
        if (out[i] !== undefined) out[i].outcome = status as ClaimOutcome;
      }
      // A slot with a row before the insert was not this claim's, whatever its status.
      for (const i of jsonRows<number>(results[0])) if (out[i] !== undefined) out[i].outcome = "lost";
      return out;
    },
  };
}

/** The JSON array of a one-row `SELECT json_group_array(...) AS x`. */
const jsonRows = <T>(result: SqlResult | undefined): T[] => {
  const text = result?.rows[0]?.x;
  return typeof text === "string" ? JSON.parse(text) as T[] : [];
};

/** The fields both claim forms read from a request's row array, `$[0]` to `$[8]`. */
const requestRow = (r: ClaimRequest): unknown[] => [
  r.job,
  r.slot,
  r.kind,
  r.status,
  r.overlap,
  r.node,
  r.batch,
  r.now,
  r.status === "running" ? r.leaseUntil : null,
];

// Shared pieces of the two claim forms; `req` names the request's columns in both.
// Both probes name the open-row term of the `edgecron_runs_open` index word for word, so
// each walks the job's few open rows, not its whole history (a 7-day retention keeps
// 10 080 rows of a minutely job, and a claim probed them all before schema version 5).
/** A live run of the job from another batch (a `cancelling` row is still live). */
const LIVE_SQL = `SELECT 1 FROM edgecron_runs o
  WHERE o.job = req_job AND o.${OPEN_ROWS} AND o.status <> 'buffered' AND o.lease_until >= req_now
    AND o.batch <> req_batch`;
/** How many slots of the job wait `buffered`. */
const QUEUED_SQL =
  `SELECT COUNT(*) FROM edgecron_runs q WHERE q.job = req_job AND q.${OPEN_ROWS} AND q.status = 'buffered'`;
/**
 * maxRuns: the job's used runs, as `ClaimRequest.maxRuns` defines them (counted rows,
 * the counted rows pruned since, and every open row).
 */
const USED_SQL = `((SELECT COUNT(*) FROM edgecron_runs c WHERE c.job = req_job
    AND (c.status IN ${COUNTED_SQL_LIST} OR c.status IN ('running', 'cancelling', 'buffered')))
  + COALESCE((SELECT j.pruned_runs FROM edgecron_jobs j WHERE j.name = req_job), 0))`;
/** The inserted status (see `decideClaim` in src/store/_overlap.ts, which this mirrors). */
const DECIDE_SQL = `CASE
  WHEN want = 'missed' THEN 'missed'
  WHEN overlap = 'allow' THEN 'running'
  WHEN overlap = 'skip' THEN CASE WHEN live = 1 THEN 'skipped' ELSE 'running' END
  WHEN live = 0 AND queued = 0 THEN 'running'
  WHEN overlap = 'bufferOne' THEN CASE WHEN queued + rn - 1 = 0 THEN 'buffered' ELSE 'skipped' END
  WHEN overlap = 'bufferAll' THEN CASE WHEN queued + rn - 1 < cap THEN 'buffered' ELSE 'skipped' END
  ELSE 'buffered' END`;
const SKIP_REASON_SQL = `CASE WHEN status = 'skipped' AND overlap = 'bufferOne' THEN '${SKIP_OVERLAP}'
  WHEN status = 'skipped' AND overlap = 'bufferAll' THEN '${SKIP_BUFFER_FULL}' ELSE NULL END`;

const inBatch = (sql: string): string =>
  sql.replaceAll("req_job", "ranked.job").replaceAll("req_now", "ranked.now").replaceAll("req_batch", "ranked.batch");
const alone = (sql: string): string =>
  sql.replaceAll("req_job", ":job").replaceAll("req_now", ":now").replaceAll("req_batch", ":batch");
/** {@link LIVE_SQL} for {@link uniformClaim}: the job is the `json_each` row's value. */
const UNIFORM_LIVE_SQL = alone(LIVE_SQL).replaceAll(":job", "req.value");

/**
 * After a batch's insert, in the same transaction: for each job a `cancelOther` request
 * of `batch` buffered, its live runs from other batches become `cancelling` (their
 * holders see it at their next renewal and abort) and its older buffered scheduled
 * slots are `skipped` (superseded). Empty when the batch has no `cancelOther` request.
 */
export function supersedeStatements(requests: readonly ClaimRequest[]): SqlStatement[] {
  const byBatch = new Map<string, { jobs: Set<string>; now: number }>();
  for (const r of requests) {
    if (r.overlap !== "cancelOther" || r.status !== "running") continue;
    const entry = byBatch.get(r.batch) ?? { jobs: new Set<string>(), now: r.now };
    entry.jobs.add(r.job);
    byBatch.set(r.batch, entry);
  }
  return [...byBatch].flatMap(([batch, { jobs, now }]) => {
    const args = { batch, now, jobs: JSON.stringify([...jobs]), superseded: SKIP_SUPERSEDED };
    return [
      bind(
        `UPDATE edgecron_runs SET status = 'cancelling'
          WHERE status = 'running' AND batch <> :batch AND lease_until >= :now
            AND job IN (SELECT value FROM json_each(:jobs))
            AND EXISTS (SELECT 1 FROM edgecron_runs b WHERE b.job = edgecron_runs.job AND b.batch = :batch AND b.status = 'buffered')`,
        args,
      ),
      bind(
        `UPDATE edgecron_runs SET status = 'skipped', finished_at = :now, error = :superseded
          WHERE status = 'buffered' AND kind = 'scheduled' AND job IN (SELECT value FROM json_each(:jobs))
            AND slot < (SELECT MAX(b.slot) FROM edgecron_runs b
              WHERE b.job = edgecron_runs.job AND b.batch = :batch AND b.status = 'buffered')`,
        args,
      ),
    ];
  });
}

/**
 * One claim as one statement, for a call that mixes batch ids: those claims can block
 * one another, so each needs to see the rows the ones before it inserted.
 */
export function claimStatement(r: ClaimRequest): SqlStatement {
  return bind(
    `INSERT INTO edgecron_runs (${COLUMNS}, batch)
      SELECT :job, :slot, :kind, status, 1, :node, :now, :now,
        CASE WHEN status IN ('running', 'buffered') THEN NULL ELSE :now END,
        CASE WHEN status = 'running' THEN :lease ELSE NULL END,
        ${SKIP_REASON_SQL}, :batch
      FROM (SELECT ${DECIDE_SQL} AS status, overlap FROM (
        SELECT :want AS want, :overlap AS overlap, :cap AS cap, 1 AS rn,
          CASE WHEN :want = 'running' AND :overlap <> 'allow' AND EXISTS (${alone(LIVE_SQL)}) THEN 1 ELSE 0 END AS live,
          CASE WHEN :want = 'running' AND :overlap IN ('bufferOne', 'bufferAll', 'cancelOther')
            THEN (${alone(QUEUED_SQL)}) ELSE 0 END AS queued))
      WHERE NOT (:lim IS NOT NULL AND status IN ('running', 'buffered') AND ${alone(USED_SQL)} >= :lim)
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
      cap: r.bufferLimit ?? DEFAULT_BUFFER_LIMIT,
      lim: r.maxRuns ?? null,
    },
  );
}

/**
 * After a call's inserts, in the same transaction: the `(job, slot)` of each `running`
 * request with `maxRuns` that has no row. Such a request inserted nothing and found no
 * row to lose to, so the limit refused it. Undefined when no request has `maxRuns`.
 */
export function refusedStatement(requests: readonly ClaimRequest[]): SqlStatement | undefined {
  const limited = requests.filter((r) => r.maxRuns !== undefined && r.status === "running").map((r) => [r.job, r.slot]);
  if (limited.length === 0) return undefined;
  return bind(
    `SELECT json_extract(value, '$[0]') AS job, json_extract(value, '$[1]') AS slot FROM json_each(:items)
      WHERE NOT EXISTS (
        SELECT 1 FROM edgecron_runs r WHERE r.job = json_extract(value, '$[0]') AND r.slot = json_extract(value, '$[1]')
      )`,
    { items: JSON.stringify(limited) },
  );
}

/**
 * `recorded()`: the request indexes of the slots WITHOUT a row, one primary-key probe
 * each. Only the unrecorded come back: a helper asks about jobs whose owners have
 * almost always claimed them, so the answer is nearly empty (a `read()` of the same
 * jobs returns a row of state per job, about 5x the CPU on a file).
 */
export function recordedStatement(slots: readonly SlotKey[]): SqlStatement {
  // One slot for all (a minute's probe of other nodes' shares): the names alone, the slot bound once.
  const slot = slots[0]?.slot;
  if (slots.every((s) => s.slot === slot)) {
    return {
      sql: `SELECT CAST(s.key AS INTEGER) AS i FROM json_each(?) s
        WHERE NOT EXISTS (SELECT 1 FROM edgecron_runs r WHERE r.job = s.value AND r.slot = ?)`,
      args: [JSON.stringify(slots.map((s) => s.job)), slot!],
    };
  }
  return {
    sql: `SELECT CAST(s.key AS INTEGER) AS i FROM json_each(?) s
      WHERE NOT EXISTS (SELECT 1 FROM edgecron_runs r
        WHERE r.job = json_extract(s.value, '$[0]') AND r.slot = json_extract(s.value, '$[1]'))`,
    args: [JSON.stringify(slots.map((s) => [s.job, s.slot]))],
  };
}

/** Reads `recorded()`'s answer: true for every slot not listed. */
export function recordedOf(slots: readonly SlotKey[], rows: readonly SqlRow[]): boolean[] {
  const out = slots.map(() => true);
  for (const row of rows) out[Number(row.i)] = false;
  return out;
}

/**
 * Maps the inserted rows back to the requests, in order; a repeated `(job, slot)` loses
 * to its first request. `refused`: the rows of `refusedStatement` (outcome `limit`).
 * Rows that come back in request order (SQLite's, as a rule) are matched in step; from
 * the first that does not, the rest are looked up by key: a key text per row and per
 * request was most of a large claim's allocations here.
 */
export function claimOutcomes(
  requests: readonly ClaimRequest[],
  inserted: readonly SqlRow[],
  refused: readonly SqlRow[] = [],
): ClaimResult[] {
  let statusOf: Map<string, string> | undefined;
  let limited: Set<string> | undefined;
  let k = 0;
  return requests.map((r) => {
    let status: string | undefined;
    const row = statusOf === undefined ? inserted[k] : undefined;
    if (row !== undefined && row.job === r.job && Number(row.slot) === r.slot) {
      status = String(row.status);
      k++;
    } else {
      statusOf ??= new Map(inserted.slice(k).map((row) => [slotKeyText(row.job, row.slot), String(row.status)]));
      const key = slotKeyText(r.job, r.slot);
      status = statusOf.get(key);
      statusOf.delete(key);
    }
    let outcome: ClaimOutcome;
    if (status !== undefined) outcome = status === "running" ? "won" : (status as ClaimOutcome);
    else {
      limited ??= new Set(refused.map((row) => slotKeyText(row.job, row.slot)));
      outcome = r.maxRuns !== undefined && limited.has(slotKeyText(r.job, r.slot)) ? "limit" : "lost";
    }
    return { job: r.job, slot: r.slot, outcome };
  });
}
