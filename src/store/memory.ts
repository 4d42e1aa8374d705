/**
 * The in-memory `Store`: the default for a single process, and the engine's test double.
 */
import { SchedulerError } from "../core/errors.ts";
import {
  checkBoolean,
  checkClaims,
  checkInstant,
  checkNames,
  checkText,
  checkUpdate,
  checkVersion,
  LEASE_EXPIRED,
  resolveRunQuery,
  specText,
  versionConflict,
  zeroCounts,
} from "./_validate.ts";
import type { ClaimResult, JobDef, JobState, RunRecord, StatusCounts, Store, TickSnapshot } from "./types.ts";

/** Options of `createMemoryStore`. */
export interface MemoryStoreOptions {
  /**
   * Asked before every operation; while it returns true every method except `close`
   * rejects with a `store-error`, as an unreachable database would. Default: never.
   */
  failing?: () => boolean;
}

/** A `Store` kept in memory, with a switch to simulate an unreachable backend. */
export interface MemoryStore extends Store {
  /**
   * While `true`, every method except `close` rejects with `SchedulerError` code
   * `store-error` and changes nothing. Lets tests show that a tick fails closed.
   */
  setFailing(failing: boolean): void;
}

/** A row plus the claim batch that wrote it (the overlap check needs it; callers never see it). */
type Row = RunRecord & { batch: string };

const publicRecord = ({ batch: _batch, ...record }: Row): RunRecord => record;

