/**
 * The `Store` over any SQLite-family `SqlExecutor`: libSQL and D1 are this one store
 * with a different connection underneath, so both run the same statements.
 */
import { emptySnapshot } from "../_snapshot.ts";
import {
  claimOutcomes,
  claimsStatement,
  claimStatement,
  recordedOf,
  recordedStatement,
  refusedStatement,
  supersedeStatements,
  uniformClaim,
} from "./claims.ts";
import { sqlDefs } from "./defs.ts";
import type { SqlExecutor, SqlStatement } from "./executor.ts";
import { sqlReads } from "./reads.ts";
import { migrate } from "./schema.ts";
import { sqlSettings } from "./settings.ts";
import {
  attemptKeyText,
  enqueueStatements,
  instantColumn,
  isRunningStatement,
  jobDef,
  promoteStatements,
  pruneRowsStatements,
  pruneStatements,
  readStatements,
  reapStatement,
  reclaimStatement,
  renewStatement,
  runRecord,
  slotKeyText,
  SNAPSHOT_PAGE,
  snapshotPageStatement,
  snapshotReadStatements,
  snapshotWriteStatements,
  stateRows,
  UPDATE_PART,
  updateManyStatements,
  updateStatement,
} from "./statements.ts";
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
  checkSlotKeys,
  checkText,
  checkUpdate,
  checkUpdates,
  LEASE_EXPIRED,
  pauseRecord,
  setOwn,
  SKIP_MAX_RUNS,
} from "../_validate.ts";
import type {
  AttemptKey,
  ClaimResult,
  EnqueueOutcome,
  JobState,
  RunPatch,
  RunRecord,
  RunUpdate,
  Store,
  TickSnapshot,
} from "../types.ts";
import { quote } from "../../core/errors.ts";
import { nextTurn } from "../_turn.ts";
import { withLanded } from "../_landed.ts";
import type { SqlResult } from "./executor.ts";

/** Whether the states read have a row for every name of the page (nothing for `snapshot()` to insert). */
function hasEveryRow(names: readonly string[], states: unknown[][]): boolean {
  const seen = new Set<string>();
  for (const row of states) seen.add(String(row[0]));
  for (const name of names) if (!seen.has(name)) return false;
  return true;
}

/**
 * The names `snapshot()` reads after its first page: the asked names past it, then the
 * data-defined jobs not asked for (their states come with every snapshot).
 */
function laterNames(names: readonly string[], defs: SqlResult | undefined): string[] {
  const rest = names.slice(SNAPSHOT_PAGE);
  const defined = defs?.rows ?? [];
  if (defined.length === 0) return rest;
  const asked = new Set(names);
  for (const row of defined) {
    const name = String(row.name);
    if (!asked.has(name)) rest.push(name);
  }
  return rest;
}

/** The statement of one compare-and-set (a read when the patch sets nothing). */
function casStatement(key: AttemptKey, patch: RunPatch): SqlStatement {
  return updateStatement(key, patch) ?? isRunningStatement(key);
}

/**
 * Creates the SQL `Store` on `db`. The schema is migrated on `init()` or on first use.
 * Every write is one `db.write()` batch (one transaction, one round trip); every read
 * one `db.read()`.
 */
