/**
 * Turns parsed fields into lookup tables for stepping: next/previous allowed value of
 * each time field, next/previous allowed month, and the 28 day masks. All value tables
 * share one small Int8Array so that compiling costs two allocations.
 */
import { dayMaskTable } from "./days.ts";
import type { DayMatch } from "../types.ts";
import type { CronFields } from "./parse.ts";

// Offsets into `CompiledCron.table`. `NEXT_*[v]`: smallest allowed value >= v (one extra
// slot past the max holds -1); `PREV_*[v]`: largest allowed value <= v; -1 means none.
export const NEXT_SECOND = 0;
export const NEXT_MINUTE = 61;
export const NEXT_HOUR = 122;
export const PREV_SECOND = 147;
export const PREV_MINUTE = 207;
export const PREV_HOUR = 267;
/** `NEXT_MONTH + m` / `PREV_MONTH + m` for m in 1..12. */
export const NEXT_MONTH = 291;
export const PREV_MONTH = 304;
const TABLE_SIZE = 317;

/** Lookup tables of one schedule. */
export interface CompiledCron {
  /** Value tables at the offsets above. */
  readonly table: Int8Array;
  readonly firstMinute: number;
  readonly firstSecond: number;
  readonly lastMinute: number;
  readonly lastSecond: number;
  /** Seconds of day of the first and last allowed time. */
  readonly firstTime: number;
  readonly lastTime: number;
  /** Fire days per month shape, indexed by `maskIndex(length, firstWeekday)`. */
  readonly dayMasks: Int32Array;
  /** The hour field allows all 24 hours: a repeated hour fires twice (elapsed time). */
  readonly allHours: boolean;
}

function fill(table: Int8Array, set: readonly number[], size: number, next: number, prev: number): void {
  let last = -1;
  for (let v = 0; v < size; v++) {
    if (set[v] === 1) last = v;
    table[prev + v] = last;
  }
  let first = -1;
  table[next + size] = -1;
  for (let v = size - 1; v >= 0; v--) {
    if (set[v] === 1) first = v;
    table[next + v] = first;
  }
}

/**
 * Compiles parsed fields.
 *
 * @throws {SchedulerError} `invalid-cron` when the day fields can never fire in the months
 */
export function compileCron(fields: CronFields, dayMatch: DayMatch): CompiledCron {
  const dayMasks = dayMaskTable(fields.dom, fields.dow, fields.month, dayMatch, fields.texts);
  const table = new Int8Array(TABLE_SIZE);
  fill(table, fields.second, 60, NEXT_SECOND, PREV_SECOND);
  fill(table, fields.minute, 60, NEXT_MINUTE, PREV_MINUTE);
  fill(table, fields.hour, 24, NEXT_HOUR, PREV_HOUR);
  const months = [0];
  for (let m = 1; m <= 12; m++) months.push((fields.month >> m) & 1);
  fill(table, months, 13, NEXT_MONTH, PREV_MONTH);
  const firstSecond = table[NEXT_SECOND]!, firstMinute = table[NEXT_MINUTE]!, firstHour = table[NEXT_HOUR]!;
  const lastSecond = table[PREV_SECOND + 59]!, lastMinute = table[PREV_MINUTE + 59]!, lastHour = table[PREV_HOUR + 23]!;
  return {
    table,
    firstMinute,
    firstSecond,
    lastMinute,
    lastSecond,
    firstTime: firstHour * 3600 + firstMinute * 60 + firstSecond,
    lastTime: lastHour * 3600 + lastMinute * 60 + lastSecond,
    dayMasks,
    allHours: fields.hour.every((v) => v === 1),
  };
}
