/**
 * `schedule()`: one entry point for every way a schedule is written down, and the
 * inverse of `toJSON()` and `toString()`.
 */
import { at } from "./at.ts";
import { cron } from "./cron/schedule.ts";
import { quote, SchedulerError } from "./errors.ts";
import { every } from "./every.ts";
import type { Schedule, ScheduleSpec } from "./types.ts";

/** Options of {@link schedule}. */
export interface ScheduleOptions {
  /** Zone for inputs that name none (cron strings and specs without `timezone`); default `"UTC"`. */
  timezone?: string;
}

const ISO_START = /^[+-]?\d{4,6}-\d{2}-\d{2}T/i;
const TZ_PREFIX = /^(?:CRON_TZ|TZ)=(\S+)\s+/;
const EVERY = /^@every\s+(\S+)(?:\s+from\s+(\S+))?$/i;

function isSchedule(input: object): input is Schedule {
  const s = input as Partial<Schedule>;
  return typeof s.next === "function" && typeof s.prev === "function" && typeof s.toJSON === "function";
}

function fromText(input: string, timezone: string | undefined): Schedule {
  let text = input.trim();
  let zone = timezone;
  const prefix = TZ_PREFIX.exec(text);
  if (prefix !== null) {
    zone = prefix[1];
    text = text.slice(prefix[0].length);
  }
  const opts = zone === undefined ? {} : { timezone: zone };
  if (/^@every(\s|$)/i.test(text)) {
    const m = EVERY.exec(text);
    if (m === null) {
      throw new SchedulerError("invalid-interval", `expected "@every <duration> [from <anchor>]", got ${quote(input)}`);
    }
    return every(m[1]!, m[2] === undefined ? opts : { ...opts, anchor: m[2] });
  }
  if (ISO_START.test(text)) return at(text);
  return cron(text, opts);
}

/**
 * Turns any schedule input into a `Schedule`: a cron string (optionally prefixed with
 * `CRON_TZ=<zone> `), `"@every 15m [from <anchor>]"`, an ISO instant, a `ScheduleSpec`
 * (`{ cron, timezone?, dayMatch? }`, `{ every, anchor?, timezone? }`, `{ at }`), or a
 * `Schedule` (returned as is). `schedule(s.toJSON())` and `schedule(s.toString())` give
 * back an equal schedule.
 *
 * Options: `timezone` (default `"UTC"`) for inputs that name no zone.
 *
 * @throws {SchedulerError} `invalid-spec` for an unrecognised shape, plus the codes of
 *   `cron()`, `every()` and `at()`
 * @example schedule({ every: "15m" }).next(0) // 900000
 * @example schedule("CRON_TZ=Europe/Berlin 0 9 * * MON-FRI").timezone // "Europe/Berlin"
 */
export function schedule(input: string | ScheduleSpec | Schedule, options: ScheduleOptions = {}): Schedule {
  const { timezone } = options;
  if (typeof input === "string") return fromText(input, timezone);
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new SchedulerError("invalid-spec", `schedule: expected a cron string, a spec or a Schedule, got ${quote(input)}`);
  }
  if (isSchedule(input)) return input;
  const spec = input as Record<string, unknown>;
  const zone = (spec.timezone ?? timezone) as string | undefined;
  const opts = zone === undefined ? {} : { timezone: zone };
  if ("cron" in spec) {
    const dayMatch = spec.dayMatch as "or" | "and" | undefined;
    return cron(spec.cron as string, dayMatch === undefined ? opts : { ...opts, dayMatch });
  }
  if ("every" in spec) {
    const anchor = spec.anchor as number | string | undefined;
    return every(spec.every as string, anchor === undefined ? opts : { ...opts, anchor });
  }
  if ("at" in spec) return at(spec.at as number);
  throw new SchedulerError("invalid-spec", `schedule: expected a "cron", "every" or "at" key, got ${quote(JSON.stringify(spec))}`);
}
