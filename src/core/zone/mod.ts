export { assertTimeZone } from "./assert.ts";
export { MAX_OFFSET, MIN_OFFSET, zoneOffsets } from "./offsets.ts";
export type { Segment, ZoneOffsets } from "./offsets.ts";
