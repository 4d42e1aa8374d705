/**
 * What a trigger sets off: `tick(now, { until })` from a platform trigger, and timer mode
 * (`start()`). Both begin a tick through the ticker, take further rounds of its plan when
 * this node was at capacity, and fail into a report, never a rejection.
 */
import { SchedulerError } from "../core/errors.ts";
import { toWholeEpochMs } from "../core/instant.ts";
import { errorText } from "./text.ts";
import { mergeRounds } from "./tick/report.ts";
import { RUN_AHEAD_MAX_MS, runAhead } from "./tick/run_ahead.ts";
import { startsOf } from "./tick/jitter.ts";
import type { StartedTick, Ticker } from "./tick/tick.ts";
import { createTimerLoop, type TickHint } from "./tick/timer.ts";
import type { JobRegistry } from "./jobs/registry.ts";
import type { JobViews } from "./jobs/info.ts";
import type { RunTracker } from "./run/tracker.ts";
import type { Clock, Logger, Scheduler, SchedulerEvent, TickReport } from "./types.ts";

/** What the triggers use: the ticker and the parts whose state a tick reads or resets. */
export interface TriggerDeps {
  ticker: Ticker;
  tracker: RunTracker;
  registry: JobRegistry;
  views: JobViews;
  clock: Clock;
  log: Logger;
  node: string;
  /** Store initialisation (once, retried after a failure): awaited before a tick, which fails when it does. */
  ready: () => Promise<void>;
  /** Failed store inits in a row: timer mode waits longer between them. */
  initFailures: () => number;
  emit: (event: SchedulerEvent) => void;
  /** `runAhead` option (default true): whether `tick(now, { until })` runs ahead. */
  runAhead: boolean;
  /** `claimAhead` option in ms: how long before a slot timer mode claims it (0: when due). */
  claimAheadMs: number;
  /** Claim ahead only for a slot at least this many jobs share (0: every slot). */
  claimAheadJobs: number;
}

/** The scheduler's `tick()` and `start()`, and `halt()` for `stop()`. */
export interface Triggers {
  tick: Scheduler["tick"];
  start(): void;
  /**
   * Aborts run-ahead loops in flight and stops timer mode (runs in flight go on). The
   * claims already won still start (those made ahead at their slot) for `drainMs` at
   * most; what has not started then is released.
   */
  halt(drainMs: number): Promise<void>;
  /** Whether timer mode is armed. */
  readonly running: boolean;
  /** Resolves at the next `start()`: a `stop()` in progress ends there. */
  readonly restarted: Promise<void>;
}

/** One tick begun (`begin`), the next round of its plan (`more`), and whether a round is worth claiming. */
interface RoundLoop {
  /** With `ahead`, `now` is a slot to come, claimed now and started then; `quietSince`: see `Ticker.start`. */
  begin(now: number, hint?: TickHint): Promise<StartedTick>;
  /** The next round; one that must wait to help waits until `until` at most (timer mode's next slot). */
  more(until?: number): Promise<StartedTick>;
  /** At least half the capacity free: when the next round of a tick is worth claiming. */
  hasRoom(): boolean;
  /** One trigger's tick with all its rounds, resolved when every run has its outcome. */
  all(now: number, begun?: Promise<StartedTick>): Promise<TickReport>;
  /** To call when a run settles: releases the rounds waiting for room. */
  settled(): void;
}