/**
 * Creates an empty in-memory store. All state lives in the returned object; it has the
 * same semantics as `libsqlStore` (the shared contract suite runs against both),
 * including the overlap check and claim batches, but it is per process: use libSQL
 * when several processes or isolates share jobs.
 *
 * Options: `failing` (default: never) — see `MemoryStoreOptions`.
 *
 * @throws Nothing on creation. Methods reject with `store-error` while failing, and
 * with `invalid-*` codes for malformed arguments (before changing anything).
 *
 * @example
 * const store = createMemoryStore();
 * await store.init();
 * const [result] = await store.claim([{ job: "nightly", slot: 1_700_000_000_000, kind: "scheduled",
 *   status: "running", overlap: "skip", node: "a", batch: "t1", now: 1_700_000_000_000,
 *   leaseUntil: 1_700_000_600_000 }]);
 * result.outcome // "won"
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const runs = new Map<string, Map<number, Row>>();
  const jobs = new Map<string, JobState>();
  const defs = new Map<string, JobDef>();
  let failing = false;

  const guard = (operation: string): void => {
    if (failing || options.failing?.() === true) {
      throw new SchedulerError("store-error", `memory store: ${operation} failed: the store is set to fail`);
    }
  };
  const jobRuns = (job: string): Map<number, Row> => {
    let rows = runs.get(job);
    if (rows === undefined) {
      rows = new Map();
      runs.set(job, rows);
    }
    return rows;
  };
  const ensureJob = (name: string, now: number): JobState => {
    let state = jobs.get(name);
    if (state === undefined) {
      state = { name, firstSeen: now, paused: false };
      jobs.set(name, state);
    }
    return state;
  };
  const hasLiveRun = (job: string, now: number, batch: string): boolean => {
    for (const row of runs.get(job)?.values() ?? []) {
      if (row.status === "running" && (row.leaseUntil ?? -Infinity) > now && row.batch !== batch) return true;
    }
    return false;
  };
  const newestFirst = (job: string): Row[] => [...(runs.get(job)?.values() ?? [])].sort((a, b) => b.slot - a.slot);
  const copyDef = (def: JobDef): JobDef => ({ ...def, spec: JSON.parse(JSON.stringify(def.spec)) });

  return {
    setFailing(flag: boolean): void {
      failing = flag;
    },

    async init(): Promise<void> {
      guard("init");
    },

    async close(): Promise<void> {},

    async snapshot(names: readonly string[], now: number): Promise<TickSnapshot> {
      guard("snapshot");
      checkNames(names, "snapshot.names");
      checkInstant(now, "snapshot.now");
      const snapshot: TickSnapshot = { jobs: {}, watermarks: {}, defs: [], running: [] };
      for (const name of names) {
        snapshot.jobs[name] = { ...ensureJob(name, now) };
        let watermark: number | undefined;
        for (const row of runs.get(name)?.values() ?? []) {
          if (row.kind === "scheduled" && (watermark === undefined || row.slot > watermark)) watermark = row.slot;
        }
        if (watermark !== undefined) snapshot.watermarks[name] = watermark;
      }
      snapshot.defs = [...defs.values()].sort((a, b) => a.name.localeCompare(b.name)).map(copyDef);
      for (const rows of runs.values()) {
        for (const row of rows.values()) if (row.status === "running") snapshot.running.push(publicRecord(row));
      }
      return snapshot;
    },

    async claim(requests): Promise<ClaimResult[]> {
      guard("claim");
      checkClaims(requests);
      return requests.map((r): ClaimResult => {
        const rows = jobRuns(r.job);
        if (rows.has(r.slot)) return { job: r.job, slot: r.slot, outcome: "lost" };
        const status = r.status === "missed"
          ? "missed"
          : r.overlap === "skip" && hasLiveRun(r.job, r.now, r.batch)
          ? "skipped"
          : "running";
        rows.set(r.slot, {
          job: r.job,
          slot: r.slot,
          kind: r.kind,
          status,
          attempt: 1,
          node: r.node,
          batch: r.batch,
          claimedAt: r.now,
          startedAt: r.now,
          finishedAt: status === "running" ? null : r.now,
          leaseUntil: status === "running" ? r.leaseUntil : null,
          error: null,
        });
        return { job: r.job, slot: r.slot, outcome: status === "running" ? "won" : status };
      });
    },

    async update(key, patch): Promise<boolean> {
      guard("update");
      checkUpdate(key, patch);
      const row = runs.get(key.job)?.get(key.slot);
      if (row === undefined || row.status !== "running" || row.attempt !== key.attempt || row.node !== key.node) {
        return false;
      }
      const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
      runs.get(key.job)?.set(key.slot, { ...row, ...changes });
      return true;
    },

    async reap(now: number): Promise<RunRecord[]> {
      guard("reap");
      checkInstant(now, "reap.now");
      const reaped: RunRecord[] = [];
      for (const rows of runs.values()) {
        for (const row of rows.values()) {
          if (row.status !== "running" || row.leaseUntil === null || row.leaseUntil >= now) continue;
          const next: Row = { ...row, status: "abandoned", finishedAt: now, error: LEASE_EXPIRED };
          rows.set(row.slot, next);
          reaped.push(publicRecord(next));
        }
      }
      return reaped;
    },

    async reclaim(key, node, now, leaseUntil): Promise<boolean> {
      guard("reclaim");
      checkText(key?.job, "reclaim.key.job");
      checkInstant(key.slot, "reclaim.key.slot");
      checkInstant(key.attempt, "reclaim.key.attempt");
      checkText(node, "reclaim.node");
      checkInstant(now, "reclaim.now");
      checkInstant(leaseUntil, "reclaim.leaseUntil");
      const row = runs.get(key.job)?.get(key.slot);
      const retryable = row?.status === "abandoned" || row?.status === "error" || row?.status === "timeout";
      if (row === undefined || !retryable || row.attempt !== key.attempt) return false;
      runs.get(key.job)?.set(key.slot, {
        ...row,
        status: "running",
        attempt: key.attempt + 1,
        node,
        batch: `reclaim:${node}:${key.attempt + 1}`,
        startedAt: now,
        finishedAt: null,
        leaseUntil,
        error: null,
      });
      return true;
    },

    async getRun(job, slot): Promise<RunRecord | undefined> {
      guard("getRun");
      checkText(job, "getRun.job");
      checkInstant(slot, "getRun.slot");
      const row = runs.get(job)?.get(slot);
      return row === undefined ? undefined : publicRecord(row);
    },

    async runs(job, query): Promise<RunRecord[]> {
      guard("runs");
      checkText(job, "runs.job");
      const { limit, before } = resolveRunQuery(query);
      return newestFirst(job)
        .filter((row) => before === undefined || row.slot < before)
        .slice(0, limit)
        .map(publicRecord);
    },

    async lastOutcomes(names): Promise<Record<string, RunRecord>> {
      guard("lastOutcomes");
      checkNames(names, "lastOutcomes.jobs");
      const result: Record<string, RunRecord> = {};
      for (const name of names) {
        const row = newestFirst(name).find((r) => r.status !== "running");
        if (row !== undefined) result[name] = publicRecord(row);
      }
      return result;
    },

    async counts(names): Promise<Record<string, StatusCounts>> {
      guard("counts");
      checkNames(names, "counts.jobs");
      const result: Record<string, StatusCounts> = {};
      for (const name of names) {
        const counts = zeroCounts();
        for (const row of runs.get(name)?.values() ?? []) counts[row.status] += 1;
        result[name] = counts;
      }
      return result;
    },

    async setPaused(name, paused, now): Promise<void> {
      guard("setPaused");
      checkText(name, "setPaused.name");
      checkBoolean(paused, "setPaused.paused");
      checkInstant(now, "setPaused.now");
      jobs.set(name, { ...ensureJob(name, now), paused });
    },

    async listDefs(): Promise<JobDef[]> {
      guard("listDefs");
      return [...defs.values()].sort((a, b) => a.name.localeCompare(b.name)).map(copyDef);
    },

    async getDef(name): Promise<JobDef | undefined> {
      guard("getDef");
      checkText(name, "getDef.name");
      const def = defs.get(name);
      return def === undefined ? undefined : copyDef(def);
    },

    async putDef(name, spec, now, putOptions = {}): Promise<JobDef> {
      guard("putDef");
      checkText(name, "putDef.name");
      checkInstant(now, "putDef.now");
      const text = specText(spec);
      const expected = putOptions.ifVersion === undefined ? undefined : checkVersion(putOptions.ifVersion, "putDef.ifVersion");
      const current = defs.get(name)?.version ?? 0;
      if (expected !== undefined && expected !== current) throw versionConflict(name, current, expected);
      const def: JobDef = { name, spec: JSON.parse(text), version: current + 1, updatedAt: now };
      defs.set(name, def);
      return copyDef(def);
    },

    async deleteDef(name): Promise<boolean> {
      guard("deleteDef");
      checkText(name, "deleteDef.name");
      return defs.delete(name);
    },

    async prune(before): Promise<number> {
      guard("prune");
      checkInstant(before, "prune.before");
      let removed = 0;
      for (const rows of runs.values()) {
        for (const row of [...rows.values()]) {
          if (row.status !== "running" && row.slot < before) {
            rows.delete(row.slot);
            removed += 1;
          }
        }
      }
      return removed;
    },
  };
}
