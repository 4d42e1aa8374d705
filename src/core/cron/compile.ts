/**
 * Turns parsed fields into lookup tables for stepping: next/previous allowed value of
 * each time field, next/previous allowed month, and the 28 day masks.
 */
import { dayMaskTable } from "./days.ts";
import type { DayMatch } from "../types.ts";
import type { CronFields } from "./parse.ts";

/** Lookup tables of one schedule; `-1` means "none in this direction". */
export interface CompiledCron {
  /** `nextX[v]`: smallest allowed value >= v (index max+1 holds -1). */
  readonly nextSecond: Int8Array;
  readonly nextMinute: Int8Array;
  readonly nextHour: Int8Array;
  /** `prevX[v]`: largest allowed value <= v. */
  readonly prevSecond: Int8Array;
  readonly prevMinute: Int8Array;
  readonly prevHour: Int8Array;
  readonly firstMinute: number;
  readonly firstSecond: number;
  readonly lastMinute: number;
  readonly lastSecond: number;
  /** Seconds of day of the first and last allowed time. */
  readonly firstTime: number;
  readonly lastTime: number;
  /** `nextMonth[m]` / `prevMonth[m]` for m in 1..12. */
  readonly nextMonth: Int8Array;
  readonly prevMonth: Int8Array;
  readonly dayMasks: Int32Array;
  /** The hour field allows all 24 hours: a repeated hour fires twice (elapsed time). */
  readonly allHours: boolean;
}

function tables(set: Uint8Array): { next: Int8Array; prev: Int8Array } {
  const size = set.length;
  const next = new Int8Array(size + 1).fill(-1);
  const prev = new Int8Array(size).fill(-1);
  let last = -1;
  for (let v = 0; v < size; v++) {
    if (set[v] === 1) last = v;
    prev[v] = last;
  }
  let first = -1;
  for (let v = size - 1; v >= 0; v--) {
    if (set[v] === 1) first = v;
    next[v] = first;
  }
  return { next, prev };
}

function monthTables(bits: number): { next: Int8Array; prev: Int8Array } {
  const set = new Uint8Array(13);
  for (let m = 1; m <= 12; m++) set[m] = (bits >> m) & 1;
  return tables(set);
}

/**
 * Compiles parsed fields.
 *
 * @throws {SchedulerError} `invalid-cron` when the day fields can never fire in the months
 */
export function compileCron(fields: CronFields, dayMatch: DayMatch): CompiledCron {
  const dayMasks = dayMaskTable(fields.dom, fields.dow, fields.month, dayMatch, fields.texts);
  const s = tables(fields.second);
  const m = tables(fields.minute);
  const h = tables(fields.hour);
  const months = monthTables(fields.month);
  const firstSecond = s.next[0]!, firstMinute = m.next[0]!, firstHour = h.next[0]!;
  const lastSecond = s.prev[59]!, lastMinute = m.prev[59]!, lastHour = h.prev[23]!;
  return {
    nextSecond: s.next,
    nextMinute: m.next,
    nextHour: h.next,
    prevSecond: s.prev,
    prevMinute: m.prev,
    prevHour: h.prev,
    firstMinute,
    firstSecond,
    lastMinute,
    lastSecond,
    firstTime: firstHour * 3600 + firstMinute * 60 + firstSecond,
    lastTime: lastHour * 3600 + lastMinute * 60 + lastSecond,
    nextMonth: months.next,
    prevMonth: months.prev,
    dayMasks,
    allHours: fields.hour.every((v) => v === 1),
  };
}
