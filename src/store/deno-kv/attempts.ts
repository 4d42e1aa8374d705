/**
 * The writes on running attempts: update / updateMany (compare-and-set), renew, reap
 * and reclaim. Each is a versionstamp-checked atomic commit retried on conflict.
 */
import { CONFLICT, type KvContext } from "./_context.ts";
import { applyRows, fitError, stageRow } from "./_rows.ts";
import { counterValue, listAll, publicRecord, type Row } from "./_kv.ts";
import { countedKeys, sumCounters } from "./_usage.ts";
import { CANCELLED_SUPERSEDED, LEASE_EXPIRED } from "../_validate.ts";
import { isLiveStatus } from "../_overlap.ts";
import {
  type AttemptKey,
  COUNTED_STATUSES,
  type LeaseRenewal,
  type ReclaimRequest,
  type RunPatch,
  type RunRecord,
  type RunUpdate,
} from "../types.ts";

// A cancelling row is still its holder's to settle.
const holds = (row: Row | undefined, key: AttemptKey): row is Row =>
  row !== undefined && isLiveStatus(row.status) && row.attempt === key.attempt && row.node === key.node;

/** Applies a patch to a row (undefined fields are left alone). */
function patched(row: Row, patch: RunPatch): Row {
  const next: Row = { ...row };
  if (patch.status !== undefined) next.status = patch.status;
  if (patch.attempt !== undefined) next.attempt = patch.attempt;
  if (patch.startedAt !== undefined) next.startedAt = patch.startedAt;
  if (patch.leaseUntil !== undefined) next.leaseUntil = patch.leaseUntil;
  if (patch.finishedAt !== undefined) next.finishedAt = patch.finishedAt;
  if (patch.error !== undefined) next.error = fitError(patch.error);
  return next;
}

/** `updateMany()`: every compare-and-set in as few atomic commits as the limits allow (one for up to 48 rows). */
export async function updateAll(ctx: KvContext, writes: readonly RunUpdate[]): Promise<boolean[]> {
  const held: boolean[] = writes.map(() => false);
  const rows = await applyRows(ctx, "update", writes.map((w) => w.key), (row, i) => {
    const { key, patch } = writes[i]!;
    held[i] = holds(row, key);
    // An empty patch only asks whether the attempt still holds the row: nothing to write.
    const empty = Object.values(patch).every((value) => value === undefined);
    return held[i] && !empty ? patched(row!, patch) : undefined;
  });
  return rows.map((_, i) => held[i]!);
}

/** `renew()`: extends leases that are still current; an ended lease is never revived. */
export async function renewAll(ctx: KvContext, items: readonly LeaseRenewal[], now: number): Promise<boolean[]> {
  const rows = await applyRows(ctx, "renew", items, (row, i) => {
    const item = items[i]!;
    // A cancelling row is never renewed: that refusal is how its holder learns.
    if (!holds(row, item) || row.status !== "running" || row.leaseUntil === null || row.leaseUntil < now) {
      return undefined;
    }
    return { ...row, leaseUntil: item.leaseUntil };
  });
  return rows.map((row) => row !== undefined);
}

/** `reap()`: every running row with leaseUntil < now becomes `abandoned`; concurrent reapers split the rows. */
export async function reapAll(ctx: KvContext, now: number): Promise<RunRecord[]> {
  const live = await ctx.op("reap", (kv) => listAll(kv, { prefix: ctx.keys.lives() }));
  const expired = live.map((e) => e.value as Row).filter((row) =>
    isLiveStatus(row.status) && row.leaseUntil !== null && row.leaseUntil < now
  );
  const rows = await applyRows(ctx, "reap", expired, (row) => {
    if (row === undefined || !isLiveStatus(row.status) || row.leaseUntil === null || row.leaseUntil >= now) {
      return undefined;
    }
    return row.status === "cancelling"
      ? { ...row, status: "cancelled", finishedAt: now, error: CANCELLED_SUPERSEDED }
      : { ...row, status: "abandoned", finishedAt: now, error: LEASE_EXPIRED };
  });
  return rows.filter((row): row is Row => row !== undefined).map(publicRecord);
}

/**
 * `reclaim()`: the next attempt of an abandoned, error or timeout row. With `skip`, the
 * commit also checks the job's running-set version read before its running rows, so no
 * claim or reclaim can start a live run of the job between the check and the write.
 */
export function reclaimOne(ctx: KvContext, request: ReclaimRequest, overlap: "skip" | "allow"): Promise<boolean> {
  const { keys } = ctx;
  const { job, slot, attempt, node, now, leaseUntil, maxRuns } = request;
  return ctx.op("reclaim", (kv) =>
    ctx.retry("reclaim", async () => {
      // With maxRuns, the job's counters in the same read (see claims.ts).
      const [version, current, ...counters] = await kv.getMany([
        keys.ver(job),
        keys.run(job, slot),
        ...(maxRuns === undefined ? [] : countedKeys(keys, job)),
      ]);
      const row = (current?.value ?? undefined) as Row | undefined;
      const retryable = row?.status === "abandoned" || row?.status === "error" || row?.status === "timeout";
      if (row === undefined || !retryable || row.attempt !== attempt) return false;
      if (maxRuns !== undefined) {
        // The version's value counts the open rows; this row, when counted, is not another run.
        const used = sumCounters([version!, ...counters]) - (COUNTED_STATUSES.includes(row.status) ? 1 : 0);
        if (used >= maxRuns) return false;
      }
      if (overlap === "skip" && counterValue(version!.value) > 0) {
        const live = await listAll(kv, { prefix: keys.lives(job) });
        if (
          live.some((e) => isLiveStatus((e.value as Row).status) && ((e.value as Row).leaseUntil ?? -Infinity) >= now)
        ) return false;
      }
      const next: Row = {
        ...row,
        status: "running",
        attempt: attempt + 1,
        node,
        batch: `reclaim:${node}:${attempt + 1}`,
        startedAt: now,
        finishedAt: null,
        leaseUntil,
        error: null,
      };
      const atomic = kv.atomic().check({ key: keys.run(job, slot), versionstamp: current!.versionstamp });
      if (overlap === "skip" || maxRuns !== undefined) {
        atomic.check({ key: keys.ver(job), versionstamp: version!.versionstamp });
      }
      stageRow(atomic, ctx, row, next);
      return (await atomic.commit()).ok ? true : CONFLICT;
    }));
}
