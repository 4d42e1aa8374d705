/**
 * The node's run queue: slots this node has won but not started yet. `concurrency`
 * bounds the runs in flight, not the claims, so a round may claim more than the free
 * capacity (its own share whole; other nodes' about a second of work ahead at the
 * measured pace, `ahead()`) and start the rest here, in claim order, as runs settle. A
 * queued claim is an ordinary held claim: the heartbeat renews its lease while it waits,
 * and if this node dies its row's lease ends and any node's next tick records it
 * `abandoned` (re-run when the job has retries left), as for a run in flight.
 */
import type { RunTracker } from "../run/tracker.ts";
import { nextTurn, STARTS_PER_TURN } from "./turn.ts";

/** How far ahead a node claims, in time at its measured pace: later work is left to the next round or to other nodes. */
export const AHEAD_MS = 1_000;
/** The most runs a node claims ahead of its free capacity. */
export const MAX_AHEAD = 10_000;
/** Weight of the newest run in the average run time. */
const ALPHA = 0.2;

/** One queued run: it says itself when it settled (no promise per run of a large minute). */
export interface QueuedRun {
  /**
   * Starts the run, tracked as in flight before it returns. It calls `pace.ran(startedAt)`
   * once when its slots settle, before the tracker hears of it, so the pace is known to
   * whoever the tracker wakes.
   */
  start(pace: RunPace, startedAt: number): void;
  /** Called instead of `start()` when the queue is dropped (the scheduler stops). */
  drop(): Promise<void>;
}

/** What a started run reports back to its queue. */
export interface RunPace {
  /** The run started at `startedAt` (the queue's time) settled. */
  ran(startedAt: number): void;
}

/** The run queue of one node. */
export interface RunQueue extends RunPace {
  /** Queues a run; starts it at once when there is room. */
  push(run: QueuedRun): void;
  /** Runs waiting to start. */
  readonly length: number;
  /**
   * How many runs a round may claim now: the free capacity plus `ahead()`, less the
   * queue. Claiming ahead needs runs to be settling (one did within `AHEAD_MS`): a node
   * whose capacity is held by long runs claims nothing it could not start.
   */
  budget(): number;
  /** Runs worth claiming beyond the free capacity: about `AHEAD_MS` of work at the average run time measured. */
  ahead(): number;
  /** Drops every queued run (their `drop()`); resolves when they are dropped. */
  drop(): Promise<void>;
  /** Resolves once no run waits to start (at once when none does). */
  empty(): Promise<void>;
}

/** Creates the queue over the tracker's runs in flight. */
export function createRunQueue(deps: {
  tracker: RunTracker;
  concurrency: number;
  now: () => number;
  /** Held while runs wait to start (outcome writes wait then, `outcomes.ts`); returns the release. */
  hold?: () => () => void;
}): RunQueue {
  const { tracker, concurrency } = deps;
  const waiting: QueuedRun[] = [];
  let head = 0;
  let release: (() => void) | undefined;
  /** Callers of `empty()` waiting for the queue to empty. */
  let emptied: (() => void)[] = [];
  /** Takes the hold when runs wait, gives it back (and wakes `empty()`'s callers) once none do. */
  const held = (): void => {
    if (waiting.length > head) release ??= deps.hold?.();
    else {
      if (release !== undefined) {
        const r = release;
        release = undefined;
        r();
      }
      if (emptied.length > 0) {
        const wake = emptied;
        emptied = [];
        for (const resolve of wake) resolve();
      }
    }
  };
  // Average time from a run's start to its settling (outcome recorded), ms; undefined until one settled.
  // Timed to the handler's end instead (no-op handlers: about 1 ms), a node claimed its whole
  // share at once and the 4-process bench lost more claims between nodes (bench/README.md).
  let average: number | undefined;
  let lastSettled = -Infinity;

  // Starts since the last yield: runs that settle in microtasks (a memory store, no-op
  // handlers) would otherwise start one another without the event loop ever turning.
  let starts = 0;
  let yielding = false;
  const pump = (): void => {
    // While yielding, runs still wait: the hold is taken (or kept) all the same. Before,
    // a pass that yielded returned before `held()`, so the outcomes of a burst's first runs
    // went to the store in the middle of the burst, one small batch after another.
    if (yielding) return held();
    while (head < waiting.length && tracker.handlers < concurrency && !tracker.stopping) {
      if (starts >= STARTS_PER_TURN) {
        yielding = true;
        void nextTurn().then(() => {
          yielding = false;
          starts = 0;
          pump();
        });
        break;
      }
      starts++;
      const run = waiting[head]!;
      waiting[head++] = undefined!;
      run.start(queue, deps.now());
    }
    // Compact now and then so a long-lived queue does not keep a long array of holes.
    if (head > 1_024 && head * 2 > waiting.length) {
      waiting.splice(0, head);
      head = 0;
    }
    held();
  };
  tracker.onSettle(pump);

  const ahead = (): number =>
    average === undefined ? 0 : Math.min(MAX_AHEAD, Math.floor(concurrency * AHEAD_MS / Math.max(1, average)));

  const queue: RunQueue = {
    push(run) {
      waiting.push(run);
      pump();
    },
    ran(startedAt) {
      const now = deps.now();
      const took = Math.max(0, now - startedAt);
      lastSettled = now;
      average = average === undefined ? took : average + ALPHA * (took - average);
    },
    get length() {
      return waiting.length - head;
    },
    budget() {
      const free = Math.max(0, concurrency - tracker.handlers);
      const settling = free > 0 || deps.now() - lastSettled <= AHEAD_MS;
      return Math.max(0, free + (settling ? ahead() : 0) - (waiting.length - head));
    },
    ahead,
    empty() {
      if (waiting.length === head) return Promise.resolve();
      return new Promise<void>((resolve) => void emptied.push(resolve));
    },
    async drop() {
      const dropped = waiting.splice(head);
      waiting.length = 0;
      head = 0;
      held();
      await Promise.all(dropped.map((run) => run.drop().catch(() => {})));
    },
  };
  return queue;
}
