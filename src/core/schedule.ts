/**
 * `schedule()`: one entry point for every way a schedule is written down, and the
 * inverse of `toJSON()` and `toString()`.
 */
import { at } from "./at.ts";
import { cron, zonePrefix } from "./cron/cron.ts";
import { quote, SchedulerError } from "./errors.ts";
import { every } from "./every.ts";
import type { EveryOptions } from "./every.ts";
import type { CronOptions } from "./cron/cron.ts";
import { hasModifiers, withModifiers } from "./modifiers/modify.ts";
import type { ModifierOptions } from "./modifiers/modify.ts";
import type { Schedule, ScheduleSpec } from "./types.ts";
import { checkOptionKeys } from "./suggest.ts";

/** Options of {@link schedule}. */
export interface ScheduleOptions extends ModifierOptions {
  /** Zone for inputs that name none (cron strings and specs without `timezone`); default `"UTC"`. */
  timezone?: string;
  /** The key `H` hashes (the job's name) for cron inputs that carry none; no default. */
  hashKey?: string;
  /** `"aws"` reads a cron string as EventBridge's 6 fields; default `"cron"`. `cron(...)` text is always AWS. */
  format?: "cron" | "aws";
}

const ISO_START = /^[+-]?\d{4,6}-\d{2}-\d{2}T/i;
const EVERY = /^@every\s+(\S+)(?:\s+from\s+(\S+))?$/i;
const AWS_WRAPPED = /^cron\((.*)\)$/s;

function isSchedule(input: object): input is Schedule {
  const s = input as Partial<Schedule>;
  return typeof s.next === "function" && typeof s.prev === "function" && typeof s.toJSON === "function";
}

function fromText(input: string, options: ScheduleOptions): Schedule {
  const prefixed = zonePrefix(input, options.timezone ?? "UTC");
  const text = prefixed.rest;
  const zone = prefixed.zone ?? options.timezone;
  const opts = { ...modifiers(options), ...(zone === undefined ? {} : { timezone: zone }) };
  if (/^@every(\s|$)/i.test(text)) {
    const m = EVERY.exec(text);
    if (m === null) {
      throw new SchedulerError("invalid-interval", `expected "@every <duration> [from <anchor>]", got ${quote(input)}`);
    }
    return every(m[1]!, everyOptions(opts, options.hashKey, m[2]));
  }
  if (ISO_START.test(text)) return withModifiers(at(text), opts, { hashKey: options.hashKey });
  const aws = AWS_WRAPPED.exec(text);
  return cron(aws === null ? text : aws[1]!, cronOptions(opts, options, aws === null ? options.format : "aws"));
}

/** The modifier options among `options`, the keys that are set only. */
function modifiers(options: ModifierOptions): ModifierOptions {
  const out: ModifierOptions = {};
  if (options.except !== undefined) out.except = options.except;
  if (options.startAt !== undefined) out.startAt = options.startAt;
  if (options.endAt !== undefined) out.endAt = options.endAt;
  return out;
}

function everyOptions(
  base: EveryOptions,
  hashKey: string | undefined,
  anchor: number | string | undefined,
): EveryOptions {
  const out: EveryOptions = { ...base };
  if (hashKey !== undefined) out.hashKey = hashKey;
  if (anchor !== undefined) out.anchor = anchor;
  return out;
}

function cronOptions(
  base: CronOptions,
  options: ScheduleOptions,
  format: "cron" | "aws" | undefined,
): CronOptions {
  const out: CronOptions = { ...base };
  if (options.hashKey !== undefined) out.hashKey = options.hashKey;
  if (format !== undefined) out.format = format;
  return out;
}

/** The fields each kind of `ScheduleSpec` takes (the job schema's strict shapes, for `schedule()` alone). */
const SPEC_KEYS: Record<string, readonly string[]> = {
  cron: ["cron", "timezone", "dayMatch", "hashKey", "format", "except", "startAt", "endAt"],
  every: ["every", "anchor", "timezone", "hashKey", "except", "startAt", "endAt"],
  at: ["at", "hashKey", "except", "startAt", "endAt"],
};

/**
 * Refuses a spec with two kinds or a field its kind does not take: `{ cron, tz }` ran in
 * UTC and `{ cron, every }` as the cron, without a word.
 */
