/**
 * The part of `Deno.Kv` the store uses, typed structurally so `src/` never names the
 * runtime global, plus the store's key layout and row codec.
 */
import type { RunRecord, RunStatus } from "../types.ts";

/** One part of a KV key (Deno 2.9 types allow symbols too; the store writes none, but `Deno.Kv` must be assignable). */
export type KvKeyPart = Uint8Array | string | number | bigint | boolean | symbol;
/** A KV key. */
export type KvKey = readonly KvKeyPart[];

/** A read entry; `versionstamp` is null when the key is absent. */
export interface KvMaybe {
  key: KvKey;
  value: unknown;
  versionstamp: string | null;
}

/** A listed entry. */
export interface KvListed {
  key: KvKey;
  value: unknown;
  versionstamp: string;
}

/** A key range for `list()`. */
export type KvSelector = { prefix: KvKey } | { prefix: KvKey; start: KvKey } | { prefix: KvKey; end: KvKey } | {
  start: KvKey;
  end: KvKey;
};

/** An atomic operation (`Deno.AtomicOperation`). */
export interface KvAtomic {
  check(...checks: { key: KvKey; versionstamp: string | null }[]): KvAtomic;
  set(key: KvKey, value: unknown, options?: { expireIn?: number }): KvAtomic;
  delete(key: KvKey): KvAtomic;
  sum(key: KvKey, n: bigint): KvAtomic;
  max(key: KvKey, n: bigint): KvAtomic;
  commit(): Promise<{ ok: boolean; versionstamp?: string }>;
}

/** The methods of `Deno.Kv` the store calls. */
export interface KvLike {
  get(key: KvKey): Promise<KvMaybe>;
  getMany(keys: KvKey[]): Promise<KvMaybe[]>;
  list(
    selector: KvSelector,
    options?: { reverse?: boolean; limit?: number; batchSize?: number },
  ): AsyncIterable<KvListed>;
  atomic(): KvAtomic;
  close(): void;
}

// Deno KV's limits (measured on Deno 2.9.6, the same as Deno Deploy documents): per
// atomic commit 100 checks, 1000 mutations, 819 200 bytes of keys and values and
// 81 920 bytes of keys; 64 KiB per value; 10 keys per getMany; 1000 entries per list batch.

/** Keys per `getMany`. */
export const MAX_GET = 10;
/**
 * Checks this store puts in one commit (of the 100 allowed). Every write it makes costs
 * at most one check and a few mutations, so the check budget is the one that binds.
 */
export const CHECKS_PER_COMMIT = 96;

/** A stored run row: the record plus the claim batch that wrote it (the overlap check needs it). */
export type Row = RunRecord & { batch: string };

/** A row as callers see it: a copy without the batch id. */
export const publicRecord = ({ batch: _batch, ...record }: Row): RunRecord => ({ ...record });

// KvU64 cannot hold a negative slot; watermarks are stored shifted by 2^53.
const SHIFT = 2n ** 53n;
/** Encodes a slot for the `max` mutation of the watermark. */
export const markValue = (slot: number): bigint => BigInt(slot) + SHIFT;
/** Decodes a watermark entry (a `Deno.KvU64`). */
export const markSlot = (value: unknown): number => Number((value as { value: bigint }).value - SHIFT);
/** Reads a counter entry (a `Deno.KvU64`) as a number. */
export const counterValue = (value: unknown): number =>
  value === null || value === undefined ? 0 : Number(BigInt.asIntN(64, (value as { value: bigint }).value));
/** Adds -1 to a KvU64 counter (sum wraps modulo 2^64). */
export const MINUS_ONE = 2n ** 64n - 1n;

/** The store's key layout under a prefix. */
export interface Keys {
  run(job: string, slot: number): KvKey;
  runs(job: string): KvKey;
  /** Copy of a running row, kept while it runs: the overlap check, reap and snapshot read only these. */
  live(job: string, slot: number): KvKey;
  lives(job?: string): KvKey;
  /**
   * The count of a job's running rows, rewritten (new versionstamp) by every write that
   * changes them; claims and reclaims that depend on them check its versionstamp.
   */
  ver(job: string): KvKey;
  mark(job?: string): KvKey;
  /** Rows of a job per final status (running rows are counted by `ver`). */
  count(job: string, status?: RunStatus): KvKey;
  counts(): KvKey;
  /** Counted rows of a job (`COUNTED_STATUSES`) that pruning deleted: `JobState.prunedRuns`. */
  pruned(job?: string): KvKey;
  /** Skipped rows of a job a full buffer dropped: `JobOverview.bufferFull`. */
  full(job: string): KvKey;
  job(name?: string): KvKey;
  def(name?: string): KvKey;
  /** The last version of a deleted definition, so a re-created one continues above it. */
  tombstone(name: string): KvKey;
  setting(key: string): KvKey;
}

/** The keys under `prefix`. */
export function keysUnder(prefix: KvKey): Keys {
  const k = (...parts: KvKeyPart[]): KvKey => [...prefix, ...parts];
  return {
    run: (job, slot) => k("run", job, slot),
    runs: (job) => k("run", job),
    live: (job, slot) => k("live", job, slot),
    lives: (job) => (job === undefined ? k("live") : k("live", job)),
    ver: (job) => k("ver", job),
    mark: (job) => (job === undefined ? k("mark") : k("mark", job)),
    count: (job, status) => (status === undefined ? k("count", job) : k("count", job, status)),
    counts: () => k("count"),
    pruned: (job) => (job === undefined ? k("pruned") : k("pruned", job)),
    full: (job) => k("full", job),
    job: (name) => (name === undefined ? k("job") : k("job", name)),
    def: (name) => (name === undefined ? k("def") : k("def", name)),
    tombstone: (name) => k("tombstone", name),
    setting: (key) => k("setting", key),
  };
}

/** Reads every entry of a selector. */
export async function listAll(
  kv: KvLike,
  selector: KvSelector,
  options: { reverse?: boolean } = {},
): Promise<KvListed[]> {
  const out: KvListed[] = [];
  for await (const entry of kv.list(selector, { ...options, batchSize: 1000 })) out.push(entry);
  return out;
}

/** `getMany` for any number of keys, 10 at a time, in parallel. */
export async function getAll(kv: KvLike, keys: readonly KvKey[]): Promise<KvMaybe[]> {
  const groups: KvKey[][] = [];
  for (let i = 0; i < keys.length; i += MAX_GET) groups.push(keys.slice(i, i + MAX_GET));
  return (await Promise.all(groups.map((group) => kv.getMany(group)))).flat();
}

/** The last part of a key, as a string (a job name or a setting key). */
export const lastString = (key: KvKey): string => String(key[key.length - 1]);
