/**
 * Claims on Deno KV. A claim commits its row with a check that the `(job, slot)` key
 * is absent (versionstamp null), so two isolates can never both win a slot. The
 * overlap check is as strong as SQL's: a claim whose outcome depends on the job's
 * running rows also checks the job's running-set version, which every write that
 * changes those rows bumps in the same atomic operation.
 */
import { CONFLICT, type Conflict, type KvContext } from "./_context.ts";
import { CHECKS_PER_COMMIT, counterValue, getAll, type KvLike, listAll, markValue, type Row } from "./_kv.ts";
import type { ClaimOutcome, ClaimRequest, ClaimResult, RunStatus } from "../types.ts";
import { readVersions } from "./_usage.ts";
import { decideClaim, isLiveStatus } from "../_overlap.ts";
import { isBufferFull, stageRow } from "./_rows.ts";
import { SKIP_SUPERSEDED } from "../_validate.ts";

/**
 * Applies a claim call: requests are grouped by job (claims of different jobs never
 * interact), groups are packed into atomic operations of at most CHECKS_PER_COMMIT
 * checks, and those commit in parallel. A job with more requests than one commit holds
 * is split into commits that run in order. Outcomes are as if the requests had been
 * applied one by one in request order.
 */
export async function claimAll(ctx: KvContext, requests: readonly ClaimRequest[]): Promise<ClaimResult[]> {
  const byJob = new Map<string, number[]>();
  requests.forEach((r, i) => {
    const list = byJob.get(r.job);
    if (list === undefined) byJob.set(r.job, [i]);
    else list.push(i);
  });
  // A lane is a sequence of commits; lanes are independent of one another.
  const lanes: number[][][] = [];
  let shared: number[] = [];
  let checks = 0;
  for (const indexes of byJob.values()) {
    const cost = indexes.length + 1;
    if (cost > CHECKS_PER_COMMIT) {
      const slices: number[][] = [];
      for (let i = 0; i < indexes.length; i += CHECKS_PER_COMMIT - 1) {
        slices.push(indexes.slice(i, i + CHECKS_PER_COMMIT - 1));
      }
      lanes.push(slices);
      continue;
    }
    if (checks + cost > CHECKS_PER_COMMIT) {
      lanes.push([shared]);
      shared = [];
      checks = 0;
    }
    shared.push(...indexes);
    checks += cost;
  }
  if (shared.length > 0) lanes.push([shared]);

  const outcomes: ClaimOutcome[] = requests.map(() => "lost");
  await ctx.op("claim", (kv) =>
    Promise.all(lanes.map(async (lane) => {
      for (const chunk of lane) {
        const ordered = [...chunk].sort((a, b) => a - b);
        await ctx.retry("claim", (round) => claimChunk(kv, ctx, requests, ordered, outcomes, round));
      }
    })));
  return requests.map((r, i) => ({ job: r.job, slot: r.slot, outcome: outcomes[i]! }));
}

