/**
 * The engine: `createScheduler()` (tick, timer mode, run policies, claims), clocks,
 * loggers, and the pure planner.
 *
 * @module
 */
export { createScheduler } from "./scheduler.ts";
export { createManualClock, systemClock } from "./clock.ts";
export type { ManualClock } from "./clock.ts";
export { consoleLogger } from "./events.ts";
export { runAheadUntil } from "./tick/run_ahead.ts";
export { MAX_SLOTS_PER_TICK, nextWake, planSlots } from "./tick/plan.ts";
export type { Plan, PlanInput } from "./tick/plan.ts";
export { MAX_TIMER_MS, timerDelay } from "./tick/timer.ts";
export type * from "./types.ts";
