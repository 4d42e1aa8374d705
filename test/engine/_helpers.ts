/** Shared setup for engine tests: a manual clock, a memory store, collected events. */
import { createManualClock, type ManualClock } from "../../src/engine/clock.ts";
import { createScheduler } from "../../src/engine/scheduler.ts";
import type {
  Logger,
  RunContext,
  Scheduler,
  SchedulerEvent,
  SchedulerOptions,
  TickReport,
} from "../../src/engine/types.ts";
import { createMemoryStore, type MemoryStore } from "../../src/store/memory/mod.ts";
import type { RunRecord, Store } from "../../src/store/types.ts";

/** 2030-01-01T00:00:00Z: a fixed instant on every minute, hour and day boundary. */
export const T0 = Date.UTC(2030, 0, 1);
export const SEC = 1_000;
export const MIN = 60_000;
export const HOUR = 3_600_000;

/** A logger that keeps its lines, for asserting on them. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (message: string): void => {
    lines.push(`${level} ${message}`);
  };
  return { lines, debug: push("debug"), info: push("info"), warn: push("warn"), error: push("error") };
}

export interface Setup {
  clock: ManualClock;
  store: MemoryStore;
  scheduler: Scheduler;
  events: SchedulerEvent[];
  logger: Logger & { lines: string[] };
}

/** A scheduler on a manual clock at `start` (default T0) and a memory store (or `store`). */
export function setup(
  options: Partial<SchedulerOptions> & { start?: number; clock?: ManualClock; store?: MemoryStore } = {},
): Setup {
  const { start, ...rest } = options;
  const clock = options.clock ?? createManualClock(start ?? T0);
  const store = options.store ?? createMemoryStore();
  const events: SchedulerEvent[] = [];
  const logger = memoryLogger();
  const scheduler = createScheduler({
    clock,
    logger,
    onEvent: (e) => events.push(e),
    leaseGrace: "5s",
    ...rest,
    store,
  });
  return { clock, store, scheduler, events, logger };
}

/** A promise with its resolve/reject exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** All rows of a job, oldest slot first. */
export async function rows(store: Store, job: string): Promise<RunRecord[]> {
  return (await store.runs(job, { limit: 1000 })).reverse();
}

/** Counts rows by status. */
export function tally(records: readonly RunRecord[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of records) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}

/** Events of one type. */
export function ofType<T extends SchedulerEvent["type"]>(
  events: readonly SchedulerEvent[],
  type: T,
): Extract<SchedulerEvent, { type: T }>[] {
  return events.filter((e): e is Extract<SchedulerEvent, { type: T }> => e.type === type);
}

/** Moves the clock to `now` (firing due timers on the way), then ticks. */
export async function tickAt(s: { clock: ManualClock; scheduler: Scheduler }, now: number): Promise<TickReport> {
  await s.clock.set(now);
  return s.scheduler.tick();
}

/** Makes each of `methods` of `store` answer `ms` later on `clock`, as a remote store's round trip does. */
export function slowed(
  store: MemoryStore,
  clock: ManualClock,
  ms: number,
  methods: readonly ("update" | "renew")[],
): void {
  for (const method of methods) {
    const inner = (store[method] as (...args: unknown[]) => Promise<unknown>).bind(store);
    (store as unknown as Record<string, unknown>)[method] = (...args: unknown[]) =>
      new Promise((resolve, reject) => clock.setTimeout(() => inner(...args).then(resolve, reject), ms));
  }
}

/**
 * A handler whose first attempt never settles (with `honours`, it rejects when its signal
 * aborts) and whose later attempts succeed; `seen` hears each attempt's context.
 */
export function firstAttemptHangs(
  honours: boolean,
  seen: (ctx: RunContext) => void,
): (ctx: RunContext) => Promise<void> {
  return (ctx) =>
    new Promise<void>((resolve, reject) => {
      seen(ctx);
      if (ctx.attempt > 1) return resolve();
      if (honours) ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
    });
}
