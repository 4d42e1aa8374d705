/**
 * Exclusions (`except`): cron expressions and `YYYY-MM-DD` local dates matched against a
 * wall time (seconds since 1970-01-01T00:00 local). Each one also knows where the run of
 * wall times it matches ends (or begins), so skipping an excluded stretch costs a few
 * whole-field steps, never a walk through its minutes.
 */
import { DAY_SECONDS, daysFromCivil, daysInMonth } from "../civil.ts";
import { compileCron } from "../cron/compile.ts";
import type { CompiledCron } from "../cron/compile.ts";
import { parseCron, ZONE_PREFIX } from "../cron/parse.ts";
import { quote, SchedulerError } from "../errors.ts";
import { ALL30, bit60, dayMatches, firstOff, lastOff, nextOtherDay, prevOtherDay } from "./runs.ts";

/** The time-of-day sets of a schedule, as the compiled cron holds them. */
export interface TimeSets {
  readonly hours: number;
  readonly minuteLo: number;
  readonly minuteHi: number;
  readonly secondLo: number;
  readonly secondHi: number;
}

/** One exclusion, compiled. */
export interface Exclusion {
  /** The text as given (a cron expression or a date). */
  readonly text: string;
  /** Whether the wall second `wall` is excluded. */
  matches(wall: number): boolean;
  /**
   * The first wall second >= `wall` this exclusion does not cover, `wall` if none. Covered
   * means: no slot of the schedule there would fire unexcluded at its own wall time (a
   * whole day when the exclusion holds every time of day the schedule fires at); with
   * `strict`, only the wall seconds the exclusion itself matches.
   */
  runEnd(wall: number, strict?: boolean): number;
  /** The last wall second <= `wall` this exclusion does not cover, `wall` if none. */
  runStart(wall: number, strict?: boolean): number;
  /** The last year the exclusion names (a year field or a date), if it names one. */
  readonly lastYear?: number | undefined;
}

const ALL_HOURS = 0xffffff;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Compiles one exclusion. A 5-field expression names no second, so it excludes every
 * second of the minutes it matches (a `*\/10 * * * * *` schedule loses all six slots of
 * an excluded minute). `main` is the schedule's own time of day, when it has one: an
 * exclusion whose time sets hold all of it removes whole days of slots, and skips by days.
 *
 * @throws {SchedulerError} `invalid-spec` naming `except[i]` and quoting the text
 */
export function compileExclusion(
  text: unknown,
  index: number,
  hashKey: string | undefined,
  main: TimeSets | undefined,
): Exclusion {
  const path = `except[${index}]`;
  if (typeof text !== "string") {
    throw new SchedulerError(
      "invalid-spec",
      `${path}: expected a cron expression or a YYYY-MM-DD date, got ${quote(text)}`,
      { path },
    );
  }
  // It was read as the second field: "second step must be a number 1-60, got \"CRON_TZ=...\"".
  if (ZONE_PREFIX.test(text.trim())) {
    throw new SchedulerError(
      "invalid-spec",
      `${path}: an exclusion is read in the schedule's zone and takes no zone prefix, got ${quote(text)}`,
      { path },
    );
  }
  const date = DATE.exec(text.trim());
  if (date !== null) return dateExclusion(text, path, Number(date[1]), Number(date[2]), Number(date[3]));
  let c: CompiledCron;
  try {
    const fields = parseCron(text, { hashKey });
    c = compileCron(fields, fields.plusAnd ? "and" : "or");
    // No second field: any second of a matching minute.
    if (fieldCount(fields.normalized) < 6) c = { ...c, secondLo: ALL30, secondHi: ALL30 };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new SchedulerError("invalid-spec", `${path}: ${message}`, { path, cause: e });
  }
  return cronExclusion(text, c, main);
}

function fieldCount(normalized: string): number {
  return normalized.startsWith("@") ? 5 : normalized.split(" ").length;
}

