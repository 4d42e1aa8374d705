/**
 * Buffered slots on Deno KV: `promote()` starts a job's oldest buffered row with a check
 * on the job's open-row version (so no claim, reclaim or other promote can start a live
 * run of the job in between), and `enqueue()` inserts a backfill's rows.
 */
import { CONFLICT, type KvContext } from "./_context.ts";
import { applyRows, stageRow } from "./_rows.ts";
import { type KvLike, type KvMaybe, listAll, publicRecord, type Row } from "./_kv.ts";
import { countedKeys, sumCounters } from "./_usage.ts";
import { SKIP_MAX_RUNS } from "../_validate.ts";
import { isLiveStatus, isOpenStatus } from "../_overlap.ts";
import type { EnqueueOutcome, EnqueueRequest, PromoteRequest, RunRecord } from "../types.ts";

/** `promote()`. */
export function promoteOne(ctx: KvContext, request: PromoteRequest): Promise<RunRecord | undefined> {
  const { keys } = ctx;
  const { job, node, now, leaseUntil, kind, maxRuns } = request;
  return ctx.op("promote", (kv) =>
    ctx.retry("promote", async () => {
      // The version first, the rows after: an unchanged version at commit proves the rows current.
      // With it, in the same read, the counters maxRuns adds up (see claims.ts).
      const [version, state, ...counters] = await kv.getMany([
        keys.ver(job),
        keys.job(job),
        ...(maxRuns === undefined ? [] : countedKeys(keys, job)),
      ]);
      if ((state!.value as { paused?: boolean } | null)?.paused === true) return undefined;
      const open = (await listAll(kv, { prefix: keys.lives(job) })).map((e) => e.value as Row);
      if (open.some((row) => isLiveStatus(row.status) && (row.leaseUntil ?? -Infinity) >= now)) return undefined;
      if (maxRuns !== undefined) {
        const counted = sumCounters(counters);
        const running = open.filter((row) => isLiveStatus(row.status)).length;
        if (counted >= maxRuns && running === 0) return await skipAll(kv, ctx, version!, open, now);
        if (counted + running >= maxRuns) return undefined;
      }
      let oldest: Row | undefined;
      for (const row of open) {
        if (
          row.status === "buffered" && (kind === undefined || row.kind === kind) &&
          (oldest === undefined || row.slot < oldest.slot)
        ) oldest = row;
      }
      if (oldest === undefined) return undefined;
      const next: Row = {
        ...oldest,
        status: "running",
        node,
        batch: `promote:${node}:${now}`,
        startedAt: now,
        leaseUntil,
      };
      // The job key too: a pause committed meanwhile must win.
      const atomic = kv.atomic().check({ key: keys.ver(job), versionstamp: version!.versionstamp }, {
        key: keys.job(job),
        versionstamp: state!.versionstamp,
      });
      stageRow(atomic, ctx, oldest, next);
      return (await atomic.commit()).ok ? publicRecord(next) : CONFLICT;
    }));
}

/**
 * maxRuns reached with nothing running: nothing can lower the count any more, so the
 * job's buffered rows will never run and become `skipped`, checked against `version`.
 */
async function skipAll(
  kv: KvLike,
  ctx: KvContext,
  version: KvMaybe,
  open: readonly Row[],
  now: number,
): Promise<undefined | typeof CONFLICT> {
  const waiting = open.filter((row) => row.status === "buffered");
  if (waiting.length === 0) return undefined;
  // One commit holds ~48 rows; the rest go on the next promote (each commit is checked).
  const atomic = kv.atomic().check(version);
  for (const row of waiting.slice(0, 48)) {
    stageRow(atomic, ctx, row, { ...row, status: "skipped", finishedAt: now, error: SKIP_MAX_RUNS });
  }
  return (await atomic.commit()).ok ? undefined : CONFLICT;
}

/** `enqueue()`: each slot's row read and written with a versionstamp check (absent: inserted). */
export async function enqueueAll(ctx: KvContext, requests: readonly EnqueueRequest[]): Promise<EnqueueOutcome[]> {
  const outcomes: EnqueueOutcome[] = requests.map(() => "exists");
  await applyRows(ctx, "enqueue", requests, (row, i) => {
    const r = requests[i]!;
    const base = {
      status: "buffered" as const,
      node: r.node,
      batch: `enqueue:${r.node}`,
      claimedAt: r.now,
      startedAt: r.now,
      finishedAt: null,
      leaseUntil: null,
      error: null,
    };
    // A retried group decides again from what it read: reset first.
    outcomes[i] = "exists";
    if (row === undefined) {
      outcomes[i] = "queued";
      return { job: r.job, slot: r.slot, kind: r.kind, attempt: 1, ...base };
    }
    if (!r.rerun || isOpenStatus(row.status) || (row.finishedAt ?? Infinity) > r.now) return undefined;
    outcomes[i] = "requeued";
    return { ...row, ...base, attempt: row.attempt + 1 };
  });
  return outcomes;
}
