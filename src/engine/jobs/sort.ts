/**
 * Sorting a large job list by name without holding the event loop: runs of two
 * thousand are sorted whole, then merged pairwise, with a turn of the host's event loop
 * between steps. At 100 000 jobs one `Array.prototype.sort` holds the loop for 100 ms or
 * more; in steps, no step takes more than a few ms.
 */

/** Items per sorted run (about 22 000 comparisons), and items merged between two turns. */
const STEP = 2048;
const MERGE_STEP = 16_384;

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** One turn of the host's event loop (timers and I/O run); not a clock read. */
export function hostTurn(): Promise<void> {
  return new Promise((resolve) => globalThis.setTimeout(resolve, 0));
}

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
  for (let i = 0; i < items.length; i += STEP) {
    runs.push(items.slice(i, i + STEP).sort(byName));
    await pause();
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

async function merge<T extends { name: string }>(a: T[], b: T[], pause: () => Promise<void>): Promise<T[]> {
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