function checkSpecKeys(spec: Record<string, unknown>): void {
  const kinds = Object.keys(SPEC_KEYS).filter((kind) => Object.hasOwn(spec, kind));
  if (kinds.length > 1) {
    throw new SchedulerError("invalid-spec", `schedule: one of "cron", "every" or "at", got ${kinds.join(" and ")}`, {
      path: "schedule",
    });
  }
  const allowed = SPEC_KEYS[kinds[0] ?? ""];
  const extra = allowed === undefined ? undefined : Object.keys(spec).find((key) => !allowed.includes(key));
  if (extra !== undefined) {
    throw new SchedulerError(
      "invalid-spec",
      `schedule.${extra}: unknown field of a { ${kinds[0]} } schedule (it takes ${allowed!.join(", ")})`,
      { path: `schedule.${extra}` },
    );
  }
}

/**
 * Turns any schedule input into a `Schedule`: a cron string (optionally prefixed with
 * `CRON_TZ=<zone> `; `cron(...)` around it means the AWS form), `"@every 15m [from
 * <anchor>]"`, an ISO instant, a `ScheduleSpec` (`{ cron, timezone?, dayMatch?,
 * hashKey?, format? }`, `{ every, anchor?, timezone? }`, `{ at }`), or a `Schedule`
 * (returned as is, or with the modifier options applied). `schedule(s.toJSON())` and
 * `schedule(s.toString(), { hashKey })` give back an equal schedule.
 *
 * Options: `timezone` (default `"UTC"`) for inputs that name no zone; `hashKey` (no
 * default) for cron inputs with `H`; `format` (default `"cron"`, or `"aws"`); the
 * modifiers `except`, `startAt`, `endAt` (see `cron()`; a spec's own win over these).
 *
 * @throws {SchedulerError} `invalid-spec` for an unrecognised shape, `invalid-timezone`
 *   for a `CRON_TZ=` or `TZ=` prefix with no zone, plus the codes of `cron()`, `every()` and `at()`
 * @example
 * ```ts
 * import { schedule } from "edgecron";
 *
 * schedule({ every: "15m" }).next(0); // 900000
 * schedule("CRON_TZ=Europe/Berlin 0 9 * * MON-FRI").timezone; // "Europe/Berlin"
 * schedule("0 9 * * 1-5", { except: "* * 24-26 12 *", endAt: "2027-06-30T00:00:00Z" }).next(0);
 * ```
 */
export function schedule(input: string | ScheduleSpec | Schedule, options: ScheduleOptions = {}): Schedule {
  checkOptionKeys(options, ["timezone", "hashKey", "format", "except", "startAt", "endAt"], "schedule");
  const { timezone } = options;
  if (typeof input === "string") return fromText(input, options);
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new SchedulerError(
      "invalid-spec",
      `schedule: expected a cron string, a spec or a Schedule, got ${quote(input)}`,
    );
  }
  // Its modifiers are applied as the engine applies a job's (they were dropped without a word).
  if (isSchedule(input)) return withModifiers(input, modifiers(options), { hashKey: options.hashKey });
  const spec = input as unknown as Record<string, unknown>;
  checkSpecKeys(spec);
  const zone = (spec.timezone ?? timezone) as string | undefined;
  // The spec's own modifiers win over the options' (a stored spec carries its own).
  const opts = {
    ...modifiers(options),
    ...modifiers(spec as ModifierOptions),
    ...(zone === undefined ? {} : { timezone: zone }),
  };
  if ("cron" in spec) {
    const dayMatch = spec.dayMatch as "or" | "and" | undefined;
    const keyed = spec.hashKey === undefined ? options : { ...options, hashKey: spec.hashKey as string };
    const out = cronOptions(opts, keyed, (spec.format ?? options.format) as "cron" | "aws" | undefined);
    if (dayMatch !== undefined) out.dayMatch = dayMatch;
    return cron(spec.cron as string, out);
  }
  if ("every" in spec) {
    const key = (spec.hashKey ?? options.hashKey) as string | undefined;
    return every(spec.every as string, everyOptions(opts, key, spec.anchor as number | string | undefined));
  }
  if ("at" in spec) {
    const once = at(spec.at as number);
    // The spec's own key: toJSON() writes it for an H exclusion, and it was not read back.
    const hashKey = (spec.hashKey ?? options.hashKey) as string | undefined;
    return hasModifiers(opts) ? withModifiers(once, opts, { hashKey }) : once;
  }
  throw new SchedulerError(
    "invalid-spec",
    `schedule: expected a "cron", "every" or "at" key, got ${quote(JSON.stringify(spec))}`,
  );
}
