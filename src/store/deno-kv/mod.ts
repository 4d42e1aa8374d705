/**
 * The Deno KV `Store` (`edgecron/deno-kv`): exactly-once claims on the database Deno
 * Deploy gives every app, with no configuration.
 *
 * @module
 */
import { tallyFromReads } from "../_tally.ts";
import { createContext, type KvSource } from "./_context.ts";
import { type DenoKvStoreOptions, resolveKvOptions } from "./options.ts";
import { keysUnder, type KvLike, publicRecord, type Row } from "./_kv.ts";
import { claimAll } from "./claims.ts";
import { reapAll, reclaimOne, renewAll, updateAll } from "./attempts.ts";
import { kvDefs } from "./defs.ts";
import { pruneAll, pruneJobRows } from "./prune.ts";
import { enqueueAll, promoteOne } from "./queue.ts";
import { countsOf, define, lastFinished, newestRows, overviewOf, planningState } from "./reads.ts";
import {
  checkClaims,
  checkEnqueue,
  checkInstant,
  checkKeep,
  checkNames,
  checkPromote,
  checkReclaimRequest,
  checkRenewals,
  checkText,
  checkUpdate,
  checkUpdates,
  resolveRunQuery,
} from "../_validate.ts";
import { quote, SchedulerError } from "../../core/errors.ts";
import type {
  ClaimResult,
  EnqueueOutcome,
  JobOverview,
  RunRecord,
  StatusCounts,
  Store,
  TickSnapshot,
} from "../types.ts";

export type { KvAtomic, KvKey, KvKeyPart, KvLike, KvListed, KvMaybe, KvSelector } from "./_kv.ts";
export type { KvSource } from "./_context.ts";

export type { DenoKvStoreOptions } from "./options.ts";

/**
 * Creates a `Store` on Deno KV, for a `Deno.Kv` from `Deno.openKv()` (or a promise of
 * one). A claim commits its row with a check that the `(job, slot)` key is absent, so
 * two isolates, processes or regions can never both win a slot; the overlap check and
 * lease reclaim also check a per-job version of the running rows in the same commit.
 * Claims of one call are batched up to Deno KV's atomic limits (100 checks per commit)
 * and commit in parallel; results are in request order.
 *
 * `kv` is a KV handle, a promise of one, or a function that opens one
 * (`() => Deno.openKv(path)`), which is called again by the next call after an open that
 * failed (a handle or promise fails the same way for the life of the store).
 *
 * Options: `prefix` (default `["edgecron"]`), `closeKv` (default false); any other is refused.
 *
 * Limits of the medium: an `error` text is kept up to 2000 characters, a definition's
 * spec up to 60 000 bytes of JSON (one KV value holds 64 KiB).
 *
 * @throws {SchedulerError} `invalid-spec` at once for a value that is not a KV, and for
 * a bad or unknown option (a prefix part KV refuses, a prefix over 1024 bytes). Methods
 * reject with `store-error` when KV fails, and with `invalid-*` codes for bad arguments.
 *
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { denoKvStore } from "edgecron/deno-kv";
 *
 * const scheduler = createScheduler({ store: denoKvStore(await Deno.openKv()) });
 * ```
 */
