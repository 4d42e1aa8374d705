/**
 * The read side of the Deno KV store: planning state, rows, outcomes, counts and the
 * overview. Reads never write; `snapshot()` is `read()` plus the job-state inserts.
 */
import { emptySnapshot } from "../_snapshot.ts";
import { CONFLICT, type KvContext } from "./_context.ts";
import {
  counterValue,
  getAll,
  type KvLike,
  type KvListed,
  lastString,
  listAll,
  markSlot,
  publicRecord,
  type Row,
} from "./_kv.ts";
import { readDefs, readNamedDefs } from "./defs.ts";
import { resolveOverviewQuery, zeroCounts } from "../_validate.ts";
import { isOpenStatus } from "../_overlap.ts";
import type { JobOverview, PauseInfo, RunRecord, RunStatus, StatusCounts, TickSnapshot } from "../types.ts";

/** Sets an own property, even one named `__proto__` (job names are user data). */
export function define<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

interface StoredState {
  firstSeen: number;
  paused: boolean;
  pause?: PauseInfo;
}

/** `read()` when `insertAt` is undefined; `snapshot()` (missing states inserted with firstSeen = insertAt) otherwise. */
export function planningState(
  ctx: KvContext,
  names: readonly string[],
  insertAt: number | undefined,
): Promise<TickSnapshot> {
  const { keys } = ctx;
  return ctx.op(insertAt === undefined ? "read" : "snapshot", (kv) =>
    ctx.retry("snapshot", async () => {
      // snapshot() reads every definition and open row; read() only the named jobs' ones.
      const whole = insertAt !== undefined;
      const defs = whole ? await readDefs(kv, ctx) : await readNamedDefs(kv, ctx, [...new Set(names)]);
      const all = [...new Set([...names, ...defs.map((d) => d.name)])];
      const states = await getAll(kv, all.map((name) => keys.job(name)));
      const missing = all.filter((_, i) => states[i]!.versionstamp === null);
      if (insertAt !== undefined && missing.length > 0) {
        // At most 96 checks per commit; a conflict (another node inserted first) reads again.
        for (let i = 0; i < missing.length; i += 96) {
          const atomic = kv.atomic();
          for (const name of missing.slice(i, i + 96)) {
            atomic.check({ key: keys.job(name), versionstamp: null });
            atomic.set(keys.job(name), { firstSeen: insertAt, paused: false } satisfies StoredState);
          }
          if (!(await atomic.commit()).ok) return CONFLICT;
        }
        return CONFLICT;
      }
      const known = all.filter((_, i) => states[i]!.versionstamp !== null);
      const [marks, pruned, running] = await Promise.all([
        getAll(kv, known.map((name) => keys.mark(name))),
        prunedOf(kv, ctx, known),
        openRows(kv, ctx, whole ? undefined : all),
      ]);
      const snapshot = emptySnapshot(defs, running.map((e) => publicRecord(e.value as Row)));
      all.forEach((name, i) => {
        const state = states[i]!.value as StoredState | null;
        if (state === null) return;
        const { firstSeen, paused, pause } = state;
        define(
          snapshot.jobs,
          name,
          pause === undefined ? { name, firstSeen, paused } : { name, firstSeen, paused, pause: { ...pause } },
        );
      });
      known.forEach((name, i) => {
        if (marks[i]!.versionstamp !== null) define(snapshot.watermarks, name, markSlot(marks[i]!.value));
        const count = pruned.get(name) ?? 0;
        const state = Object.hasOwn(snapshot.jobs, name) ? snapshot.jobs[name] : undefined;
        if (count > 0 && state !== undefined) state.prunedRuns = count;
      });
      return snapshot;
    }));
}

/** Jobs that `prunedOf` reads one by one; more are listed (one list call per 1000 counters, not one read per 10 jobs). */
const PRUNED_GETS = 100;

