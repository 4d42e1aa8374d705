/**
 * What every part of the Deno KV store shares: the opened KV, the key layout, error
 * mapping, and the optimistic retry loop around atomic commits.
 */
import { quote, SchedulerError } from "../../core/errors.ts";
import type { Keys, KvLike } from "./_kv.ts";

/** Returned by an attempt whose atomic commit failed a check: read again and retry. */
export const CONFLICT: unique symbol = Symbol("conflict");
/** The type of `CONFLICT`. */
export type Conflict = typeof CONFLICT;

/** The shared context of one store. */
export interface KvContext {
  keys: Keys;
  /** Runs `fn` on the opened KV; any failure that is not a SchedulerError becomes a `store-error`. */
  op<T>(operation: string, fn: (kv: KvLike) => Promise<T>): Promise<T>;
  /**
   * Calls `attempt` until it returns something other than CONFLICT. Each attempt reads
   * afresh and commits with versionstamp checks, so a retry never double-applies.
   * Bounded by the call timeout (default 10 s) and 200 rounds.
   */
  retry<T>(operation: string, attempt: (round: number) => Promise<T | Conflict>): Promise<T>;
  /** Sets the bound of `retry` (the scheduler passes its storeTimeout). */
  setCallTimeout(ms: number): void;
  /** The KV as last opened, for close(): rejects when that open failed, and never opens again. */
  opened(): Promise<KvLike>;
}

/** What a KV store is made over: a KV, a promise of one, or a function that opens one (tried again after a failed open). */
export type KvSource = KvLike | Promise<KvLike> | (() => Promise<KvLike>);

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * SQLite lock contention under a local KV file shared by several processes: the
 * statement did nothing, so reading again and retrying is safe.
 */
export function isBusy(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === "string" && /database is locked|SQLITE_BUSY|database is busy/i.test(message);
}

/** Creates the context over a KV (or a promise of one, opened by the caller). */
export function createContext(source: KvSource, keys: Keys, isClosed: () => boolean): KvContext {
  let callTimeout = 10_000;
  let failed = false;
  const open = (): Promise<KvLike> => {
    // A promise of something else is the caller's mistake: said as such at every call,
    // not as a store failure ("kv.atomic is not a function").
    const kv = Promise.resolve(typeof source === "function" ? source() : source).then((kv) => {
      if (typeof (kv as KvLike | null)?.atomic === "function") return kv;
      throw new SchedulerError(
        "invalid-spec",
        `denoKvStore: expected the promise to resolve to a KV handle (from openKv()), got ${quote(kv)}`,
      );
    });
    // A rejected open is reported by the first operation; this keeps it from being unhandled.
    kv.catch(() => void (failed = true));
    return kv;
  };
  let current = open();
  // An opener is called again after a failed open (a KV folder created since, a lock gone);
  // a KV or a promise given as it is fails the same way each time.
  const kvNow = (): Promise<KvLike> => {
    if (failed && typeof source === "function") {
      failed = false;
      current = open();
    }
    return current;
  };

  const op = async <T>(operation: string, fn: (kv: KvLike) => Promise<T>): Promise<T> => {
    if (isClosed()) throw new SchedulerError("store-error", "deno-kv: the store is closed");
    // Every commit runs inside `retry`, which handles contention itself; what reaches
    // here busy is a plain read (or an idempotent set), safe to run again.
    for (let round = 0;; round += 1) {
      try {
        return await fn(await kvNow());
      } catch (error) {
        if (isBusy(error) && round < 50) {
          await pause(Math.min(2 ** round, 50) * Math.random());
          continue;
        }
        throw storeError(operation, error);
      }
    }
  };

  const storeError = (operation: string, error: unknown): SchedulerError => {
    if (error instanceof SchedulerError) return error;
    const text = error instanceof Error ? error.message : String(error);
    return new SchedulerError("store-error", `deno-kv: ${operation} failed: ${text}`, { cause: error });
  };

  const retry = async <T>(operation: string, attempt: (round: number) => Promise<T | Conflict>): Promise<T> => {
    const deadline = Date.now() + callTimeout;
    for (let round = 0; round < 200; round += 1) {
      let result: T | Conflict;
      try {
        result = await attempt(round);
      } catch (error) {
        if (!isBusy(error)) throw error;
        result = CONFLICT;
      }
      if (result !== CONFLICT) return result;
      if (Date.now() > deadline) break;
      // Contending writers spread out; the first retries are immediate.
      if (round >= 2) await pause(Math.min(2 ** (round - 2), 50) * Math.random());
    }
    throw new SchedulerError(
      "store-error",
      `deno-kv: ${operation} failed: too much write contention, gave up retrying`,
    );
  };

  return {
    keys,
    op,
    retry,
    opened: () => current,
    setCallTimeout(ms: number): void {
      if (Number.isFinite(ms) && ms > 0) callTimeout = ms;
    },
  };
}
