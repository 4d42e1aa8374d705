/**
 * `edgecron/testing`: the manual clock, for tests that drive a scheduler through time
 * without real sleeps: `createScheduler({ clock })`, then `clock.advance("1m")`.
 *
 * @module
 */
export { createManualClock } from "./engine/clock.ts";
export type { ManualClock } from "./engine/clock.ts";
