/**
 * Job specs: validated once with valibot and expanded into ONE resolved form that the
 * rest of the engine trusts (no optional fields, durations in milliseconds).
 */
import { quote, SchedulerError } from "../../core/errors.ts";
import { parseDuration } from "../../core/duration.ts";
import { schedule as toSchedule } from "../../core/mod.ts";
import type { Schedule, ScheduleSpec } from "../../core/types.ts";
import type { JobDef } from "../../store/types.ts";
import { guardSchedule } from "./schedule_guard.ts";
import { checkName, dataJobSchema, jobSchema, parseOrThrow, policySchema } from "./schema.ts";

export { JOB_NAME } from "./schema.ts";
import type { CatchUpMode, DataJobSpec, JobPolicy, JobSpec, RunContext, WebhookTarget } from "../types.ts";

/** A job after validation: every policy field filled in, durations in ms. */
export interface ResolvedJob {
  name: string;
  source: "code" | "data";
  schedule: Schedule;
  timezone: string;
  description: string | undefined;
  timeoutMs: number;
  overlap: "skip" | "allow";
  catchUp: { mode: CatchUpMode; windowMs: number; toleranceMs: number };
  /** `attempts` counts every attempt, the first included (1 = no retry). */
  retries: { attempts: number; backoffMs: number };
  enabled: boolean;
  payload: unknown;
  /** Code jobs: the handler. Data jobs: undefined (the scheduler delivers `target`). */
  run: ((ctx: RunContext) => unknown) | undefined;
  target: WebhookTarget | undefined;
  def: JobDef | undefined;
}

/**
 * Validates `SchedulerOptions.defaults`; fields are named `defaults.<field>`.
 *
 * @throws {SchedulerError} `invalid-spec` naming the field path.
 */
export function resolveDefaults(defaults: JobPolicy | undefined): JobPolicy {
  if (defaults === undefined) return {};
  return parseOrThrow(policySchema, defaults, "defaults") as JobPolicy;
}

/**
 * Validates a code-defined job and resolves it, `defaults` filling unset fields
 * (`catchUp` merged field by field).
 *
 * @throws {SchedulerError} `invalid-name` for the name; `invalid-spec` with `path`
 * (`jobs.nightly.timeout: expected a duration like "30s", got "soon"`) for the spec.
 * @example resolveJob("nightly", { schedule: "0 3 * * *", run: () => {} }, {})
 */
export function resolveJob(name: string, spec: JobSpec, defaults: JobPolicy): ResolvedJob {
  checkName(name);
  const parsed = parseOrThrow(jobSchema, spec, `jobs.${name}`) as JobSpec;
  return expand(name, "code", parsed, defaults, { run: parsed.run, target: undefined, def: undefined });
}

/**
 * Validates a data-defined job (`target` instead of `run`; the schedule must be a
 * cron string or a `{ cron } | { every } | { at }` object, as it is stored as JSON).
 *
 * @throws {SchedulerError} as `resolveJob`.
 */
export function resolveDataJob(name: string, spec: DataJobSpec, defaults: JobPolicy, def?: JobDef): ResolvedJob {
  checkName(name);
  const parsed = parseOrThrow(dataJobSchema, spec, `jobs.${name}`) as DataJobSpec;
  if (isSchedule(parsed.schedule)) {
    throw new SchedulerError("invalid-spec", `jobs.${name}.schedule: a data-defined job needs a cron string or a { cron }, { every } or { at } object`, {
      path: `jobs.${name}.schedule`,
    });
  }
  return expand(name, "data", parsed, defaults, { run: undefined, target: parsed.target, def });
}

/** The JSON form of a data-defined job's spec, as stored by `define()`. */
export function dataSpecJson(job: ResolvedJob, spec: DataJobSpec): Record<string, unknown> {
  return JSON.parse(JSON.stringify({ ...spec, schedule: job.schedule.toJSON() })) as Record<string, unknown>;
}

function expand(
  name: string,
  source: "code" | "data",
  spec: JobPolicy & { schedule: unknown },
  defaults: JobPolicy,
  extra: Pick<ResolvedJob, "run" | "target" | "def">,
): ResolvedJob {
  const at = (field: string): { code: string; field: string; path: string } => ({
    code: "invalid-spec",
    field: `jobs.${name}.${field}`,
    path: `jobs.${name}.${field}`,
  });
  const timezone = spec.timezone ?? defaults.timezone;
  const schedule = buildSchedule(name, spec.schedule, timezone);
  const catchUp = { ...defaults.catchUp, ...spec.catchUp };
  const retries = spec.retries ?? defaults.retries;
  return {
    name,
    source,
    schedule,
    timezone: schedule.timezone,
    description: spec.description ?? defaults.description,
    timeoutMs: parseDuration(spec.timeout ?? defaults.timeout ?? "10m", { ...at("timeout"), min: 1 }),
    overlap: spec.overlap ?? defaults.overlap ?? "skip",
    catchUp: {
      mode: catchUp.mode ?? "latest",
      windowMs: parseDuration(catchUp.window ?? "1h", { ...at("catchUp.window"), min: 1 }),
      toleranceMs: parseDuration(catchUp.tolerance ?? "60s", at("catchUp.tolerance")),
    },
    retries: {
      attempts: retries?.attempts ?? 1,
      backoffMs: parseDuration(retries?.backoff ?? "1s", at("retries.backoff")),
    },
    enabled: spec.enabled ?? defaults.enabled ?? true,
    payload: spec.payload !== undefined ? spec.payload : defaults.payload,
    ...extra,
  };
}

function isSchedule(input: unknown): input is Schedule {
  const s = input as Partial<Schedule> | null;
  return typeof s === "object" && s !== null && typeof s.next === "function" && typeof s.between === "function";
}

/**
 * The job's zone applies to inputs that name none: a cron string and `{ cron }` /
 * `{ every }` objects without `timezone` (core `schedule()` rules).
 */
function buildSchedule(name: string, input: unknown, timezone: string | undefined): Schedule {
  const path = `jobs.${name}.schedule`;
  if (isSchedule(input)) {
    if (timezone !== undefined && timezone !== input.timezone) {
      throw new SchedulerError(
        "invalid-spec",
        `jobs.${name}.timezone: ${quote(timezone)} conflicts with the schedule's own zone ${quote(input.timezone)}`,
        { path: `jobs.${name}.timezone` },
      );
    }
    return guardSchedule(name, input);
  }
  try {
    return toSchedule(input as string | ScheduleSpec, timezone === undefined ? { hashKey: name } : { timezone, hashKey: name });
  } catch (e) {
    const message = e instanceof SchedulerError ? sentenceOf(e) : e instanceof Error ? e.message : String(e);
    const zoneField = timezone !== undefined && e instanceof SchedulerError && e.code === "invalid-timezone" &&
      message.includes(JSON.stringify(timezone));
    const where = zoneField ? `jobs.${name}.timezone` : path;
    // One code and one path: `invalid-spec: jobs.x.timezone: unknown time zone "…"`, not the core error's own again.
    throw new SchedulerError("invalid-spec", `${where}: ${message}`, { path: where, cause: e });
  }
}

/** A core error's sentence without its code and its own field label (`invalid-timezone: timezone: `). */
function sentenceOf(e: SchedulerError): string {
  let message = e.message.startsWith(`${e.code}: `) ? e.message.slice(e.code.length + 2) : e.message;
  if (e.path !== undefined && message.startsWith(`${e.path}: `)) message = message.slice(e.path.length + 2);
  return message;
}
