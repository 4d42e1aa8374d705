/** Pure tick planning: which slots of one job a tick considers, and what becomes of each. */
import { isGuarded } from "../jobs/schedule_guard.ts";
import type { Schedule } from "../../core/types.ts";
import type { CatchUpMode } from "../types.ts";
import { keepShape } from "../../core/kept.ts";

/** The most slots one tick plans for one job; see `planSlots`. */
export const MAX_SLOTS_PER_TICK = 10_000;

/** What `planSlots` needs: the job's schedule and catch-up policy, and the store's view. */
export interface PlanInput {
  schedule: Schedule;
  catchUp: { mode: CatchUpMode; windowMs: number; toleranceMs: number };
  now: number;
  /** Newest recorded scheduled slot, if any. */
  watermark: number | undefined;
  /** When the store first saw the job: a slot at this very instant is planned (closed bound). */
  firstSeen: number;
  /** A paused job runs nothing: every planned slot is recorded `missed`. */
  paused: boolean;
  /** Default `MAX_SLOTS_PER_TICK`. */
  maxSlots?: number;
  /** When a slot starts (jitter, `tick/jitter.ts`); default: at the slot. */
  startOf?: ((slot: number) => number) | undefined;
  /**
   * The instant `none` measures lateness at: the clock's, when a late trigger ticks at an
   * older `now` (default `now`). Measured at `now`, a trigger an hour late ran its slot.
   */
  lateAt?: number | undefined;
}

/** The slots to claim, oldest first. */
export interface Plan {
  /** Slots to claim as `running` (the tick runs the ones it wins, oldest first). */
  run: number[];
  /** Slots to record `missed`. */
  missed: number[];
  /** Slots inside the window left unplanned because of `maxSlots` (see `planSlots`). */
  dropped: number;
}

/**
 * Plans one job's slots in `(max(watermark, now - window), now]`, or for a job never
 * recorded `[firstSeen, now]` (still cut at the window): a slot equal to the registering
 * tick's `now` runs, since a platform trigger's scheduled time is that slot, while a slot
 * from before registration never does.
 *
 * - `"all"`: every slot runs, oldest first;
 * - `"latest"`: the newest slot runs, every older one is `missed`;
 * - `"none"`: a slot runs when it is at most `tolerance` late, else it is `missed`;
 * - paused: every slot is `missed`, so that resuming does not catch up on the
 *   paused time and the history shows what the pause cost.
 *
 * At most `maxSlots` slots are planned. With `"all"` the OLDEST ones are taken
 * (the watermark then moves forward tick by tick, so nothing is lost); otherwise the
 * NEWEST ones, and `dropped` counts the older ones that will never be recorded
 * (the caller logs them).
 *
 * @example planSlots({ schedule, catchUp, now, watermark: undefined, firstSeen, paused: false })
 */
export function planSlots(input: PlanInput): Plan {
  const { schedule, catchUp, now, watermark, firstSeen, paused } = input;
  const max = input.maxSlots ?? MAX_SLOTS_PER_TICK;
  // Slots are whole milliseconds: `firstSeen - 1` as an open bound is `firstSeen` closed.
  const lower = Math.max(watermark ?? firstSeen - 1, now - catchUp.windowMs);
  if (lower >= now) return { run: [], missed: [], dropped: 0 };

  const keepOldest = catchUp.mode === "all" && !paused;
  const { slots, dropped } = keepOldest ? oldest(schedule, lower, now, max) : newest(schedule, lower, now, max);
  const startOf = input.startOf ?? atSlot;
  // A jittered slot whose start is still ahead waits for a later tick (only the newest can be).
  if (input.startOf !== undefined && slots.length > 0 && startOf(slots[slots.length - 1]!) > now) slots.pop();

  if (paused) return { run: [], missed: slots, dropped };
  switch (catchUp.mode) {
    case "all":
      return { run: slots, missed: [], dropped };
    case "latest":
      // One slot due is the common case: it runs, and `slots` is already the run list.
      return slots.length <= 1
        ? { run: slots, missed: [], dropped }
        : { run: slots.slice(-1), missed: slots.slice(0, -1), dropped };
    case "none": {
      const at = Math.max(now, input.lateAt ?? now);
      return {
        run: slots.filter((s) => at - startOf(s) <= catchUp.toleranceMs),
        missed: slots.filter((s) => at - startOf(s) > catchUp.toleranceMs),
        dropped,
      };
    }
  }
}

const atSlot = (slot: number): number => slot;

// A plan and a window's slots of each shape, kept: a tick's are gone before the next, and
// the planning code optimised for them with them (`core/kept.ts`).
keepShape<Plan>({ run: [], missed: [], dropped: 0 });
keepShape({ slots: [] as number[], dropped: 0 });

// A first slot makes an array of exactly one element (a first `push()` reserves 16): a
// large minute plans thousands of jobs, most with one slot.

function oldest(schedule: Schedule, lower: number, now: number, max: number): { slots: number[]; dropped: number } {
  let slots: number[] = [];
  for (const slot of schedule.between(lower, now)) {
    if (slots.length === max) break;
    if (slots.length === 0) slots = [slot];
    else slots.push(slot);
  }
  // Not counted: the next tick starts from the new watermark and plans them.
  return { slots, dropped: 0 };
}

function newest(schedule: Schedule, lower: number, now: number, max: number): { slots: number[]; dropped: number } {
  // None or one slot due, a minute's usual case: two `next()` calls, no iterator. The
  // generator `between()` walks with cost about 400 bytes a job and minute, which lived
  // through the scavenges of a large minute's planning and was promoted (bench/README.md).
  // A user's schedule is planned by its `between()` alone, as it always was.
  if (!isGuarded(schedule)) {
    const first = schedule.next(lower);
    if (first === null || first > now) return { slots: [], dropped: 0 };
    const second = schedule.next(first);
    if (second === null || second > now) return { slots: [first], dropped: 0 };
  }
  // A ring of the last `max` slots, so a long window never holds every slot at once.
  let ring: number[] = [];
  let seen = 0;
  for (const slot of schedule.between(lower, now)) {
    if (seen === 0) ring = [slot];
    else ring[seen % max] = slot;
    seen++;
  }
  if (seen <= max) return { slots: ring, dropped: 0 };
  const start = seen % max;
  return { slots: [...ring.slice(start), ...ring.slice(0, start)], dropped: seen - max };
}

/**
 * The earliest next slot of any of `schedules` strictly after `now`, or undefined.
 * A schedule whose `next()` throws is left out.
 *
 * @example nextWake([cron("* * * * *")], now) // the next minute boundary
 */
export function nextWake(schedules: Iterable<Schedule>, now: number): number | undefined {
  let best: number | undefined;
  for (const schedule of schedules) {
    let next: number | null;
    try {
      next = schedule.next(now);
    } catch {
      // A broken user-supplied Schedule; the tick logs it, the 60 s clamp keeps waking.
      continue;
    }
    if (next !== null && (best === undefined || next < best)) best = next;
  }
  return best;
}
