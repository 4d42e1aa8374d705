/**
 * Run-ahead: platform triggers (Cloudflare Cron Triggers, `Deno.cron`) fire at most once
 * a minute. After the trigger's own tick, the invocation is held and the scheduler ticks
 * again at each sub-minute slot before the next minute, so `*\/10 * * * * *` runs six
 * times a minute instead of once.
 *
 * Each slot is claimed by a tick at its own time, never in advance, so a second trigger
 * or node racing this one still runs each slot exactly once; the minute boundary itself
 * (`until`) is left to the next trigger.
 */
import { cron } from "../../core/cron/mod.ts";
import type { Schedule } from "../../core/types.ts";
import type { Clock, TickReport } from "../types.ts";

/** What run-ahead needs from the scheduler. */
export interface RunAheadDeps {
  clock: Clock;
  /** The jobs known now (code and data jobs). */
  jobs(): Iterable<{ name: string; schedule: Schedule }>;
  /** Resolves once no run of these jobs is in flight on this node (outcomes recorded). */
  quiet(names: readonly string[]): Promise<unknown>;
  /** Starts a tick at `now`; resolves once its claims are made, with `settled` resolving when its runs are recorded. */
  begin(now: number): Promise<{ settled: Promise<TickReport> }>;
  /** Aborted by `stop()`: no slot after that is claimed. */
  signal: AbortSignal;
}

/** The end of the trigger's minute: run-ahead covers `(now, minuteEnd(now))`. */
export function minuteEnd(now: number): number {
  return Math.floor(now / 60_000) * 60_000 + 60_000;
}

/**
 * The longest run-ahead: a day. `tick(now, { until })` refuses a later `until` (a
 * microsecond or unit slip held the caller for years), and `runAheadUntil()` stops there
 * (a yearly trigger held its invocation for a year; platforms end one sooner anyway).
 */
export const RUN_AHEAD_MAX_MS = 86_400_000;

/**
 * Where a platform trigger's run-ahead ends: the trigger's own next fire after `now`
 * (its cron read in UTC, as Cron Triggers and `Deno.cron` read it), or the end of the
 * minute when the trigger's expression is not one this library reads; at most
 * {@link RUN_AHEAD_MAX_MS} after `now`.
 *
 * @example
 * ```ts
 * import { runAheadUntil } from "edgecron";
 *
 * runAheadUntil("* * * * *", Date.UTC(2030, 0, 1, 0, 0, 5)); // 2030-01-01T00:01:00Z
 * ```
 */
export function runAheadUntil(trigger: string | undefined, now: number): number {
  if (trigger !== undefined) {
    try {
      const next = cron(trigger, { timezone: "UTC" }).next(now);
      if (next !== null) return Math.min(next, now + RUN_AHEAD_MAX_MS);
    } catch {
      // Not our grammar (a platform-specific form): a minute is always safe.
    }
  }
  return minuteEnd(now);
}

/**
 * The slot a platform trigger fired for, when the platform does not say (`Deno.cron`):
 * the trigger's latest fire at or before `now` (its cron read in UTC), when that is less
 * than a minute ago; otherwise, or for an expression this library does not read, `now`.
 * Ticking at it, as at Workers' `scheduledTime`, lets the first trigger run its own slot
 * and makes a repeated delivery name the same minute.
 *
 * @example triggerSlot("* * * * *", Date.UTC(2030, 0, 1, 0, 0, 0, 40)) // 2030-01-01T00:00:00Z
 */
export function triggerSlot(trigger: string | undefined, now: number): number {
  if (trigger === undefined) return now;
  try {
    const fired = cron(trigger, { timezone: "UTC" }).prev(now + 1);
    if (fired !== null && now - fired < 60_000) return fired;
  } catch {
    // Not our grammar: the clock is all there is.
  }
  return now;
}

/**
 * The fire times of `schedules` strictly inside `(from, until)`, one at a time, ascending
 * and distinct: each call answers the next, undefined once there is none. A schedule
 * whose next fire is past the window drops out (`next()` only moves forward), so 10 000
 * minute jobs beside one per-second job cost one pass, not one per second. A schedule
 * whose every slot falls on the minute has none inside a trigger's minute, so it costs
 * one `next()`. (The whole window listed up front held every slot of a per-second job
 * until a yearly trigger's next fire: 18 million, past a Worker's memory.)
 */
export function slotsAfter(schedules: readonly Schedule[], from: number, until: number): () => number | undefined {
  let pending: { schedule: Schedule; t: number }[] = [];
  for (const schedule of schedules) {
    const t = schedule.next(from);
    if (t !== null && t > from && t < until) pending.push({ schedule, t });
  }
  return () => {
    if (pending.length === 0) return undefined;
    let min = until;
    for (const p of pending) if (p.t < min) min = p.t;
    pending = pending.filter((p) => {
      if (p.t !== min) return true;
      // A schedule that does not move forward (a user's own) is done, not asked forever.
      const t = p.schedule.next(min);
      p.t = t === null || t <= min ? until : t;
      return p.t < until;
    });
    return min;
  };
}

/**
 * Ticks at each slot in `(from, until)` as its time comes, and resolves when every run
 * those ticks started has its outcome recorded. Slots already due when it starts (a late
 * delivery) are taken by one catch-up tick once `claimed` (the trigger's own tick's
 * claims) is done and the runs of the jobs with such slots have their outcomes recorded,
 * so each job's catch-up policy decides them and none is skipped for overlapping a run
 * whose outcome was still being written. Runs of other jobs (a long minute job) are not
 * waited for. Ends early, leaving the remaining slots unclaimed for the next trigger
 * (which records them by each job's catch-up policy), when `signal` aborts.
 */
export async function runAhead(
  deps: RunAheadDeps,
  from: number,
  until: number,
  claimed: Promise<unknown>,
): Promise<TickReport[]> {
  const settled: Promise<TickReport>[] = [];
  const start = deps.clock.now();
  const jobs = [...deps.jobs()];
  const schedules = jobs.map((j) => j.schedule);
  let step = slotsAfter(schedules, from, until);
  let slot = step();
  if (slot !== undefined && slot <= start) {
    await claimed;
    const due = jobs.filter((j) => !j.schedule.between(from, start)[Symbol.iterator]().next().done).map((j) => j.name);
    await deps.quiet(due);
    // At the clock, but inside the window: a delivery later than its window ticked every
    // job at the clock, so it ran the current minute's slots before their own trigger and
    // recorded the minutes between `missed` (their triggers, still coming, then ran nothing).
    if (!deps.signal.aborted) settled.push((await deps.begin(Math.min(deps.clock.now(), until - 1))).settled);
    // A late delivery: the slots up to `start` were the catch-up tick's.
    step = slotsAfter(schedules, start, until);
    slot = step();
  }
  for (; slot !== undefined; slot = step()) {
    if (!(await sleepUntil(deps.clock, slot, deps.signal))) break;
    settled.push((await deps.begin(slot)).settled);
  }
  return Promise.all(settled);
}

/** Waits until the clock reaches `at`; false when `signal` aborted first. */
function sleepUntil(clock: Clock, at: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  const delay = at - clock.now();
  if (delay <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      resolve(false);
    };
    const handle = clock.setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, delay);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
