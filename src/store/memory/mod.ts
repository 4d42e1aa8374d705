/**
 * The in-memory `Store`: the default for a single process, and the engine's test double.
 */
import { emptySnapshot } from "../_snapshot.ts";
import { SchedulerError } from "../../core/errors.ts";
import {
  CANCELLED_SUPERSEDED,
  checkBoolean,
  checkClaims,
  checkEnqueue,
  checkInstant,
  checkKeep,
  checkNames,
  checkPromote,
  checkReclaim,
  checkRenewals,
  checkSlotKeys,
  checkText,
  checkUpdate,
  checkUpdates,
  LEASE_EXPIRED,
  pauseRecord,
  resolveRunQuery,
  SKIP_MAX_RUNS,
  SKIP_SUPERSEDED,
  zeroCounts,
} from "../_validate.ts";
import { decideClaim, isLiveStatus, isOpenStatus } from "../_overlap.ts";
import { createMemoryDefs } from "./defs.ts";
import { createMemorySettings } from "./settings.ts";
import { createRunTable, publicRecord, type Row } from "./runs.ts";
import { createOverview, createTally } from "./overview.ts";
import { nextTurn } from "../_turn.ts";
import { COUNTED_STATUSES } from "../types.ts";
import type {
  ClaimResult,
  EnqueueOutcome,
  JobDef,
  JobState,
  RunRecord,
  RunUpdate,
  StatusCounts,
  Store,
  TickSnapshot,
} from "../types.ts";

/** Sets `record[key]` as an own property, so a job named `__proto__` is an ordinary key. */
function ownKey<T>(record: Record<string, T>, key: string, value: T): void {
  // Only "__proto__" needs defineProperty; plain assignment is many times faster on a large record.
  if (key === "__proto__") {
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  } else record[key] = value;
}

/**
 * Jobs per turn of the event loop in `snapshot()`: 100 000 jobs in one turn blocked the
 * loop for 250 ms; a page of this many takes a few ms.
 */
export const MEMORY_SNAPSHOT_PAGE = 5_000;

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
 * ```ts
 * import { memoryStore } from "edgecron/store";
 *
 * const store = memoryStore();
 * await store.init();
 * const [result] = await store.claim([{ job: "nightly", slot: 1_700_000_000_000, kind: "scheduled",
 *   status: "running", overlap: "skip", node: "a", batch: "t1", now: 1_700_000_000_000,
 *   leaseUntil: 1_700_000_600_000 }]);
 * console.log(result?.outcome); // "won"
 * ```
 */
