/**
 * `prune()` on Deno KV: an explicit sweep (not `expireIn`, which deletes at some later
 * time and could not say how many rows it removed). Finished rows before the cutoff go
 * in checked atomic deletes (96 per commit, across jobs); a job whose watermark row was
 * deleted then gets the newest remaining scheduled row as watermark, as MAX(slot) would
 * give in SQL.
 */
import { isOpenStatus } from "../_overlap.ts";
import { COUNTED_STATUSES } from "../types.ts";
import { isBufferFull } from "./_rows.ts";
import { CONFLICT, type KvContext } from "./_context.ts";
import {
  CHECKS_PER_COMMIT,
  getAll,
  type KvLike,
  type KvListed,
  listAll,
  markSlot,
  markValue,
  MINUS_ONE,
  type Row,
} from "./_kv.ts";

// Jobs swept at once: bounds the rows held in memory and the reads in flight.
const JOBS_PER_ROUND = 64;

/** Deletes finished rows with slot < before in every job; returns how many. */
export function pruneAll(ctx: KvContext, before: number): Promise<number> {
  return ctx.op("prune", async (kv) => {
    // Every job that ever had a row has status counters: they name the jobs to sweep.
    const counters = await listAll(kv, { prefix: ctx.keys.counts() });
    const jobs = [...new Set(counters.map((e) => String(e.key[e.key.length - 2])))];
    let removed = 0;
    for (let i = 0; i < jobs.length; i += JOBS_PER_ROUND) {
      removed += await pruneJobs(kv, ctx, jobs.slice(i, i + JOBS_PER_ROUND), before);
    }
    return removed;
  });
}

const finished = (entry: { value: unknown; versionstamp: string | null }): boolean =>
  entry.versionstamp !== null && !isOpenStatus((entry.value as Row).status);

async function pruneJobs(kv: KvLike, ctx: KvContext, jobs: string[], before: number): Promise<number> {
  const { keys } = ctx;
  const listed = await Promise.all(
    jobs.map((job) => listAll(kv, { prefix: keys.runs(job), end: keys.run(job, before) })),
  );
  const old = listed.flat().filter(finished);
  const chunks: KvListed[][] = [];
  for (let i = 0; i < old.length; i += CHECKS_PER_COMMIT) chunks.push(old.slice(i, i + CHECKS_PER_COMMIT));
  const deleted = await Promise.all(chunks.map((chunk) =>
    ctx.retry("prune", async (round) => {
      // A retry re-reads: a row reclaimed meanwhile is running again and stays.
      const rows = round === 0 ? chunk : (await getAll(kv, chunk.map((e) => e.key))).filter(finished) as KvListed[];
      if (rows.length === 0) return [];
      const atomic = kv.atomic();
      for (const entry of rows) {
        const row = entry.value as Row;
        atomic.check(entry).delete(entry.key).sum(keys.count(row.job, row.status), MINUS_ONE);
        // maxRuns keeps counting a pruned run; the sum counted + pruned never changes.
        if (COUNTED_STATUSES.includes(row.status)) atomic.sum(keys.pruned(row.job), 1n);
        if (isBufferFull(row)) atomic.sum(keys.full(row.job), MINUS_ONE);
      }
      return (await atomic.commit()).ok ? rows.map((e) => e.value as Row) : CONFLICT;
    })
  ));
  const gone = deleted.flat();
  const scheduled = [...new Set(gone.filter((row) => row.kind === "scheduled").map((row) => row.job))];
  const marks = await getAll(kv, scheduled.map((job) => keys.mark(job)));
  const goneSlots = new Set(gone.map((row) => `${row.slot} ${row.job}`));
  // Only a job whose watermark row itself was deleted needs a new watermark.
  const stale = scheduled.filter((job, i) =>
    marks[i]!.versionstamp !== null && goneSlots.has(`${markSlot(marks[i]!.value)} ${job}`)
  );
  const groups: string[][] = [];
  for (let i = 0; i < stale.length; i += CHECKS_PER_COMMIT) groups.push(stale.slice(i, i + CHECKS_PER_COMMIT));
  await Promise.all(groups.map((group) => ctx.retry("prune", () => resetMarks(kv, ctx, group))));
  return gone.length;
}

/**
 * Sets each job's watermark to its newest remaining scheduled row (or deletes it), in
 * one commit checked against the marks read first, so a claim racing it forces a retry.
 */
async function resetMarks(kv: KvLike, ctx: KvContext, jobs: string[]): Promise<void | typeof CONFLICT> {
  const { keys } = ctx;
  const marks = await getAll(kv, jobs.map((job) => keys.mark(job)));
  const newest = await Promise.all(jobs.map(async (job) => {
    for await (const entry of kv.list({ prefix: keys.runs(job) }, { reverse: true, batchSize: 50 })) {
      const row = entry.value as Row;
      if (row.kind === "scheduled") return row.slot;
    }
    return undefined;
  }));
  const atomic = kv.atomic();
  let writes = 0;
  jobs.forEach((job, i) => {
    const mark = marks[i]!;
    const slot = newest[i];
    if ((mark.versionstamp === null ? undefined : markSlot(mark.value)) === slot) return;
    // Delete, then `max` into the empty key: that stores a KvU64 without naming `Deno.KvU64`.
    atomic.check(mark).delete(keys.mark(job));
    if (slot !== undefined) atomic.max(keys.mark(job), markValue(slot));
    writes += 1;
  });
  if (writes > 0 && !(await atomic.commit()).ok) return CONFLICT;
}

/**
 * Deletes the finished rows of `job` beyond its newest `keep`; the watermark row stays
 * (a row older than it may then stay too, when newer manual rows fill the cap).
 */
export function pruneJobRows(ctx: KvContext, job: string, keep: number): Promise<number> {
  return ctx.op("pruneRows", async (kv) => {
    const rows = (await listAll(kv, { prefix: ctx.keys.runs(job) }, { reverse: true })).filter(finished);
    if (rows.length <= keep) return 0;
    let before = (rows[keep]!.value as Row).slot + 1;
    const mark = await kv.get(ctx.keys.mark(job));
    if (mark.versionstamp !== null) before = Math.min(before, markSlot(mark.value));
    return pruneJobs(kv, ctx, [job], before);
  });
}
