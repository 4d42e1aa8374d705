/**
 * Sorting a large job list by name without holding the event loop: runs of two
 * thousand are sorted whole, then merged pairwise, with a turn of the host's event loop
 * between steps. At 100 000 jobs one `Array.prototype.sort` holds the loop for 100 ms or
 * more; in steps, no step takes more than a few ms. Runs already in order (names
 * registered in order) cost one comparison per item and one copy.
 */

import { nextTurn } from "../../store/_turn.ts";

/** Items per sorted run (about 22 000 comparisons), and items merged between two turns. */
const STEP = 2048;
const MERGE_STEP = 16_384;
/** Runs found in order between two turns: checking them is MERGE_STEP comparisons, as a merge step. */
const ORDERED_RUNS = MERGE_STEP / STEP;

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * One turn of the host's event loop (timers and I/O run); not a clock read: the store's
 * `nextTurn` (`setImmediate` where the host has it, else a zero-delay timer).
 */
export const hostTurn: () => Promise<void> = nextTurn;

/**
 * Sorts `items` by name in code-unit order (in place when it is small), calling `pause`
 * between steps when it is large. Equal names keep their order.
 *
 * @example await sortByNameInSteps(jobs, hostTurn)
 */
export async function sortByNameInSteps<T extends { name: string }>(
  items: T[],
  pause: () => Promise<void>,
): Promise<T[]> {
  if (items.length <= STEP) return items.sort(byName);
  let runs: T[][] = [];
  let ordered = 0;
  for (let i = 0; i < items.length; i += STEP) {
    const run = items.slice(i, i + STEP);
    // Jobs are often registered in name order: a run already in order is not sorted again,
    // and costs one pass, so several such runs share a turn (a turn idles about 1 ms: at
    // 100 000 names in order, 49 turns were most of the sort).
    if (inOrder(run)) {
      runs.push(run);
      if (++ordered % ORDERED_RUNS === 0) await pause();
    } else {
      runs.push(run.sort(byName));
      await pause();
    }
  }
  while (runs.length > 1) {
    const merged: T[][] = [];
    for (let i = 0; i < runs.length; i += 2) {
      merged.push(i + 1 < runs.length ? await merge(runs[i]!, runs[i + 1]!, pause) : runs[i]!);
    }
    runs = merged;
  }
  return runs[0]!;
}

/** True when `items` are in name order already (one pass, no sort). */
function inOrder<T extends { name: string }>(items: readonly T[]): boolean {
  for (let i = 1; i < items.length; i++) if (byName(items[i - 1]!, items[i]!) > 0) return false;
  return true;
}

async function merge<T extends { name: string }>(a: T[], b: T[], pause: () => Promise<void>): Promise<T[]> {
  // Two runs that do not overlap (the common case for names registered in order) are joined, not merged.
  if (a.length === 0 || b.length === 0 || byName(a.at(-1)!, b[0]!) <= 0) return a.concat(b);
  const out: T[] = new Array(a.length + b.length);
  let i = 0, j = 0, k = 0;
  while (i < a.length && j < b.length) {
    out[k++] = byName(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!;
    if (k % MERGE_STEP === 0) await pause();
  }
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
