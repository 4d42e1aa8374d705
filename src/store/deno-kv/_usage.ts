/**
 * `maxRuns` on Deno KV: a job's used runs are its open rows (the value of its version
 * key) plus its counted-status counters plus its pruned-run counter, read in ONE
 * `getMany` (one consistent read). Every change to those counters but pruning's also
 * rewrites the version key, which the writer then checks at commit; pruning moves a
 * count from a status counter into the pruned counter, so the sum holds.
 */
import { COUNTED_STATUSES } from "../types.ts";
import { counterValue, getAll, type Keys, type KvKey, type KvLike, type KvMaybe } from "./_kv.ts";

/** The keys that hold a job's counted runs: its counted-status counters and its pruned counter. */
export const countedKeys = (keys: Keys, job: string): KvKey[] => [
  ...COUNTED_STATUSES.map((status) => keys.count(job, status)),
  keys.pruned(job),
];

/** The sum of counter entries. */
export const sumCounters = (entries: readonly KvMaybe[]): number =>
  entries.reduce((n, entry) => n + counterValue(entry.value), 0);

/** Each job's version entry (to check at commit), and for `limited` jobs their used runs. */
export interface Versions {
  versionOf: Map<string, KvMaybe>;
  used: Map<string, number>;
}

/**
 * Reads the version key of every job in `jobs` and `limited`; a limited job's comes in
 * the same `getMany` as its counters, so one versionstamp covers both.
 */
export async function readVersions(
  kv: KvLike,
  keys: Keys,
  jobs: readonly string[],
  limited: readonly string[],
): Promise<Versions> {
  const versionOf = new Map<string, KvMaybe>();
  const used = new Map<string, number>();
  await Promise.all(limited.map(async (job) => {
    const [ver, ...counters] = await kv.getMany([keys.ver(job), ...countedKeys(keys, job)]);
    versionOf.set(job, ver!);
    used.set(job, sumCounters([ver!, ...counters]));
  }));
  const rest = jobs.filter((job) => !versionOf.has(job));
  const read = await getAll(kv, rest.map((job) => keys.ver(job)));
  rest.forEach((job, k) => versionOf.set(job, read[k]!));
  return { versionOf, used };
}
