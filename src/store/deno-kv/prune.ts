/**
 * `prune()` on Deno KV: an explicit sweep (not `expireIn`, which deletes at some later
 * time and could not say how many rows it removed). Each job's finished rows before
 * the cutoff go in checked atomic deletes; the watermark then moves back to the newest
 * remaining scheduled row, as MAX(slot) would in SQL.
 */
import { CONFLICT, type KvContext } from "./_context.ts";
import { CHECKS_PER_COMMIT, type KvLike, type KvListed, listAll, markSlot, markValue, MINUS_ONE, type Row } from "./_kv.ts";

/** Deletes finished rows with slot < before in every job; returns how many. */
export function pruneAll(ctx: KvContext, before: number): Promise<number> {
  return ctx.op("prune", async (kv) => {
    // Every job that ever had a row has status counters: they name the jobs to sweep.
    const counters = await listAll(kv, { prefix: ctx.keys.counts() });
    const jobs = [...new Set(counters.map((e) => String(e.key[e.key.length - 2])))];
    let removed = 0;
    for (const job of jobs) removed += await pruneJob(kv, ctx, job, before);
    return removed;
  });
}

async function oldFinished(kv: KvLike, ctx: KvContext, job: string, before: number): Promise<KvListed[]> {
  const found: KvListed[] = [];
  const selector = { prefix: ctx.keys.runs(job), end: ctx.keys.run(job, before) };
  for await (const entry of kv.list(selector, { batchSize: 200 })) {
    if ((entry.value as Row).status !== "running") found.push(entry);
    if (found.length >= CHECKS_PER_COMMIT) break;
  }
  return found;
}

async function pruneJob(kv: KvLike, ctx: KvContext, job: string, before: number): Promise<number> {
  const { keys } = ctx;
  let removed = 0;
  for (;;) {
    const deleted = await ctx.retry("prune", async () => {
      const rows = await oldFinished(kv, ctx, job, before);
      if (rows.length === 0) return 0;
      const atomic = kv.atomic();
      for (const entry of rows) {
        atomic.check(entry).delete(entry.key).sum(keys.count(job, (entry.value as Row).status), MINUS_ONE);
      }
      return (await atomic.commit()).ok ? rows.length : CONFLICT;
    });
    if (deleted === 0) break;
    removed += deleted;
  }
  if (removed > 0) await resetMark(kv, ctx, job);
  return removed;
}

/** Sets the watermark to the newest remaining scheduled row (or deletes it), checked against racing claims. */
function resetMark(kv: KvLike, ctx: KvContext, job: string): Promise<void> {
  const { keys } = ctx;
  return ctx.retry("prune", async () => {
    const mark = await kv.get(keys.mark(job));
    let newest: number | undefined;
    for await (const entry of kv.list({ prefix: keys.runs(job) }, { reverse: true, batchSize: 50 })) {
      const row = entry.value as Row;
      if (row.kind === "scheduled") {
        newest = row.slot;
        break;
      }
    }
    const current = mark.versionstamp === null ? undefined : markSlot(mark.value);
    if (current === newest) return undefined;
    // Delete, then `max` into the empty key: that stores a KvU64 without naming `Deno.KvU64`.
    const atomic = kv.atomic().check(mark).delete(keys.mark(job));
    if (newest !== undefined) atomic.max(keys.mark(job), markValue(newest));
    return (await atomic.commit()).ok ? undefined : CONFLICT;
  });
}