export function createSqlStore(db: SqlExecutor): Store {
  let ready: Promise<void> | undefined;
  const ensureReady = (): Promise<void> => {
    ready ??= (async () => {
      await db.prepare?.();
      await migrate(db);
    })().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
  const write = async (operation: string, statements: readonly SqlStatement[]): Promise<SqlResult[]> => {
    await ensureReady();
    return db.write(operation, statements);
  };
  /**
   * One part of `updateMany()`: distinct rows (a tick's outcomes) in one set-based
   * statement, after a read of the rows it will refuse (usually none); otherwise one
   * statement per write in one transaction, each seeing the ones before it, as update()
   * calls in order would.
   */
  const updatePart = async (writes: readonly RunUpdate[]): Promise<boolean[]> => {
    const grouped = updateManyStatements(writes);
    if (grouped !== undefined) {
      const results = await write("updateMany", grouped);
      const refused = results.flatMap((result) => result.rows);
      if (refused.length === 0) return writes.map(() => true);
      const keys = new Set(refused.map((row) => slotKeyText(row.job, row.slot)));
      return writes.map(({ key }) => !keys.has(slotKeyText(key.job, key.slot)));
    }
    const results = await write("updateMany", writes.map(({ key, patch }) => casStatement(key, patch)));
    return results.map((result) => result.rows.length > 0);
  };
  /** Adds the job states (with watermarks) of `states` ({@link stateRows}) to `snapshot`. */
  const addStates = (snapshot: TickSnapshot, states: unknown[][]): void => {
    for (const [rawName, firstSeen, rawPaused, note, pausedAt, pausedBy, rawPruned, rawWatermark] of states) {
      const name = String(rawName);
      const paused = Number(rawPaused) === 1;
      const first = instantColumn(firstSeen);
      const state: JobState = { name, firstSeen: first ?? 0, paused };
      const pruned = Number(rawPruned ?? 0);
      if (Number.isSafeInteger(pruned) && pruned > 0) state.prunedRuns = pruned;
      if (paused && pausedAt !== null && pausedAt !== undefined) {
        state.pause = {
          note: note === null || note === undefined ? null : String(note),
          at: Number(pausedAt),
          by: String(pausedBy),
        };
      }
      // One unreadable column disables its job alone, named so an operator can fix the row.
      if (first === undefined) {
        state.broken = `${db.label}: edgecron_jobs row ${quote(name)}: column first_seen is not an integer (got ${
          quote(String(firstSeen))
        })`;
      }
      if (rawWatermark !== null && rawWatermark !== undefined) {
        const watermark = instantColumn(rawWatermark);
        if (watermark !== undefined) setOwn(snapshot.watermarks, name, watermark);
        else {state.broken ??= `${db.label}: edgecron_runs rows of ${quote(name)}: column slot is not an integer (got ${
            quote(String(rawWatermark))
          })`;}
      }
      setOwn(snapshot.jobs, name, state);
    }
  };
  const planningState = (
    states: SqlResult | undefined,
    defs: SqlResult | undefined,
    running: SqlResult | undefined,
  ): TickSnapshot => {
    const snapshot = emptySnapshot();
    addStates(snapshot, stateRows(states));
    snapshot.defs = (defs?.rows ?? []).map((row) => jobDef(row, db.label));
    for (const row of running?.rows ?? []) {
      if (instantColumn(row.slot) !== undefined) snapshot.running.push(runRecord(row));
    }
    return snapshot;
  };
  /**
   * One page of `snapshot()`'s names into `snapshot`: its states as read (`read`, or a
   * fresh read), or, when a name has no state row yet, the write that inserts the
   * missing rows and reads the page again in its transaction.
   */
  const snapshotPage = async (
    snapshot: TickSnapshot,
    names: readonly string[],
    now: number,
    read?: SqlResult,
  ): Promise<void> => {
    const states = stateRows(read ?? (await db.read("snapshot", [snapshotPageStatement(names)]))[0]);
    if (hasEveryRow(names, states)) return addStates(snapshot, states);
    const [, written] = await write("snapshot", snapshotWriteStatements(names, now));
    addStates(snapshot, stateRows(written));
  };

  const store: Omit<Store, "getSetting" | "putSetting"> = {
    init: ensureReady,

    close: () => db.close(),

    setCallTimeout(ms: number): void {
      db.setCallTimeout?.(ms);
    },

    async snapshot(names, now): Promise<TickSnapshot> {
      checkNames(names, "snapshot.names");
      checkInstant(now, "snapshot.now");
      await ensureReady();
      // In pages of SNAPSHOT_PAGE names with a turn of the event loop between them: the
      // embedded driver runs a statement synchronously, and one statement over 100 000
      // names blocked the loop for 3 s. The definitions and open rows are read once, with
      // the first page (one round trip when the job set fits a page). Pages are separate
      // reads, not one view: a claim made meanwhile is still refused by the store's claim.
      // Once every job has its state row (every tick but the first few), a page is a
      // read: no write lock, so nodes ticking the same minute do not queue on one another
      // (4 processes on one file retried this write up to 36 times a minute). Only a page
      // with a missing row takes the write.
      const first = names.slice(0, SNAPSHOT_PAGE);
      const [states, defs, running] = await db.read("snapshot", snapshotReadStatements(first));
      const snapshot = planningState(undefined, defs, running);
      await snapshotPage(snapshot, first, now, states);
      const rest = laterNames(names, defs);
      for (let i = 0; i < rest.length; i += SNAPSHOT_PAGE) {
        await nextTurn();
        await snapshotPage(snapshot, rest.slice(i, i + SNAPSHOT_PAGE), now);
      }
      return snapshot;
    },

    async read(names): Promise<TickSnapshot> {
      checkNames(names, "read.names");
      await ensureReady();
      const [states, defs, running] = await db.read("read", readStatements(names));
      return planningState(states, defs, running);
    },

    async claim(requests): Promise<ClaimResult[]> {
      checkClaims(requests);
      if (requests.length === 0) return [];
      // A minute's batch of requests alike but for the job: an insert and a read of the exceptions.
      const uniform = uniformClaim(requests);
      if (uniform !== undefined) return uniform.outcomes(await write("claim", uniform.statements));
      // A tick sends one batch id: one statement. Mixed ids need one statement per claim.
      const single = requests.every((r) => r.batch === requests[0]?.batch);
      // A cancelOther claim's follow-up goes right after the insert that buffered it.
      const statements = single
        ? [claimsStatement(requests), ...supersedeStatements(requests)]
        : requests.flatMap((r) => [claimStatement(r), ...supersedeStatements([r])]);
      // maxRuns: which limited requests found no row, read in the same transaction.
      const refused = refusedStatement(requests);
      const results = await write("claim", refused === undefined ? statements : [...statements, refused]);
      const limited = refused === undefined ? [] : results.pop()?.rows ?? [];
      return claimOutcomes(requests, results.flatMap((result) => result.rows), limited);
    },

    async recorded(slots): Promise<boolean[]> {
      checkSlotKeys(slots);
      if (slots.length === 0) return [];
      await ensureReady();
      const [result] = await db.read("recorded", [recordedStatement(slots)]);
      return recordedOf(slots, result?.rows ?? []);
    },

    async update(key, patch): Promise<boolean> {
      checkUpdate(key, patch);
      const [result] = await write("update", [casStatement(key, patch)]);
      return (result?.rows.length ?? 0) > 0;
    },

    async updateMany(writes): Promise<boolean[]> {
      checkUpdates(writes);
      // In parts of UPDATE_PART writes, in order, each its own transaction, a turn of the
      // event loop between them: on a `file:` database the driver's work is synchronous,
      // and a tick's 20 000 outcomes in one transaction held the event loop for about 1 s
      // (timers, lease renewals, HTTP reads). Nothing needs the group to be atomic: each
      // write is a compare-and-set of its own row, so a part that landed before a later
      // part failed is not applied twice; the outcome writer reads each row of a failed
      // group back (as after a timeout, whose fate is unknown) before it retries.
      const results: boolean[] = [];
      try {
        for (let at = 0; at < writes.length; at += UPDATE_PART) {
          if (at > 0) await nextTurn();
          results.push(...await updatePart(writes.slice(at, at + UPDATE_PART)));
        }
      } catch (e) {
        // The parts before this one committed: their results go with the error.
        throw withLanded(e, results);
      }
      return results;
    },

    async renew(items, now): Promise<boolean[]> {
      checkRenewals(items, now);
      if (items.length === 0) return [];
      const [result] = await write("renew", [renewStatement(items, now)]);
      const renewed = new Set((result?.rows ?? []).map(attemptKeyText));
      return items.map((item) => renewed.has(attemptKeyText(item)));
    },

    async reap(now): Promise<RunRecord[]> {
      checkInstant(now, "reap.now");
      const [result] = await write("reap", [reapStatement(now, LEASE_EXPIRED, CANCELLED_SUPERSEDED)]);
      return (result?.rows ?? []).map(runRecord);
    },

    async promote(request): Promise<RunRecord | undefined> {
      checkPromote(request);
      const results = await write("promote", promoteStatements(request, SKIP_MAX_RUNS));
      const row = results.at(-1)?.rows[0];
      return row === undefined ? undefined : runRecord(row);
    },

    async enqueue(requests): Promise<EnqueueOutcome[]> {
      checkEnqueue(requests);
      if (requests.length === 0) return [];
      const [inserted, requeued] = await write("enqueue", enqueueStatements(requests));
      const keyOf = (row: Record<string, unknown>): string => JSON.stringify([String(row.job), Number(row.slot)]);
      const queued = new Set((inserted?.rows ?? []).map(keyOf));
      const again = new Set((requeued?.rows ?? []).map(keyOf));
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
      const [result] = await write("reclaim", [
        reclaimStatement({ job, slot, attempt }, node, now, leaseUntil, overlap, maxRuns),
      ]);
      return (result?.rows.length ?? 0) > 0;
    },

    ...sqlReads(db, ensureReady),

    async setPaused(name, paused, now, info): Promise<void> {
      checkText(name, "setPaused.name");
      checkBoolean(paused, "setPaused.paused");
      checkInstant(now, "setPaused.now");
      const pause = pauseRecord(paused, now, info);
      await write("setPaused", [{
        sql:
          `INSERT INTO edgecron_jobs (name, first_seen, paused, pause_note, paused_at, paused_by) VALUES (?, ?, ?, ?, ?, ?)
          ON CONFLICT (name) DO UPDATE SET paused = excluded.paused, pause_note = excluded.pause_note,
            paused_at = excluded.paused_at, paused_by = excluded.paused_by`,
        args: [name, now, paused ? 1 : 0, pause?.note ?? null, pause?.at ?? null, pause?.by ?? null],
      }]);
    },

    ...sqlDefs(db, ensureReady),

    async prune(before): Promise<number> {
      checkInstant(before, "prune.before");
      const [, result] = await write("prune", pruneStatements(before));
      return result?.changes ?? 0;
    },

    async pruneRows(job, keep): Promise<number> {
      checkText(job, "pruneRows.job");
      checkKeep(keep);
      const [, result] = await write("pruneRows", pruneRowsStatements(job, keep));
      return result?.changes ?? 0;
    },
  };
  return { ...store, ...sqlSettings(db, ensureReady) };
}
