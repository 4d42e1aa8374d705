/**
 * Row writes of the Deno KV store. Every change to a run row goes through `stageRow`,
 * which keeps the row, its running copy, the job's running-set version (a count of its
 * running rows, rewritten on every change to them) and the status
 * counters in step inside ONE atomic operation.
 */
import { CONFLICT, type Conflict, type KvContext } from "./_context.ts";
import { isOpenStatus } from "../_overlap.ts";
import { BUFFER_FULL_ERRORS } from "../_validate.ts";
import { getAll, type KvAtomic, type KvKey, type KvLike, markValue, MINUS_ONE, type Row } from "./_kv.ts";

/** Longest error text kept on a row: a KV value holds at most 64 KiB. */
export const MAX_ERROR_CHARS = 2_000;
/** Rows changed per atomic by `applyRows` (see there). */
const ROWS_PER_COMMIT = 48;

/** Cuts an error text to what a KV value can hold. */
export const fitError = (error: string | null): string | null =>
  error === null || error.length <= MAX_ERROR_CHARS
    ? error
    : `${error.slice(0, MAX_ERROR_CHARS - 20)}… (cut: KV value limit)`;

/**
 * Adds the mutations that turn `before` (undefined: a new row) into `after`: the row,
 * its running copy (set while running, deleted after), a bump of the job's running-set
 * version when the running set changes, the watermark and the status counters.
 */
export function stageRow(atomic: KvAtomic, ctx: KvContext, before: Row | undefined, after: Row): void {
  const { keys } = ctx;
  atomic.set(keys.run(after.job, after.slot), after);
  // "Running" here is every open row (running, cancelling, buffered): the live index
  // holds them and the version key counts them.
  const wasRunning = before !== undefined && isOpenStatus(before.status);
  const isRunning = isOpenStatus(after.status);
  if (isRunning) atomic.set(keys.live(after.job, after.slot), after);
  else if (wasRunning) atomic.delete(keys.live(after.job, after.slot));
  // The version key counts the job's open rows; even a +0 gives it a new versionstamp.
  if (wasRunning || isRunning) {
    atomic.sum(keys.ver(after.job), wasRunning === isRunning ? 0n : wasRunning ? MINUS_ONE : 1n);
  }
  if (before === undefined && after.kind === "scheduled") atomic.max(keys.mark(after.job), markValue(after.slot));
  // Open rows are counted by the version key; the counters hold the final statuses.
  if (before?.status !== after.status) {
    if (before !== undefined && !wasRunning) atomic.sum(keys.count(after.job, before.status), MINUS_ONE);
    if (!isRunning) atomic.sum(keys.count(after.job, after.status), 1n);
  }
  const wasFull = before !== undefined && isBufferFull(before);
  if (wasFull !== isBufferFull(after)) atomic.sum(keys.full(after.job), wasFull ? MINUS_ONE : 1n);
}

/** A skipped row a full buffer dropped (counted by the job's `full` key). */
export const isBufferFull = (row: Row): boolean =>
  row.status === "skipped" && row.error !== null && BUFFER_FULL_ERRORS.includes(row.error);

/** One row to read and maybe change. */
export interface RowTarget {
  job: string;
  slot: number;
}

/**
 * Compare-and-set on many rows: reads them, asks `decide` for each target in order
 * (a repeated row sees the earlier target's result), and commits the changed rows with
 * a versionstamp check on each, in as few atomic operations as the KV limits allow
 * (one when they fit). A failed check re-reads that group and decides again.
 * Returns, per target, the row `decide` wrote, or undefined.
 */
export async function applyRows(
  ctx: KvContext,
  operation: string,
  targets: readonly RowTarget[],
  decide: (row: Row | undefined, index: number) => Row | undefined,
): Promise<(Row | undefined)[]> {
  // Targets of one row stay in one group, so they see each other in order.
  const byRow = new Map<string, number[]>();
  targets.forEach((t, i) => {
    const id = `${t.slot} ${t.job}`;
    const list = byRow.get(id);
    if (list === undefined) byRow.set(id, [i]);
    else list.push(i);
  });
  // 48 rows per commit: with an error text at its cap and a running copy, each row is
  // under 14 KB, so a group stays under the 800 KiB a commit may carry.
  const all = [...byRow.values()];
  const groups: number[][][] = [];
  for (let i = 0; i < all.length; i += ROWS_PER_COMMIT) groups.push(all.slice(i, i + ROWS_PER_COMMIT));
  const results: (Row | undefined)[] = targets.map(() => undefined);
  await ctx.op(
    operation,
    (kv) =>
      Promise.all(
        groups.map((group) => ctx.retry(operation, () => applyGroup(kv, ctx, targets, group, decide, results))),
      ),
  );
  return results;
}

async function applyGroup(
  kv: KvLike,
  ctx: KvContext,
  targets: readonly RowTarget[],
  group: number[][],
  decide: (row: Row | undefined, index: number) => Row | undefined,
  results: (Row | undefined)[],
): Promise<true | Conflict> {
  const keys: KvKey[] = group.map((indexes) => {
    const t = targets[indexes[0]!]!;
    return ctx.keys.run(t.job, t.slot);
  });
  const entries = await getAll(kv, keys);
  const atomic = kv.atomic();
  const decided: Array<[number, Row | undefined]> = [];
  let writes = 0;
  group.forEach((indexes, g) => {
    const entry = entries[g]!;
    const stored = (entry.value ?? undefined) as Row | undefined;
    let row = stored;
    let changed = false;
    for (const i of indexes) {
      const next = decide(row, i);
      decided.push([i, next]);
      if (next !== undefined) {
        row = next;
        changed = true;
      }
    }
    if (changed && row !== undefined) {
      atomic.check({ key: keys[g]!, versionstamp: entry.versionstamp });
      stageRow(atomic, ctx, stored, row);
      writes += 1;
    }
  });
  if (writes > 0 && !(await atomic.commit()).ok) return CONFLICT;
  for (const [i, row] of decided) results[i] = row;
  return true;
}