export function memoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const table = createRunTable();
  const jobs = new Map<string, JobState>();
  let failing = false;

  const guard = (operation: string): void => {
    if (failing || options.failing?.() === true) {
      throw new SchedulerError("store-error", `memory store: ${operation} failed: the store is set to fail`);
    }
  };
  const defs = createMemoryDefs(guard);
  const ensureJob = (name: string, now: number): JobState => {
    let state = jobs.get(name);
    if (state === undefined) {
      state = { name, firstSeen: now, paused: false };
      jobs.set(name, state);
    }
    return state;
  };
  const hasLiveRun = (job: string, now: number, batch: string): boolean => {
    for (const row of table.runningOf(job)) {
      if (!isLiveStatus(row.status) || row.batch === batch) continue;
      if ((row.leaseUntil ?? -Infinity) >= now) return true;
    }
    return false;
  };
  // maxRuns: counted rows (the pruned ones too), plus the open ones when `open`.
  const usedRuns = (job: string, open: (row: Row) => boolean, among: (row: Row) => boolean = () => true): number => {
    let used = jobs.get(job)?.prunedRuns ?? 0;
    for (const row of table.rows(job)) {
      if (among(row) && (COUNTED_STATUSES.includes(row.status) || open(row))) used += 1;
    }
    return used;
  };
  const countPruned = (row: Row): void => {
    const state = jobs.get(row.job);
    if (state !== undefined && COUNTED_STATUSES.includes(row.status)) {
      jobs.set(row.job, { ...state, prunedRuns: (state.prunedRuns ?? 0) + 1 });
    }
  };
  const bufferedOf = (job: string): Row[] => [...table.runningOf(job)].filter((row) => row.status === "buffered");
  // cancelOther: the job's live runs from other batches are told to stop, and older
  // buffered scheduled slots give way to the new one.
  const supersede = (job: string, slot: number, now: number, batch: string): void => {
    for (const row of [...table.runningOf(job)]) {
      if (row.status === "running" && row.batch !== batch && (row.leaseUntil ?? -Infinity) >= now) {
        table.put({ ...row, status: "cancelling" });
      } else if (row.status === "buffered" && row.kind === "scheduled" && row.slot < slot) {
        table.put({ ...row, status: "skipped", finishedAt: now, error: SKIP_SUPERSEDED });
      }
    }
  };
  const compareAndSet = ({ key, patch }: RunUpdate): boolean => {
    const row = table.get(key.job, key.slot);
    if (row === undefined || !isLiveStatus(row.status) || row.attempt !== key.attempt || row.node !== key.node) {
      return false;
    }
    const changes = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    table.put({ ...row, ...changes });
    return true;
  };
  /** Adds the state (a copy) and the watermark of `name` to `snapshot`, if it has a state. */
  const addState = (snapshot: TickSnapshot, name: string, state: JobState | undefined): void => {
    if (state === undefined) return;
    ownKey(snapshot.jobs, name, state.pause === undefined ? { ...state } : { ...state, pause: { ...state.pause } });
    const watermark = table.watermark(name);
    if (watermark !== undefined) ownKey(snapshot.watermarks, name, watermark);
  };
  // read(): the named jobs' states, definitions and open rows only.
  const namedState = (names: readonly string[]): TickSnapshot => {
    const snapshot = emptySnapshot();
    for (const name of new Set(names)) {
      const def = defs.get(name);
      if (def !== undefined) snapshot.defs.push(def);
      for (const row of table.runningOf(name)) snapshot.running.push(publicRecord(row));
      addState(snapshot, name, jobs.get(name));
    }
    snapshot.defs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return snapshot;
  };
  // snapshot(): every open row and definition, the asked and data-defined jobs' states
  // (missing ones inserted), in pages with a turn of the event loop between them.
  const wholeState = async (names: readonly string[], now: number): Promise<TickSnapshot> => {
    const snapshot = emptySnapshot();
    snapshot.running = table.running().map(publicRecord);
    const defined = defs.names();
    let done = 0;
    // Definitions deleted while the snapshot yields are left out, as if read before.
    for (const name of defined) {
      if (++done % MEMORY_SNAPSHOT_PAGE === 0) await nextTurn();
      const def = defs.get(name);
      if (def !== undefined) snapshot.defs.push(def);
    }
    const asked = defined.length === 0 ? names : new Set([...names, ...defined]);
    for (const name of asked) {
      if (++done % MEMORY_SNAPSHOT_PAGE === 0) await nextTurn();
      addState(snapshot, name, ensureJob(name, now));
    }
    return snapshot;
  };
  // A deleted definition takes its job's history and state with it.
  const forget = (name: string): void => {
    table.drop(name);
    jobs.delete(name);
  };
  const newest = (rows: Iterable<Row>, keep: (row: Row) => boolean): Row | undefined => {
    let best: Row | undefined;
    for (const row of rows) if (keep(row) && (best === undefined || row.slot > best.slot)) best = row;
    return best;
  };

  return {
    setFailing(flag: boolean): void {
      failing = flag;
    },

    async init(): Promise<void> {
      guard("init");
    },

    async close(): Promise<void> {},

    async snapshot(names, now): Promise<TickSnapshot> {
      guard("snapshot");
      checkNames(names, "snapshot.names");
      checkInstant(now, "snapshot.now");
      return wholeState(names, now);
    },

    async read(names): Promise<TickSnapshot> {
      guard("read");
      checkNames(names, "read.names");
      return namedState(names);
    },

    async recorded(slots): Promise<boolean[]> {
      guard("recorded");
      checkSlotKeys(slots);
      return slots.map((s) => table.get(s.job, s.slot) !== undefined);
    },

    async claim(requests): Promise<ClaimResult[]> {
      guard("claim");
      checkClaims(requests);
      return requests.map((r): ClaimResult => {
        if (table.get(r.job, r.slot) !== undefined) return { job: r.job, slot: r.slot, outcome: "lost" };
        const live = r.status === "running" && r.overlap !== "allow" && hasLiveRun(r.job, r.now, r.batch);
        const buffered = r.status === "running" && r.overlap !== "allow" && r.overlap !== "skip"
          ? bufferedOf(r.job).length
          : 0;
        const { status, error } = decideClaim(r, live, buffered);
        if (
          r.maxRuns !== undefined && (status === "running" || status === "buffered") &&
          usedRuns(r.job, (row) => isOpenStatus(row.status)) >= r.maxRuns
        ) return { job: r.job, slot: r.slot, outcome: "limit" };
        if (status === "buffered" && r.overlap === "cancelOther") supersede(r.job, r.slot, r.now, r.batch);
        table.put({
          job: r.job,
          slot: r.slot,
          kind: r.kind,
          status,
          attempt: 1,
          node: r.node,
          batch: r.batch,
          claimedAt: r.now,
          startedAt: r.now,
          finishedAt: isOpenStatus(status) ? null : r.now,
          leaseUntil: status === "running" ? r.leaseUntil : null,
          error,
        });
        const outcome = status === "running" ? "won" : status as "buffered" | "skipped" | "missed";
        return { job: r.job, slot: r.slot, outcome };
      });
    },

    async update(key, patch): Promise<boolean> {
      guard("update");
      checkUpdate(key, patch);
      return compareAndSet({ key, patch });
    },

    async updateMany(writes): Promise<boolean[]> {
      guard("updateMany");
      // Every write is checked before any applies (an array first): the batch is one transaction.
      checkUpdates(writes);
      return writes.map(compareAndSet);
    },

    async renew(items, now): Promise<boolean[]> {
      guard("renew");
      // The shared check: each item's field named by its place (`renew[0].node`), as every store does.
      checkRenewals(items, now);
      return items.map((item) => {
        const row = table.get(item.job, item.slot);
        const held = row !== undefined && row.status === "running" && row.attempt === item.attempt &&
          row.node === item.node;
        // An ended lease belongs to the reaper: it is never revived.
        if (!held || row.leaseUntil === null || row.leaseUntil < now) return false;
        table.put({ ...row, leaseUntil: item.leaseUntil });
        return true;
      });
    },

    async reap(now): Promise<RunRecord[]> {
      guard("reap");
      checkInstant(now, "reap.now");
      const expired = table.running().filter((row) =>
        isLiveStatus(row.status) && row.leaseUntil !== null && row.leaseUntil < now
      );
      return expired.map((row) => {
        const next: Row = row.status === "cancelling"
          ? { ...row, status: "cancelled", finishedAt: now, error: CANCELLED_SUPERSEDED }
          : { ...row, status: "abandoned", finishedAt: now, error: LEASE_EXPIRED };
        table.put(next);
        return publicRecord(next);
      });
    },

    async reclaim(request): Promise<boolean> {
      guard("reclaim");
      const { node, now, leaseUntil } = request ?? {};
      const key = { job: request?.job, slot: request?.slot, attempt: request?.attempt };
      const overlap = checkReclaim(
        key,
        node,
        now,
        leaseUntil,
        {
          ...(request?.overlap === undefined ? {} : { overlap: request.overlap }),
          ...(request?.maxRuns === undefined ? {} : { maxRuns: request.maxRuns }),
        },
      );
      const row = table.get(key.job, key.slot);
      const retryable = row?.status === "abandoned" || row?.status === "error" || row?.status === "timeout";
      if (row === undefined || !retryable || row.attempt !== key.attempt) return false;
      if (overlap === "skip" && hasLiveRun(key.job, now, "")) return false;
      const { maxRuns } = request;
      const others = (r: Row): boolean => r.slot !== key.slot;
      if (maxRuns !== undefined && usedRuns(key.job, (r) => isOpenStatus(r.status), others) >= maxRuns) return false;
      const attempt = key.attempt + 1;
      table.put({
        ...row,
        status: "running",
        attempt,
        node,
        batch: `reclaim:${node}:${attempt}`,
        startedAt: now,
        finishedAt: null,
        leaseUntil,
        error: null,
      });
      return true;
    },

    async promote(request): Promise<RunRecord | undefined> {
      guard("promote");
      checkPromote(request);
      const { job, node, now, leaseUntil, kind, maxRuns } = request;
      if (jobs.get(job)?.paused === true || hasLiveRun(job, now, "")) return undefined;
      if (maxRuns !== undefined) {
        if (usedRuns(job, () => false) >= maxRuns && ![...table.runningOf(job)].some((r) => isLiveStatus(r.status))) {
          // Nothing can lower the count any more: the waiting slots will never run.
          for (const row of bufferedOf(job)) {
            table.put({ ...row, status: "skipped", finishedAt: now, error: SKIP_MAX_RUNS });
          }
          return undefined;
        }
        if (usedRuns(job, (row) => isLiveStatus(row.status)) >= maxRuns) return undefined;
      }
      let oldest: Row | undefined;
      for (const row of bufferedOf(job)) {
        if ((kind === undefined || row.kind === kind) && (oldest === undefined || row.slot < oldest.slot)) oldest = row;
      }
      if (oldest === undefined) return undefined;
      const next: Row = {
        ...oldest,
        status: "running",
        node,
        batch: `promote:${node}:${oldest.slot}`,
        startedAt: now,
        leaseUntil,
      };
      table.put(next);
      return publicRecord(next);
    },

    async enqueue(requests): Promise<EnqueueOutcome[]> {
      guard("enqueue");
      checkEnqueue(requests);
      return requests.map((r): EnqueueOutcome => {
        const row = table.get(r.job, r.slot);
        const base = {
          kind: r.kind,
          status: "buffered" as const,
          node: r.node,
          claimedAt: r.now,
          startedAt: r.now,
          finishedAt: null,
          leaseUntil: null,
          error: null,
        };
        if (row === undefined) {
          table.put({ job: r.job, slot: r.slot, attempt: 1, batch: `enqueue:${r.node}`, ...base });
          return "queued";
        }
        if (!r.rerun || isOpenStatus(row.status) || (row.finishedAt ?? Infinity) > r.now) return "exists";
        table.put({ ...row, ...base, kind: row.kind, attempt: row.attempt + 1, batch: `enqueue:${r.node}` });
        return "requeued";
      });
    },

    async getRun(job, slot): Promise<RunRecord | undefined> {
      guard("getRun");
      checkText(job, "getRun.job");
      checkInstant(slot, "getRun.slot");
      const row = table.get(job, slot);
      return row === undefined ? undefined : publicRecord(row);
    },

    async runs(job, query): Promise<RunRecord[]> {
      guard("runs");
      checkText(job, "runs.job");
      const { limit, before } = resolveRunQuery(query);
      return [...table.rows(job)]
        .filter((row) => before === undefined || row.slot < before)
        .sort((a, b) => b.slot - a.slot)
        .slice(0, limit)
        .map(publicRecord);
    },

    async lastOutcomes(names): Promise<Record<string, RunRecord>> {
      guard("lastOutcomes");
      checkNames(names, "lastOutcomes.jobs");
      const result: [string, RunRecord][] = [];
      for (const name of names) {
        const row = newest(table.rows(name), (r) => !isOpenStatus(r.status));
        if (row !== undefined) result.push([name, publicRecord(row)]);
      }
      return Object.fromEntries(result);
    },

    overview: createOverview(table, guard),
    tally: createTally(table, guard, (name) => jobs.get(name)?.paused ?? false),

    async counts(names): Promise<Record<string, StatusCounts>> {
      guard("counts");
      checkNames(names, "counts.jobs");
      return Object.fromEntries(names.map((name): [string, StatusCounts] => {
        const counts = zeroCounts();
        for (const row of table.rows(name)) counts[row.status] += 1;
        return [name, counts];
      }));
    },

    async setPaused(name, paused, now, info): Promise<void> {
      guard("setPaused");
      checkText(name, "setPaused.name");
      checkBoolean(paused, "setPaused.paused");
      checkInstant(now, "setPaused.now");
      const pause = pauseRecord(paused, now, info);
      const { pause: _old, ...state } = ensureJob(name, now);
      jobs.set(name, pause === undefined ? { ...state, paused } : { ...state, paused, pause });
    },

    ...defs.methods,

    ...createMemorySettings(guard),

    async putDef(name, spec, now, options): Promise<JobDef> {
      const created = defs.get(name) === undefined;
      const def = await defs.methods.putDef(name, spec, now, options);
      // A definition's life starts when it is stored, not when some node first ticks; a
      // new one owns nothing left under its name (a node's claim after the delete).
      if (created) forget(name);
      ensureJob(name, now);
      return def;
    },

    async deleteDef(name): Promise<boolean> {
      const deleted = await defs.methods.deleteDef(name);
      if (deleted) forget(name);
      return deleted;
    },

    async prune(before): Promise<number> {
      guard("prune");
      checkInstant(before, "prune.before");
      return table.prune(before, countPruned);
    },

    async pruneRows(job, keep): Promise<number> {
      guard("pruneRows");
      checkText(job, "pruneRows.job");
      checkKeep(keep);
      return table.pruneRows(job, keep, countPruned);
    },
  };
}

/**
 * The former name of `memoryStore`, kept so existing code compiles.
 *
 * @deprecated Use `memoryStore` (one naming pattern for every store factory).
 */
export const createMemoryStore: (options?: MemoryStoreOptions) => MemoryStore = memoryStore;