/** Creates the triggers of one scheduler. */
export function createTriggers(deps: TriggerDeps): Triggers {
  const { clock, registry, tracker } = deps;
  const rounds = createRoundLoop(deps);
  const timer = createTimerLoop(
    {
      clock,
      log: deps.log,
      jobs: () => registry.all(),
      version: () => registry.version,
      onCapacity: (wake) =>
        tracker.onSettle(() => {
          if (rounds.hasRoom()) wake();
        }),
      hasCapacity: rounds.hasRoom,
      leadMs: deps.claimAheadMs,
      leadJobs: deps.claimAheadJobs,
      initFailures: deps.initFailures,
    },
    rounds.begin,
    rounds.more,
  );
  registry.onChange(timer.changed);
  // After the timer's own listener, as it always was: the timer wakes before waiting rounds resume.
  tracker.onSettle(rounds.settled);
  // Run-ahead loops in flight (platform triggers); halt() aborts them.
  const aheads = new Set<AbortController>();
  let restart!: () => void;
  let restarted = new Promise<void>((resolve) => restart = resolve);
  return {
    async tick(now, opts = {}) {
      // Checked here: a bad `now` reached the store and came back as a failed tick.
      const clocked = clock.now();
      let at = now === undefined ? clocked : toWholeEpochMs(now, { field: "now", allowString: false });
      if (opts.until !== undefined) {
        toWholeEpochMs(opts.until, { field: "until", allowString: false });
        if (opts.until - at > RUN_AHEAD_MAX_MS) {
          throw new SchedulerError(
            "invalid-spec",
            `until: at most a day after now (${iso(at)}): run-ahead holds the call until then, got ${iso(opts.until)}`,
            { path: "until" },
          );
        }
      }
      // A tick ahead of the clock (a Cron Trigger's scheduledTime ahead of the isolate's
      // clock, a test's fixed date) ran its slots early, recorded the ones before them
      // `missed`, and left later ticks nothing to plan until the clock caught up: it ticks
      // at the clock, and its run-ahead (as long as asked, from the clock) runs the slots it
      // covers at their time.
      // Its run-ahead keeps its length from the clock: held to `until`, an event a year ahead
      // held its call for the day the cap allows (a Worker's event is cut long before).
      const asked = at;
      if (at > clocked) {
        deps.log.warn(`tick at ${iso(at)} is ahead of the clock (${iso(clocked)}): ticked at the clock`);
        at = clocked;
      }
      // A late or repeated delivery decides its own slots only; `lastTick` stays.
      const last = deps.ticker.lastTick;
      if (last !== undefined && at < last) {
        deps.log.info(`tick at ${iso(at)} is older than the last tick (${iso(last)}): lastTick kept`);
      }
      const until = opts.until === undefined ? at : opts.until - (asked - at);
      if (!deps.runAhead || until <= at) return rounds.all(at);
      const claimed = rounds.begin(at);
      const main = rounds.all(at, claimed);
      const controller = new AbortController();
      aheads.add(controller);
      const jobs = () =>
        registry.all().filter((job) => job.enabled).map((job) => ({ name: job.name, schedule: startsOf(job) }));
      const quiet = (names: readonly string[]) => tracker.settledOf(names);
      try {
        const [report] = await Promise.all([
          main,
          runAhead({ clock, begin: rounds.begin, signal: controller.signal, jobs, quiet }, at, until, claimed),
        ]);
        return report;
      } finally {
        aheads.delete(controller);
      }
    },
    start: () => {
      // A stop() in progress ends here: its claims and runs are this start's.
      tracker.stopping = false;
      deps.ticker.halt(false);
      timer.start();
      restart();
      restarted = new Promise((resolve) => restart = resolve);
    },
    async halt(drainMs) {
      // A start() since (replacing `restarted`) owns what the node holds from then on.
      const epoch = restarted;
      for (const controller of aheads) controller.abort();
      // Nothing more is claimed; what this node has won still starts (a claim made ahead at
      // its slot, a queued one as capacity frees), for `drainMs` at most. Then a wait for a
      // slot claimed ahead ends, and what has not started is released.
      deps.ticker.halt(drainMs > 0 ? "drain" : "stop");
      let handle: unknown;
      const cutOff = drainMs > 0
        ? new Promise<void>((resolve) => {
          handle = clock.setTimeout(() => {
            if (restarted === epoch) deps.ticker.halt("stop");
            resolve();
          }, drainMs);
        })
        : Promise.resolve();
      try {
        // A tick that claimed ahead ends at its slot, or at the cut (its claims released then).
        await timer.stop();
        await Promise.race([deps.ticker.started(), cutOff]);
      } finally {
        if (handle !== undefined) clock.clearTimeout(handle);
      }
      // Started again meanwhile: the claims held and queued are the new start's to run.
      if (restarted !== epoch) return;
      deps.ticker.halt("stop");
      await deps.ticker.drop();
      // A platform trigger's tick() after the stop claims as before it.
      deps.ticker.halt("stopped");
    },
    get running() {
      return timer.running;
    },
    get restarted() {
      return restarted;
    },
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();

function createRoundLoop(deps: TriggerDeps): RoundLoop {
  const { ticker, views, clock, log, node } = deps;
  const failed = (now: number, e: unknown, logged = true): StartedTick => {
    const error = errorText(e);
    if (logged) log.error("tick failed", { error });
    const report: TickReport = { now, node, ok: false, error, jobs: {} };
    return { report, settled: Promise.resolve(report) };
  };
  const begin = async (now: number, hint?: TickHint): Promise<StartedTick> => {
    try {
      await deps.ready();
    } catch (e) {
      // Nothing is planned on a store whose schema is missing or half migrated (a memory
      // store double's snapshot answered, and the job ran): the tick fails as one whose
      // snapshot failed (`store-error` said why, a `tick` event says it), and the next one
      // tries init again.
      const { report } = failed(now, e, false);
      deps.emit({ type: "tick", now, report });
      return { report, settled: Promise.resolve(report) };
    }
    views.invalidate();
    try {
      return await ticker.start(now, hint);
    } catch (e) {
      // Only a broken user-supplied Schedule object can get here; tick() still never rejects.
      return failed(now, e);
    }
  };
  // The next round of the last tick's plan (its node was at capacity): no snapshot.
  const more = async (until?: number): Promise<StartedTick> => {
    views.invalidate();
    try {
      return await ticker.more(until);
    } catch (e) {
      return failed(clock.now(), e);
    }
  };
  // Room to claim at least half the capacity: when the next round of a tick is worth claiming.
  const hasRoom = (): boolean => ticker.hasRoom();
  // Resolves once at least half the capacity is free (at once when it is).
  const roomWaiters: (() => void)[] = [];
  const settled = (): void => {
    if (hasRoom()) { for (const resolve of roomWaiters.splice(0)) resolve(); }
  };
  const room = (): Promise<void> => hasRoom() ? Promise.resolve() : new Promise((resolve) => roomWaiters.push(resolve));
  // A node at its capacity left due slots, so (a platform trigger ticks once a minute) it
  // takes them in further rounds of the same plan as its runs free capacity, without
  // waiting for a round's outcomes to be written.
  const all = async (at: number, begun = begin(at)): Promise<TickReport> => {
    const started = [await begun];
    let last = started[0]!.report;
    while ((last.deferred ?? 0) > 0 && last.ok) {
      await room();
      const next = await more();
      if (Object.keys(next.report.jobs).length === 0) break;
      started.push(next);
      last = next.report;
    }
    const [first, ...rest] = await Promise.all(started.map((s) => s.settled));
    for (const round of rest) mergeRounds(first!, round);
    if (rest.length > 0) {
      if (last.deferred === undefined) delete first!.deferred;
      else first!.deferred = last.deferred;
    }
    return first!;
  };
  return { begin, more, hasRoom, all, settled };
}
