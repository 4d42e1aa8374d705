/**
 * The `Store` on Postgres: the port's methods over the dialect's statements
 * (statements.ts); reads are in reads.ts, definitions in defs.ts. A write that is one
 * statement is one round trip on its own; a write that needs several (a claim under
 * job locks, putDef) is one READ COMMITTED transaction; reads of several statements
 * share one REPEATABLE READ snapshot.
 */
import { emptySnapshot } from "../_snapshot.ts";
import { tallyFromReads } from "../_tally.ts";
import { claimOutcomes } from "../sql/claims.ts";
import { attemptKeyText, jobDef, runRecord } from "../sql/statements.ts";
import {
  CANCELLED_SUPERSEDED,
  checkBoolean,
  checkClaims,
  checkEnqueue,
  checkInstant,
  checkKeep,
  checkNames,
  checkPromote,
  checkReclaimRequest,
  checkRenewals,
  checkSettingValue,
  checkSlotKeys,
  checkText,
  checkUpdate,
  checkUpdates,
  LEASE_EXPIRED,
  pauseRecord,
  setOwn,
  SKIP_MAX_RUNS,
} from "../_validate.ts";
import type { ClaimResult, EnqueueOutcome, JobState, RunRecord, Store, TickSnapshot } from "../types.ts";
import type { PgConnection } from "./connection.ts";
import type { PgRow } from "./driver.ts";
import {
  claimRounds,
  claimsStatement,
  jobLocksStatement,
  jobsToLock,
  recordedStatement,
  refusedStatement,
  supersedeStatements,
} from "./claims.ts";
import { pgDefs } from "./defs.ts";
import { pgReads } from "./reads.ts";
import { migrate, type PgTables } from "./schema.ts";
import {
  enqueueStatements,
  ensureJobsStatement,
  promoteStatements,
  pruneRowsStatement,
  pruneStatement,
  readStatements,
  reapStatement,
  reclaimStatement,
  renewStatement,
  setPausedStatement,
  snapshotStatements,
  updateManyStatement,
  updateStatement,
} from "./statements.ts";

function planningState(t: readonly (readonly PgRow[])[]): TickSnapshot {
  const [states = [], defs = [], running = []] = t;
  const snapshot = emptySnapshot();
  for (const row of states) {
    const name = String(row.name);
    const state: JobState = { name, firstSeen: Number(row.first_seen), paused: row.paused === true };
    const pruned = Number(row.pruned_runs ?? 0);
    if (Number.isSafeInteger(pruned) && pruned > 0) state.prunedRuns = pruned;
    if (state.paused && row.paused_at !== null && row.paused_at !== undefined) {
      state.pause = {
        note: row.pause_note === null || row.pause_note === undefined ? null : String(row.pause_note),
        at: Number(row.paused_at),
        by: String(row.paused_by),
      };
    }
    setOwn(snapshot.jobs, name, state);
    if (row.watermark !== null && row.watermark !== undefined) setOwn(snapshot.watermarks, name, Number(row.watermark));
  }
  snapshot.defs = defs.map((row) => jobDef(row, "postgres"));
  snapshot.running = running.map(runRecord);
  return snapshot;
}

