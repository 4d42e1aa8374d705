export { cron, cronText } from "./schedule.ts";
export type { CronOptions } from "./schedule.ts";
export { MAX_EXPRESSION_LENGTH, parseCron } from "./parse.ts";
export type { CronFields, DomSet, DowSet } from "./parse.ts";
