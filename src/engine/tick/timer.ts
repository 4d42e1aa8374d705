/** Timer mode: one timer at the earliest next slot of all jobs, clamped to 60 s. */
import { initRetryMs } from "../store/init.ts";
import { errorText } from "../text.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import { createWakeCache } from "./wake.ts";
import { startsOf } from "./jitter.ts";
import type { StartedTick } from "./tick.ts";
import type { Clock, Logger } from "../types.ts";
import type { Schedule } from "../../core/types.ts";

/** The hint of a tick claimed ahead: one object, not one a minute (`core/kept.ts`). */
const AHEAD = Object.freeze({ ahead: true });

/** How soon a node whose tick left due slots to others (capacity) looks again, at the latest. */
export const DEFERRED_RETRY_MS = 1_000;

/** The longest a timer waits, so clock jumps, job changes and expired leases are re-read. */
export const MAX_TIMER_MS = 60_000;

/**
 * How long timer mode sleeps at `now` when the earliest next slot is `next`:
 * `next - now`, at most `MAX_TIMER_MS` (also when there is no next slot), never negative.
 *
 * @example timerDelay(0, 365 * 86_400_000) // 60_000
 */
export function timerDelay(now: number, next: number | undefined): number {
  if (next === undefined) return MAX_TIMER_MS;
  return Math.min(MAX_TIMER_MS, Math.max(0, next - now));
}

/**
 * What timer mode tells a tick beyond its time: `ahead`, a slot still to come claimed now
 * (`claimAhead`); `quietSince`, an instant from which no job has had a slot up to the
 * tick's time (a wake of the 60 s clamp, the job set unchanged since the timer looked).
 */
export interface TickHint {
  ahead?: boolean;
  quietSince?: number;
}

/** The timer loop of one scheduler. `start()` ticks at once, then at each wake. */
export interface TimerLoop {
  start(): void;
  /** Stops arming; resolves when a tick being planned has made its claims. */
  stop(): Promise<void>;
  readonly running: boolean;
  /** Delay of the armed timer, if armed (for tests and health). */
  readonly armedMs: number | undefined;
  /**
   * The job set changed: an armed timer is armed again (once per turn, however many jobs
   * changed in it) for the earliest slot of the new set, so a job added while the timer
   * waits out the 60 s clamp is ticked at its first slot, not a clamp wake after it.
   */
  changed(): void;
}

/**
 * Creates the loop. On wake it runs `tick(now)` and re-arms as soon as that tick's
 * claims are made, WITHOUT waiting for its runs: a long run never delays another
 * job's slot. Ticks therefore overlap when runs are long; the store's claims keep
 * every slot to one run. A tick that left due slots for lack of capacity is followed
 * by `more()` (the next round of its plan) as capacity frees, until the next slot of
 * any job, which gets a whole tick. With `leadMs` (`claimAhead`), the timer wakes that
 * long before the next slot and ticks ahead for it (`Ticker.start`): the tick claims
 * then and resolves at the slot, when its runs start. A slot is ticked ahead once; when
 * that tick left jobs out (`retick`) or failed, the slot gets an ordinary tick when due.
 */