async function claimChunk(
  kv: KvLike,
  ctx: KvContext,
  requests: readonly ClaimRequest[],
  indexes: readonly number[],
  outcomes: ClaimOutcome[],
  round: number,
): Promise<true | Conflict> {
  const { keys } = ctx;
  const toRun = indexes.map((i) => requests[i]!).filter((r) => r.status === "running");
  const overlapJobs = [...new Set(toRun.filter((r) => r.overlap !== "allow").map((r) => r.job))];
  const limitJobs = [...new Set(toRun.filter((r) => r.maxRuns !== undefined).map((r) => r.job))];
  // The versions first, the running rows after: a version unchanged at commit proves
  // no running row of that job changed since it was read, so the rows read after it are
  // current; with maxRuns, the job's used runs come in the version's read (_usage.ts).
  const { versionOf, used } = await readVersions(kv, keys, overlapJobs, limitJobs);
  const versions = overlapJobs.map((job) => versionOf.get(job)!);
  // A job whose count of running rows is zero has none to list.
  const listed = await Promise.all(
    overlapJobs.map((job, k) => (counterValue(versions[k]!.value) > 0 ? listAll(kv, { prefix: keys.lives(job) }) : [])),
  );
  const live = new Map<string, Row[]>(overlapJobs.map((job, k) => [job, listed[k]!.map((e) => e.value as Row)]));
  // The first attempt assumes every slot is free; a failed check reads which are taken.
  const existing = round === 0
    ? undefined
    : await getAll(kv, indexes.map((i) => keys.run(requests[i]!.job, requests[i]!.slot)));

  const atomic = kv.atomic();
  // cancelOther: the job's live runs from other batches become cancelling, its older
  // buffered scheduled slots skipped; the job's version check covers these rows.
  const supersede = (rows: Row[], slot: number, now: number, batch: string): void => {
    rows.forEach((row, k) => {
      let next: Row | undefined;
      if (row.status === "running" && row.batch !== batch && (row.leaseUntil ?? -Infinity) >= now) {
        next = { ...row, status: "cancelling" };
      } else if (row.status === "buffered" && row.kind === "scheduled" && row.slot < slot) {
        next = { ...row, status: "skipped", finishedAt: now, error: SKIP_SUPERSEDED };
      }
      if (next === undefined) return;
      stageRow(atomic, ctx, row, next);
      rows[k] = next;
    });
  };
  const decided = new Map<number, ClaimOutcome>();
  const taken = new Set<string>();
  const checkedJobs = new Set<string>();
  const started = new Map<string, number>();
  const marks = new Map<string, number>();
  const counts = new Map<string, Map<RunStatus, number>>();
  const full = new Map<string, number>();
  indexes.forEach((i, k) => {
    const r = requests[i]!;
    const id = `${r.slot} ${r.job}`;
    if (taken.has(id) || (existing !== undefined && existing[k]!.versionstamp !== null)) {
      decided.set(i, "lost");
      return;
    }
    taken.add(id);
    let status: RunStatus = r.status === "missed" ? "missed" : "running";
    let error: string | null = null;
    const rows = live.get(r.job) ?? [];
    if (status === "running" && r.overlap !== "allow") {
      checkedJobs.add(r.job);
      const blocking = rows.some((row) =>
        isLiveStatus(row.status) && (row.leaseUntil ?? -Infinity) >= r.now && row.batch !== r.batch
      );
      ({ status, error } = decideClaim(r, blocking, rows.filter((row) => row.status === "buffered").length));
    }
    if (r.maxRuns !== undefined && (status === "running" || status === "buffered")) {
      checkedJobs.add(r.job);
      // Open rows this chunk inserted before count too.
      if (used.get(r.job)! + (started.get(r.job) ?? 0) >= r.maxRuns) {
        taken.delete(id);
        decided.set(i, "limit");
        return;
      }
    }
    if (status === "buffered" && r.overlap === "cancelOther") supersede(rows, r.slot, r.now, r.batch);
    const running = status === "running";
    const open = running || status === "buffered";
    const row: Row = {
      job: r.job,
      slot: r.slot,
      kind: r.kind,
      status,
      attempt: 1,
      node: r.node,
      claimedAt: r.now,
      startedAt: r.now,
      finishedAt: open ? null : r.now,
      leaseUntil: running ? r.leaseUntil : null,
      error,
      batch: r.batch,
    };
    const key = keys.run(r.job, r.slot);
    atomic.check({ key, versionstamp: null });
    atomic.set(key, row);
    if (open) {
      atomic.set(keys.live(r.job, r.slot), row);
      started.set(r.job, (started.get(r.job) ?? 0) + 1);
      const rows = live.get(r.job);
      if (rows === undefined) live.set(r.job, [row]);
      else rows.push(row);
    }
    if (r.kind === "scheduled") marks.set(r.job, Math.max(marks.get(r.job) ?? r.slot, r.slot));
    if (!open) {
      // The version key already counts open rows.
      let byStatus = counts.get(r.job);
      if (byStatus === undefined) counts.set(r.job, byStatus = new Map());
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      if (isBufferFull(row)) full.set(r.job, (full.get(r.job) ?? 0) + 1);
    }
    decided.set(i, running ? "won" : status as "buffered" | "skipped" | "missed");
  });
  if (taken.size > 0) {
    for (const job of checkedJobs) atomic.check({ key: keys.ver(job), versionstamp: versionOf.get(job)!.versionstamp });
    for (const [job, n] of started) atomic.sum(keys.ver(job), BigInt(n));
    for (const [job, slot] of marks) atomic.max(keys.mark(job), markValue(slot));
    for (const [job, byStatus] of counts) {
      for (const [status, n] of byStatus) atomic.sum(keys.count(job, status), BigInt(n));
    }
    for (const [job, n] of full) atomic.sum(keys.full(job), BigInt(n));
    if (!(await atomic.commit()).ok) return CONFLICT;
  }
  // A refused request whose slot another claimer holds lost it: the refusal wrote nothing.
  const refused = [...decided].filter(([, outcome]) => outcome === "limit").map(([i]) => i);
  const rows = await getAll(kv, refused.map((i) => keys.run(requests[i]!.job, requests[i]!.slot)));
  refused.forEach((i, k) => {
    if (rows[k]!.versionstamp !== null) decided.set(i, "lost");
  });
  for (const [i, outcome] of decided) outcomes[i] = outcome;
  return true;
}
