export { cron, cronText } from "./schedule.ts";
export type { CronOptions } from "./schedule.ts";
export { MAX_EXPRESSION_LENGTH, parseCron } from "./parse.ts";
export type { CronFields } from "./parse.ts";
export type { Bits60, DomSet, DowSet } from "./sets.ts";