export function createTimerLoop(
  state: {
    clock: Clock;
    log: Logger;
    jobs: () => ResolvedJob[];
    /** Changes whenever any job changes (the registry's version): the wake cache re-reads the jobs then. */
    version: () => number;
    /** Calls the listener when runs settle and at least half the capacity is free. */
    onCapacity: (listener: () => void) => void;
    /** Whether at least half the capacity is free now. */
    hasCapacity: () => boolean;
    /** How long before a slot it is claimed (0: when due). */
    leadMs?: number;
    /** Claimed ahead only when at least this many jobs share the slot (0 or absent: every slot). */
    leadJobs?: number;
    /** Failed store inits in a row (absent: none): a wake to try again backs off ({@link initRetryMs}). */
    initFailures?: () => number;
  },
  tick: (now: number, opts?: TickHint) => Promise<StartedTick>,
  /** The next round of the last plan; a wait to help ends at `until`, the next slot. */
  more: (until: number) => Promise<StartedTick>,
): TimerLoop {
  let running = false;
  let deferred = false;
  // Until this instant (the earliest next slot when armed) a wake with slots deferred takes a round of the plan.
  let roundsUntil = -Infinity;
  const wakes = createWakeCache();
  let handle: unknown;
  let armedMs: number | undefined;
  let planning: Promise<unknown> = Promise.resolve();
  const lead = state.leadMs ?? 0;
  const leadJobs = state.leadJobs ?? 0;
  /** The slot the armed timer wakes to claim ahead. */
  let aheadOf: number | undefined;
  /** A tick ahead left jobs out: the next wake is an ordinary tick, at once (the slot has come). */
  let retick = false;
  /** The `now` of the last tick begun (the slot, for a tick ahead: never ticked ahead twice). */
  let tickedAt = -Infinity;
  /** The `tickedAt` whose late slots `arm()` looked for (once per tick). */
  let checkedFor = -Infinity;
  /** The job set's version when `roundsUntil` was found: a wake before it is quiet only if unchanged. */
  let armedVersion: number | undefined;
  /** Another node's lease end from the last tick: a wake just after it reaps that row if it is not renewed. */
  let leaseEnd: number | undefined;
  /** What the wake cache reads when the job set changed. */
  const schedules = () => enabledSchedules(state.jobs());

  const arm = (): void => {
    // A wake from before a stop()/start() pair may finish after the new one armed: one timer only.
    if (!running || handle !== undefined) return;
    const now = state.clock.now();
    // Between rounds of one plan the next slot is still the one found before: no pass over every job.
    // When that slot came while a round ran (it waited to help), it is due now: a tick at
    // once (the wake cache finds only slots after now, so it would be planned at the one
    // after it, and recorded `missed` by catch-up).
    // Likewise a slot that came while the last tick ran (a tick slower than the gap to the
    // next slot: a cold start, a slow store): once per tick, the first slot after the
    // tick's own time is looked up, and a tick follows at once when it has come.
    const late = !deferred && !retick && checkedFor !== tickedAt && tickedAt < now;
    checkedFor = tickedAt;
    const missed = late ? wakes.next(tickedAt, state.version(), schedules) : undefined;
    const next = roundsUntil > tickedAt && roundsUntil <= now
      ? now
      : deferred && roundsUntil > now
      ? roundsUntil
      : missed !== undefined && missed <= now
      ? now
      : wakes.next(now, state.version(), schedules);
    armedMs = timerDelay(now, next === Infinity ? undefined : next);
    roundsUntil = next ?? Infinity;
    // A schedule that threw is left out of `next`: no wake counts as quiet while one does.
    armedVersion = wakes.failing === 0 ? state.version() : undefined;
    // Slots left for lack of capacity are still due: look again at once when this node has
    // room (its claims lost to other nodes'), else once runs end or after a short delay.
    if (deferred) armedMs = state.hasCapacity() ? 0 : Math.min(armedMs, DEFERRED_RETRY_MS);
    aheadOf = undefined;
    if (retick) armedMs = 0;
    else if (
      lead > 0 && next !== undefined && next !== Infinity && next > now && next > tickedAt &&
      (leadJobs === 0 || wakes.sharing(next, leadJobs) >= leadJobs)
    ) {
      aheadOf = next;
      armedMs = Math.min(armedMs, Math.max(0, next - lead - now));
    }
    // A dead node's slot is reaped (and re-run) just after its lease ends, not at the next
    // slot of any job here: a `*/30 * * * * *` job was re-run 28 s after a kill, one on
    // `0 * * * * *` 58 s after, and the re-run, still live, cost the next slot (`skipped`).
    if (leaseEnd !== undefined && leaseEnd + 1 > now && leaseEnd + 1 - now < armedMs) {
      armedMs = leaseEnd + 1 - now;
      aheadOf = undefined;
    }
    // A store that cannot be initialised runs no slot: trying it again at every slot of a
    // `* * * * * *` job was a failed init (and a line) a second.
    const retryMs = initRetryMs(state.initFailures?.() ?? 0);
    if (retryMs > armedMs) {
      armedMs = retryMs;
      aheadOf = undefined;
    }
    handle = state.clock.setTimeout(wake, armedMs);
  };

  const wake = (): void => {
    handle = undefined;
    armedMs = undefined;
    if (!running) return;
    const now = state.clock.now();
    const slot = aheadOf;
    aheadOf = undefined;
    const again = retick;
    retick = false;
    let begun: Promise<StartedTick>;
    const ahead = !again && slot !== undefined && now >= slot - lead && now < slot;
    if (ahead) {
      tickedAt = slot;
      begun = tick(slot, AHEAD);
      // Step the schedules due at the slot now, in the lead, not in the re-arm at the slot
      // (18-22 ms over 10 000 jobs, while the slot's runs wait to start).
      wakes.advance(slot, now, state.version(), schedules);
    } else if (!again && deferred && now < roundsUntil) begun = more(roundsUntil);
    else {
      // Woken before the next slot (the 60 s clamp): no job has had a slot since the last
      // tick, which the tick need not read every job's state to learn (an idle minute).
      const quiet = !again && now < roundsUntil && tickedAt > -Infinity && armedVersion === state.version();
      const since = tickedAt;
      tickedAt = now;
      begun = tick(now, quiet ? { quietSince: since } : undefined);
    }
    const phase = begun.then(
      (started) => {
        deferred = (started.report.deferred ?? 0) > 0;
        if ("leaseEnd" in started) leaseEnd = started.leaseEnd;
        // A claim lost to another node: its row was written after the snapshot; its lease
        // ends about when this node's would have (the wake's tick then reads the real end).
        const lost = started.lostLeaseEnd;
        if (lost !== undefined && (leaseEnd === undefined || lost < leaseEnd)) leaseEnd = lost;
        // A tick ahead that failed once its slot had come (its claims' wait for the slot
        // ended the tick) leaves the slot to an ordinary tick now; one that failed sooner
        // re-arms for the slot itself (tickedAt keeps it from being ticked ahead again).
        retick = started.retick === true ||
          (ahead && !started.report.ok && state.clock.now() >= slot);
        started.settled.then(
          (report) => {
            // A store failure is logged as it happens (the `store-error` event); any other
            // failure of a tick (a refused claim) is said here, or timer mode fails silently.
            if (!report.ok && report.error?.startsWith("store-error") !== true) {
              state.log.error("tick failed", { error: report.error });
            }
          },
          (e: unknown) => state.log.error("tick failed", { error: errorText(e) }),
        );
      },
      (e: unknown) => state.log.error("tick failed", { error: errorText(e) }),
    );
    planning = phase;
    void phase.then(arm);
  };

  state.onCapacity(() => {
    // A run ended while due slots wait: wake now instead of at the retry delay.
    if (!deferred || !running || handle === undefined) return;
    state.clock.clearTimeout(handle);
    handle = undefined;
    wake();
  });

  let rearming = false;

  return {
    changed() {
      if (!running || rearming) return;
      rearming = true;
      void Promise.resolve().then(() => {
        rearming = false;
        // Mid-tick (not armed), the re-arm after the tick reads the new set anyway.
        if (!running || handle === undefined) return;
        state.clock.clearTimeout(handle);
        handle = undefined;
        arm();
      });
    },
    start() {
      if (running) return;
      running = true;
      // Tick at once: registers new jobs (their first-seen instant) and catches up after downtime.
      wake();
    },
    async stop() {
      running = false;
      if (handle !== undefined) state.clock.clearTimeout(handle);
      handle = undefined;
      armedMs = undefined;
      await planning;
    },
    get running() {
      return running;
    },
    get armedMs() {
      return armedMs;
    },
  };
}

function* enabledSchedules(jobs: readonly ResolvedJob[]): Iterable<Schedule> {
  // A jittered job wakes the timer at its slots' starts, not at the slots.
  for (const job of jobs) if (job.enabled) yield startsOf(job);
}