/** The pruned-run counters of `names` (maxRuns), by name; a job without one is absent. */
async function prunedOf(kv: KvLike, ctx: KvContext, names: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (names.length <= PRUNED_GETS) {
    const entries = await getAll(kv, names.map((name) => ctx.keys.pruned(name)));
    names.forEach((name, i) => out.set(name, counterValue(entries[i]!.value)));
    return out;
  }
  for (const entry of await listAll(kv, { prefix: ctx.keys.pruned() })) {
    out.set(lastString(entry.key), counterValue(entry.value));
  }
  return out;
}

/** Open rows of every job (`names` undefined) or of the named jobs: one list per name, or one filtered list for many names. */
async function openRows(kv: KvLike, ctx: KvContext, names: readonly string[] | undefined): Promise<KvListed[]> {
  if (names === undefined) return await listAll(kv, { prefix: ctx.keys.lives() });
  if (names.length > OPEN_LISTS_MAX) {
    const asked = new Set(names);
    return (await listAll(kv, { prefix: ctx.keys.lives() })).filter((e) => asked.has((e.value as Row).job));
  }
  return (await Promise.all(names.map((name) => listAll(kv, { prefix: ctx.keys.lives(name) })))).flat();
}

/** Past this many names, read() lists all open rows once rather than one list per name. */
const OPEN_LISTS_MAX = 100;

/** A job's rows newest first, from `from` (inclusive) or before `before` (exclusive). */
export async function newestRows(
  kv: KvLike,
  ctx: KvContext,
  job: string,
  limit: number,
  range: { before?: number | undefined; from?: number | undefined } = {},
): Promise<RunRecord[]> {
  const prefix = ctx.keys.runs(job);
  const selector = range.before !== undefined
    ? { prefix, end: ctx.keys.run(job, range.before) }
    : range.from !== undefined
    ? { prefix, start: ctx.keys.run(job, range.from) }
    : { prefix };
  const rows: RunRecord[] = [];
  for await (const entry of kv.list(selector, { reverse: true, limit, batchSize: Math.min(limit, 1000) })) {
    rows.push(publicRecord(entry.value as Row));
  }
  return rows;
}

/** The newest finished row of a job: walks newest first past the (few) running rows. */
export async function lastFinished(kv: KvLike, ctx: KvContext, job: string): Promise<RunRecord | undefined> {
  for await (const entry of kv.list({ prefix: ctx.keys.runs(job) }, { reverse: true, batchSize: 20 })) {
    const row = entry.value as Row;
    if (!isOpenStatus(row.status)) return publicRecord(row);
  }
  return undefined;
}

/** A job's row counts by status (counters kept by every row write). */
export async function countsOf(kv: KvLike, ctx: KvContext, job: string): Promise<StatusCounts> {
  const counts = zeroCounts();
  const [finished, open] = await Promise.all([
    listAll(kv, { prefix: ctx.keys.count(job) }),
    listAll(kv, { prefix: ctx.keys.lives(job) }),
  ]);
  for (const entry of finished) counts[lastString(entry.key) as RunStatus] = counterValue(entry.value);
  // Open rows (running, cancelling, buffered) are the job's live index.
  for (const entry of open) counts[(entry.value as Row).status] += 1;
  return counts;
}

/** `overview()`: last outcome, counts and recent rows per job, read in parallel. */
export function overviewOf(
  ctx: KvContext,
  names: readonly string[],
  query: { since: number; perJob?: number },
): Promise<Record<string, JobOverview>> {
  const { since, perJob: limit } = resolveOverviewQuery(query);
  return ctx.op("overview", async (kv) => {
    const unique = [...new Set(names)];
    const parts = await Promise.all(unique.map(async (name): Promise<JobOverview> => {
      const [last, counts, recent, full] = await Promise.all([
        lastFinished(kv, ctx, name),
        countsOf(kv, ctx, name),
        newestRows(kv, ctx, name, limit, { from: since }),
        kv.get(ctx.keys.full(name)),
      ]);
      return { last, counts, recent, bufferFull: counterValue(full.value) };
    }));
    const result: Record<string, JobOverview> = {};
    unique.forEach((name, i) => define(result, name, parts[i]!));
    return result;
  });
}
