/** Clocks: the system clock and a manual clock that tests (and simulations) drive. */
import type { Clock } from "./types.ts";

/** The longest delay a Web timer honours; longer ones fire at once in Node, Deno and Bun. */
const MAX_HOST_DELAY = 2_147_483_647;

/** A timer longer than the host allows, re-armed in steps; `id` is the host timer now pending. */
class ChainedTimer {
  id: ReturnType<typeof setTimeout>;
  constructor(id: ReturnType<typeof setTimeout>) {
    this.id = id;
  }
}

/**
 * The system clock: `Date.now()` and the global Web-standard timers. A delay beyond
 * 2^31 - 1 ms (about 24.8 days: a `timeout: "30d"`, a long retry backoff) is waited
 * in steps, since the hosts would otherwise fire it at once.
 *
 * @example
 * ```ts
 * import { createScheduler, systemClock } from "edgecron";
 *
 * createScheduler({ clock: systemClock() });
 * ```
 */
export function systemClock(): Clock {
  return {
    now: () => Date.now(),
    setTimeout(fn, ms) {
      if (!(ms > MAX_HOST_DELAY)) return globalThis.setTimeout(fn, ms);
      const due = Date.now() + ms;
      const timer = new ChainedTimer(globalThis.setTimeout(step, MAX_HOST_DELAY));
      function step(): void {
        const left = due - Date.now();
        if (left > 0) timer.id = globalThis.setTimeout(step, Math.min(left, MAX_HOST_DELAY));
        else fn();
      }
      return timer;
    },
    clearTimeout(handle) {
      const id = handle instanceof ChainedTimer ? handle.id : handle;
      globalThis.clearTimeout(id as ReturnType<typeof setTimeout>);
    },
  };
}

/** A clock whose time moves only when told to. */
export interface ManualClock extends Clock {
  /** Timers not yet fired, as `{ at, id }`, earliest first. */
  pending(): { at: number; id: number }[];
  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way, in
   * order, each at its own instant, and letting pending promise callbacks run
   * between timers. Resolves once time has reached its target.
   */
  advance(ms: number): Promise<void>;
  /** Like `advance`, to an absolute instant (never backwards: throws `RangeError`). */
  set(ms: number): Promise<void>;
  /** Lets pending promise callbacks (and what they start) run without moving time. */
  settle(): Promise<void>;
}

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A manual clock starting at `start` (epoch ms, `Date` accepted).
 *
 * Drive it from tests like this: start the operation without awaiting it, move
 * time with `await clock.advance(ms)` (it fires due timers in order and lets the
 * promise callbacks they trigger run), then await the operation:
 *
 * ```ts
 * const clock = createManualClock(Date.UTC(2030, 0, 1));
 * const scheduler = createScheduler({ clock });
 * const report = scheduler.tick();     // a handler is waiting on a timer
 * await clock.advance(60_000);         // its timeout fires here
 * await report;
 * ```
 *
 * Timers with the same due instant fire in the order they were set. Between timers
 * it yields to the host event loop with one zero-delay host timer, so work that
 * only awaits promises (the memory store, handlers) runs in between.
 *
 * @throws {RangeError} from `set()` when asked to move backwards, or from
 * `advance()` with a negative or non-finite step.
 */
export function createManualClock(start: number | Date = 0): ManualClock {
  let now = typeof start === "number" ? start : start.getTime();
  let nextId = 1;
  const timers = new Map<number, Timer>();
  const ordered = (): Timer[] => [...timers.values()].sort((a, b) => a.at - b.at || a.id - b.id);

  const settle = async (): Promise<void> => {
    // Two host turns: the first drains promise jobs queued so far, the second
    // catches work those jobs handed to another macrotask.
    for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => globalThis.setTimeout(resolve, 0));
  };

  const moveTo = async (target: number): Promise<void> => {
    await settle();
    for (;;) {
      let due: Timer | undefined;
      for (const t of timers.values()) {
        if (t.at <= target && (due === undefined || t.at < due.at || (t.at === due.at && t.id < due.id))) due = t;
      }
      if (due === undefined) break;
      timers.delete(due.id);
      now = Math.max(now, due.at);
      due.fn();
      await settle();
    }
    now = target;
    await settle();
  };

  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++;
      const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
      timers.set(id, { id, at: now + delay, fn });
      return id;
    },
    clearTimeout(handle) {
      if (typeof handle === "number") timers.delete(handle);
    },
    pending: () => ordered().map(({ at, id }) => ({ at, id })),
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) return Promise.reject(new RangeError(`advance: expected ms >= 0, got ${ms}`));
      return moveTo(now + ms);
    },
    set(ms) {
      if (!Number.isFinite(ms) || ms < now) {
        return Promise.reject(new RangeError(`set: cannot move from ${now} back to ${ms}`));
      }
      return moveTo(ms);
    },
    settle,
  };
}
