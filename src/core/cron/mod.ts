export { cron, cronText } from "./cron.ts";
export type { CronOptions } from "./cron.ts";
export { MAX_EXPRESSION_LENGTH, parseCron } from "./parse.ts";
export type { CronFields, ParseOptions } from "./parse.ts";
export { fieldHash, fnv1a32 } from "./hash.ts";
export type { Bits60, DomSet, DowSet } from "./sets.ts";
export { resolveCron } from "./resolve.ts";