/** Creates the Postgres `Store` on `db` with its tables in `t`. The schema is migrated on `init()` or first use. */
export function createPostgresStore(db: PgConnection, t: PgTables): Store {
  let ready: Promise<void> | undefined;
  const ensureReady = (): Promise<void> => {
    ready ??= migrate(db, t).catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };

  const store: Store = {
    // tally(): read() and overview() of the page, reduced (no statement of its own yet).
    tally: tallyFromReads(() => store),
    init: ensureReady,

    close: () => db.close(),

    setCallTimeout(ms: number): void {
      db.setCallTimeout(ms);
    },

    async snapshot(names, now): Promise<TickSnapshot> {
      checkNames(names, "snapshot.names");
      checkInstant(now, "snapshot.now");
      await ensureReady();
      await db.one("snapshot", ensureJobsStatement(t, names, now), "write");
      return planningState(await db.many("snapshot", snapshotStatements(t, names), "read"));
    },

    async read(names): Promise<TickSnapshot> {
      checkNames(names, "read.names");
      await ensureReady();
      return planningState(await db.many("read", readStatements(t, names), "read"));
    },

    async claim(requests): Promise<ClaimResult[]> {
      checkClaims(requests);
      if (requests.length === 0) return [];
      await ensureReady();
      const locks = jobLocksStatement(t, jobsToLock(requests));
      // A cancelOther round's follow-up goes right after the insert that buffered it.
      const writes = claimRounds(requests).flatMap((
        round,
      ) => [claimsStatement(t, round), ...supersedeStatements(t, round)]);
      // maxRuns: which limited requests found no row, read last in the same transaction.
      const refused = refusedStatement(t, requests);
      if (refused !== null) writes.push(refused);
      // The follow-ups return no rows, so every returned row is an inserted claim.
      const results = locks === null && writes.length === 1
        ? [await db.one("claim", writes[0]!, "write")]
        : (await db.many("claim", [locks, ...writes], "write")).slice(1);
      const limited = refused === null ? [] : results.pop() ?? [];
      return claimOutcomes(requests, results.flat(), limited);
    },

    async recorded(slots): Promise<boolean[]> {
      checkSlotKeys(slots);
      if (slots.length === 0) return [];
      await ensureReady();
      const out = slots.map(() => true);
      for (const row of await db.one("recorded", recordedStatement(t, slots), "read")) out[Number(row.i) - 1] = false;
      return out;
    },

    async update(key, patch): Promise<boolean> {
      checkUpdate(key, patch);
      await ensureReady();
      return (await db.one("update", updateStatement(t, key, patch), "write")).length > 0;
    },

    async updateMany(writes): Promise<boolean[]> {
      checkUpdates(writes);
      if (writes.length === 0) return [];
      await ensureReady();
      const grouped = updateManyStatement(t, writes);
      if (grouped !== undefined) {
        const rows = await db.one("updateMany", grouped, "write");
        const changed = new Set(rows.map((row) => JSON.stringify([String(row.job), Number(row.slot)])));
        return writes.map(({ key }) => changed.has(JSON.stringify([key.job, key.slot])));
      }
      const results = await db.many(
        "updateMany",
        writes.map(({ key, patch }) => updateStatement(t, key, patch)),
        "write",
      );
      return results.map((rows) => rows.length > 0);
    },

    async renew(items, now): Promise<boolean[]> {
      checkRenewals(items, now);
      if (items.length === 0) return [];
      await ensureReady();
      const renewed = new Set((await db.one("renew", renewStatement(t, items, now), "write")).map(attemptKeyText));
      return items.map((item) => renewed.has(attemptKeyText(item)));
    },

    async reap(now): Promise<RunRecord[]> {
      checkInstant(now, "reap.now");
      await ensureReady();
      return (await db.one("reap", reapStatement(t, now, LEASE_EXPIRED, CANCELLED_SUPERSEDED), "write")).map(runRecord);
    },

    async promote(request): Promise<RunRecord | undefined> {
      checkPromote(request);
      await ensureReady();
      // Under the job's claim lock, so no claim inserts a running row between the
      // liveness check and this update.
      const results = await db.many("promote", [
        jobLocksStatement(t, [request.job]),
        ...promoteStatements(t, request, SKIP_MAX_RUNS),
      ], "write");
      const row = results.at(-1)?.[0];
      return row === undefined ? undefined : runRecord(row);
    },

    async enqueue(requests): Promise<EnqueueOutcome[]> {
      checkEnqueue(requests);
      if (requests.length === 0) return [];
      await ensureReady();
      const [inserted = [], requeued = []] = await db.many("enqueue", enqueueStatements(t, requests), "write");
      const keyOf = (row: Record<string, unknown>): string => JSON.stringify([String(row.job), Number(row.slot)]);
      const queued = new Set(inserted.map(keyOf));
      const again = new Set(requeued.map(keyOf));
      return requests.map((r) => {
        const key = JSON.stringify([r.job, r.slot]);
        // A slot asked twice in one call: only its first request counts.
        if (queued.delete(key)) return "queued";
        if (again.delete(key)) return "requeued";
        return "exists";
      });
    },

    async reclaim(request): Promise<boolean> {
      const overlap = checkReclaimRequest(request);
      const { job, slot, attempt, node, now, leaseUntil, maxRuns } = request;
      await ensureReady();
      const update = reclaimStatement(t, { job, slot, attempt }, node, now, leaseUntil, overlap, maxRuns);
      // Under the job's claim lock when it checks the job's other rows (overlap, maxRuns).
      const rows = overlap === "skip" || maxRuns !== undefined
        ? (await db.many("reclaim", [jobLocksStatement(t, [job]), update], "write"))[1] ?? []
        : await db.one("reclaim", update, "write");
      return rows.length > 0;
    },

    ...pgReads(db, t, ensureReady),

    async setPaused(name, paused, now, info): Promise<void> {
      checkText(name, "setPaused.name");
      checkBoolean(paused, "setPaused.paused");
      checkInstant(now, "setPaused.now");
      const pause = pauseRecord(paused, now, info);
      await ensureReady();
      await db.one("setPaused", setPausedStatement(t, name, paused, now, pause), "write");
    },

    ...pgDefs(db, t, ensureReady),

    async prune(before) {
      checkInstant(before, "prune.before");
      await ensureReady();
      const [row] = await db.one("prune", pruneStatement(t, before), "write");
      return Number(row?.n ?? 0);
    },

    async pruneRows(job, keep): Promise<number> {
      checkText(job, "pruneRows.job");
      checkKeep(keep);
      await ensureReady();
      const [row] = await db.one("pruneRows", pruneRowsStatement(t, job, keep), "write");
      return Number(row?.n ?? 0);
    },

    async getSetting(key) {
      checkText(key, "getSetting.key");
      await ensureReady();
      const [row] = await db.one(
        "getSetting",
        { text: `SELECT value FROM ${t.settings} WHERE key = $1`, args: [key] },
        "read",
      );
      return row === undefined || row.value === null ? undefined : String(row.value);
    },

    async putSetting(key, value) {
      checkText(key, "putSetting.key");
      checkSettingValue(value);
      await ensureReady();
      await db.one("putSetting", {
        text:
          `INSERT INTO ${t.settings} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        args: [key, value],
      }, "write");
    },
  };
  return store;
}