export function denoKvStore(kv: KvSource, options?: DenoKvStoreOptions): Store {
  const isKv = (value: unknown): boolean => typeof (value as KvLike | null)?.atomic === "function";
  if (!(kv instanceof Promise) && typeof kv !== "function" && !isKv(kv)) {
    throw new SchedulerError("invalid-spec", `denoKvStore: expected a KV handle (from openKv()), got ${quote(kv)}`);
  }
  const { prefix, closeKv } = resolveKvOptions(options);
  let closed = false;
  const ctx = createContext(kv, keysUnder(prefix), () => closed);

  const store: Store = {
    // tally(): read() and overview() of the page, reduced (no query of its own yet).
    tally: tallyFromReads(() => store),
    init: (): Promise<void> => ctx.op("init", async () => undefined),

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (closeKv) (await ctx.opened().catch(() => undefined))?.close();
    },

    setCallTimeout: ctx.setCallTimeout,

    async pruneRows(job, keep): Promise<number> {
      checkText(job, "pruneRows.job");
      checkKeep(keep);
      return pruneJobRows(ctx, job, keep);
    },

    async snapshot(names, now): Promise<TickSnapshot> {
      checkNames(names, "snapshot.names");
      checkInstant(now, "snapshot.now");
      return planningState(ctx, names, now);
    },

    async read(names): Promise<TickSnapshot> {
      checkNames(names, "read.names");
      return planningState(ctx, names, undefined);
    },

    async claim(requests): Promise<ClaimResult[]> {
      checkClaims(requests);
      return requests.length === 0 ? [] : claimAll(ctx, requests);
    },

    async update(key, patch): Promise<boolean> {
      checkUpdate(key, patch);
      const [held] = await updateAll(ctx, [{ key, patch }]);
      return held === true;
    },

    async updateMany(writes): Promise<boolean[]> {
      checkUpdates(writes);
      return writes.length === 0 ? [] : updateAll(ctx, writes);
    },

    async renew(items, now): Promise<boolean[]> {
      // The shared check: each item's field named by its place (`renew[0].node`), as every store does.
      checkRenewals(items, now);
      return items.length === 0 ? [] : renewAll(ctx, items, now);
    },

    async reap(now): Promise<RunRecord[]> {
      checkInstant(now, "reap.now");
      return reapAll(ctx, now);
    },

    async reclaim(request): Promise<boolean> {
      const overlap = checkReclaimRequest(request);
      return reclaimOne(ctx, request, overlap);
    },

    async promote(request): Promise<RunRecord | undefined> {
      checkPromote(request);
      return promoteOne(ctx, request);
    },

    async enqueue(requests): Promise<EnqueueOutcome[]> {
      checkEnqueue(requests);
      return requests.length === 0 ? [] : enqueueAll(ctx, requests);
    },

    async getRun(job, slot): Promise<RunRecord | undefined> {
      checkText(job, "getRun.job");
      checkInstant(slot, "getRun.slot");
      const entry = await ctx.op("getRun", (db) => db.get(ctx.keys.run(job, slot)));
      return entry.versionstamp === null ? undefined : publicRecord(entry.value as Row);
    },

    async runs(job, query): Promise<RunRecord[]> {
      checkText(job, "runs.job");
      const { limit, before } = resolveRunQuery(query);
      return ctx.op("runs", (db) => newestRows(db, ctx, job, limit, { before }));
    },

    async lastOutcomes(names): Promise<Record<string, RunRecord>> {
      checkNames(names, "lastOutcomes.jobs");
      const unique = [...new Set(names)];
      const rows = await ctx.op("lastOutcomes", (db) => Promise.all(unique.map((name) => lastFinished(db, ctx, name))));
      const result: Record<string, RunRecord> = {};
      unique.forEach((name, i) => {
        if (rows[i] !== undefined) define(result, name, rows[i]);
      });
      return result;
    },

    async counts(names): Promise<Record<string, StatusCounts>> {
      checkNames(names, "counts.jobs");
      const unique = [...new Set(names)];
      const counts = await ctx.op("counts", (db) => Promise.all(unique.map((name) => countsOf(db, ctx, name))));
      const result: Record<string, StatusCounts> = {};
      unique.forEach((name, i) => define(result, name, counts[i]!));
      return result;
    },

    async overview(names, query): Promise<Record<string, JobOverview>> {
      checkNames(names, "overview.names");
      return overviewOf(ctx, names, query);
    },

    ...kvDefs(ctx),

    async prune(before): Promise<number> {
      checkInstant(before, "prune.before");
      return pruneAll(ctx, before);
    },
  };
  return store;
}

/**
 * The former name of `denoKvStore`, kept so existing code compiles.
 *
 * @deprecated Use `denoKvStore` (one naming pattern for every store factory).
 */
export const kvStore: (kv: KvSource, options?: DenoKvStoreOptions) => Store = denoKvStore;

/** @deprecated Use `DenoKvStoreOptions`. */
export type KvStoreOptions = DenoKvStoreOptions;
