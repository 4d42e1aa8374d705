/**
 * Timer mode's next wake at 100 000 jobs: a min-heap of each schedule's next slot, so a
 * re-arm steps only the schedules that came due (O(k log n)) instead of every job
 * (`nextWake`, tens of milliseconds at that size). A schedule's slots are a pure function
 * of its spec, so a remembered slot stays right until it is reached; the job set is read
 * again only when its version changes, and a clock stepped back rebuilds.
 */
import type { Schedule } from "../../core/types.ts";

/** The earliest next slot of a changing set of schedules. */
export interface WakeCache {
  /**
   * The earliest slot of any schedule strictly after `now`, or undefined. `schedules()`
   * is called only when `version` differs from the last call's (the job set changed).
   * A schedule whose `next()` throws is left out and asked again at every call.
   */
  next(now: number, version: number, schedules: () => Iterable<Schedule>): number | undefined;
  /**
   * Steps the schedules due at `slot` past it ahead of time, at `now` (before `slot`, when
   * `slot` is the earliest next slot: `claimAhead`'s wake), so the re-arm at the slot
   * finds the next one without stepping them then. Until the clock reaches `slot`, `next()`
   * answers `slot`; asked before `now` (a clock stepped back) or with another version, it
   * reads the jobs again.
   */
  advance(slot: number, now: number, version: number, schedules: () => Iterable<Schedule>): void;
  /**
   * How many schedules have their next slot at `slot` (the earliest, as `next()` last
   * answered), counting no further than `atMost`; 0 after `advance()` stepped them past it.
   */
  sharing(slot: number, atMost: number): number;
  /** How many schedules threw at the last call (left out of its answer). */
  readonly failing: number;
}

interface Entry {
  at: number;
  schedule: Schedule;
}

/**
 * Creates an empty cache.
 *
 * @example const wakes = createWakeCache(); wakes.next(clock.now(), registry.version, () => schedules)
 */
export function createWakeCache(): WakeCache {
  let heap: Entry[] = [];
  let failing: Schedule[] = [];
  let version: number | undefined;
  let builtAt = -Infinity;

  const nextOf = (schedule: Schedule, now: number): number | null | "failed" => {
    try {
      return schedule.next(now);
    } catch {
      // A broken user-supplied Schedule; the tick logs it, the 60 s clamp keeps waking.
      return "failed";
    }
  };
  const add = (schedule: Schedule, now: number): void => {
    const at = nextOf(schedule, now);
    if (at === "failed") failing.push(schedule);
    else if (at !== null) push(heap, { at, schedule });
  };

  /**
   * Set by `advance()`: the heap is past `advancedSlot` already, stepped at `advancedFrom`.
   * Two numbers, not an object a minute whose hidden class died with it (`core/kept.ts`).
   */
  let advancedSlot: number | undefined;
  let advancedFrom = 0;

  return {
    next(now, v, schedules) {
      if (advancedSlot !== undefined) {
        const slot = advancedSlot;
        if (v === version && now >= advancedFrom && now < slot) return slot;
        advancedSlot = undefined;
        // Asked before the advance (the clock stepped back) or after a change: the heap is past slots still to come.
        if (now < slot) version = undefined;
      }
      if (v !== version || now < builtAt) {
        heap = [];
        failing = [];
        for (const schedule of schedules()) add(schedule, now);
        version = v;
        builtAt = now;
      } else {
        const retry = failing;
        failing = [];
        for (const schedule of retry) add(schedule, now);
        // Each due entry takes its schedule's next slot in place: a new entry per schedule and
        // minute (10 000 at 10 000 jobs) lived a minute, so every one was promoted.
        while (heap.length > 0 && heap[0]!.at <= now) {
          const top = heap[0]!;
          const at = nextOf(top.schedule, now);
          if (at === "failed" || at === null) {
            pop(heap);
            if (at === "failed") failing.push(top.schedule);
          } else {
            top.at = at;
            sink(heap, 0);
          }
        }
      }
      return heap[0]?.at;
    },
    sharing(slot, atMost) {
      // The heap's entries at `slot` (its minimum) form a subtree at the root: a walk down
      // it stops at any entry later than the slot, and at `atMost`.
      let n = 0;
      const stack = heap.length > 0 && heap[0]!.at === slot ? [0] : [];
      while (stack.length > 0 && n < atMost) {
        const i = stack.pop()!;
        n++;
        if (2 * i + 1 < heap.length && heap[2 * i + 1]!.at === slot) stack.push(2 * i + 1);
        if (2 * i + 2 < heap.length && heap[2 * i + 2]!.at === slot) stack.push(2 * i + 2);
      }
      return n;
    },
    get failing() {
      return failing.length;
    },
    advance(slot, now, v, schedules) {
      if (this.next(now, v, schedules) !== slot) return;
      this.next(slot, v, schedules);
      advancedSlot = slot;
      advancedFrom = now;
    },
  };
}

function push(heap: Entry[], entry: Entry): void {
  heap.push(entry);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]!.at <= entry.at) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = entry;
}

function pop(heap: Entry[]): Entry {
  const top = heap[0]!;
  const last = heap.pop()!;
  if (heap.length === 0) return top;
  heap[0] = last;
  sink(heap, 0);
  return top;
}

/** Moves `heap[i]` down to its place (its `at` grew). */
function sink(heap: Entry[], i: number): void {
  const entry = heap[i]!;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= heap.length) break;
    const r = l + 1;
    const child = r < heap.length && heap[r]!.at < heap[l]!.at ? r : l;
    if (heap[child]!.at >= entry.at) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = entry;
}