function dateExclusion(text: string, path: string, y: number, m: number, d: number): Exclusion & { day: number } {
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) {
    throw new SchedulerError("invalid-spec", `${path}: ${quote(text)} is not a calendar date`, { path });
  }
  const day = daysFromCivil(y, m, d);
  return { ...datesExclusion(text, new Set([day])), day, lastYear: y };
}

/** Whether `x` is a date exclusion (`YYYY-MM-DD`), and its day number. */
export function dayOf(x: Exclusion): number | undefined {
  return (x as Partial<{ day: number }>).day;
}

/**
 * One exclusion for a set of local days (day numbers): a holiday list of any length
 * costs one lookup per step, and consecutive days are skipped together.
 */
export function datesExclusion(text: string, days: ReadonlySet<number>): Exclusion {
  const has = (wall: number): boolean => days.has(Math.floor(wall / DAY_SECONDS));
  return {
    text,
    matches: has,
    runEnd(wall) {
      let day = Math.floor(wall / DAY_SECONDS);
      if (!days.has(day)) return wall;
      while (days.has(day)) day++;
      return day * DAY_SECONDS;
    },
    runStart(wall) {
      let day = Math.floor(wall / DAY_SECONDS);
      if (!days.has(day)) return wall;
      while (days.has(day)) day--;
      return (day + 1) * DAY_SECONDS - 1;
    },
  };
}

function cronExclusion(text: string, c: CompiledCron, main: TimeSets | undefined): Exclusion {
  const full = c.hours === ALL_HOURS && c.minuteLo === ALL30 && c.minuteHi === ALL30 && c.secondLo === ALL30 &&
    c.secondHi === ALL30;
  // Every time of day the schedule fires at is excluded on this exclusion's days.
  const wholeDays = full || (main !== undefined && (main.hours & ~c.hours) === 0 &&
    (main.minuteLo & ~c.minuteLo) === 0 && (main.minuteHi & ~c.minuteHi) === 0 &&
    (main.secondLo & ~c.secondLo) === 0 && (main.secondHi & ~c.secondHi) === 0);
  const time = (sod: number): boolean => {
    const h = Math.floor(sod / 3600), mi = Math.floor((sod % 3600) / 60), s = sod % 60;
    return ((c.hours >>> h) & 1) === 1 && bit60(c.minuteLo, c.minuteHi, mi) && bit60(c.secondLo, c.secondHi, s);
  };
  return {
    text,
    lastYear: c.years === null ? undefined : c.years[c.years.length - 1],
    matches(wall) {
      const day = Math.floor(wall / DAY_SECONDS);
      return dayMatches(c, day) && time(wall - day * DAY_SECONDS);
    },
    runEnd(wall, strict) {
      const day = Math.floor(wall / DAY_SECONDS);
      const sod = wall - day * DAY_SECONDS;
      const days = strict === true ? full : wholeDays;
      if (!dayMatches(c, day) || (!days && !time(sod))) return wall;
      if (days) return nextOtherDay(c, day + 1) * DAY_SECONDS;
      const t = firstOff(c, sod);
      if (t < DAY_SECONDS) return day * DAY_SECONDS + t;
      // The rest of the day is excluded: the next day may go on from its midnight.
      return (day + 1) * DAY_SECONDS + (dayMatches(c, day + 1) ? firstOff(c, 0) : 0);
    },
    runStart(wall, strict) {
      const day = Math.floor(wall / DAY_SECONDS);
      const sod = wall - day * DAY_SECONDS;
      const days = strict === true ? full : wholeDays;
      if (!dayMatches(c, day) || (!days && !time(sod))) return wall;
      if (days) return prevOtherDay(c, day - 1) * DAY_SECONDS + DAY_SECONDS - 1;
      const t = lastOff(c, sod);
      if (t >= 0) return day * DAY_SECONDS + t;
      return day * DAY_SECONDS - 1 - (dayMatches(c, day - 1) ? DAY_SECONDS - 1 - lastOff(c, DAY_SECONDS - 1) : 0);
    },
  };
}
