/**
 * Job specs: validated once with valibot and expanded into ONE resolved form that the
 * rest of the engine trusts (no optional fields, durations in milliseconds).
 */
import { quote, SchedulerError, sentence } from "../../core/errors.ts";
import { parseDuration } from "../../core/duration.ts";
import { schedule as toSchedule } from "../../core/mod.ts";
import type { Schedule, ScheduleSpec } from "../../core/types.ts";
import type { JobDef, OverlapPolicy } from "../../store/types.ts";
import { guardSchedule } from "./schedule_guard.ts";
import { runModifiers, scheduleModifiers } from "./modifiers.ts";
import type { JobModifiers } from "./modifiers.ts";
import { withModifiers } from "../../core/modifiers/modify.ts";
import { checkName, dataJobSchema, jobSchema, parseOrThrow, policySchema } from "./schema.ts";

export { JOB_NAME } from "./schema.ts";
import type { CatchUpMode, DataJobSpec, JobPolicy, JobSpec, RunContext, WebhookTarget } from "../types.ts";

/** What every resolved job has: every policy field filled in, durations in ms. */
interface JobBase {
  name: string;
  schedule: Schedule;
  timezone: string;
  description: string | undefined;
  timeoutMs: number;
  overlap: OverlapPolicy;
  /** `bufferAll`'s cap (default 100). */
  bufferLimit: number;
  /** Consecutive failed runs that pause the job; undefined: never. */
  pauseOnFailure: number | undefined;
  catchUp: { mode: CatchUpMode; windowMs: number; toleranceMs: number };
  /** `attempts` counts every attempt, the first included (1 = no retry). */
  retries: { attempts: number; backoffMs: number };
  enabled: boolean;
  /** The cap on finished history rows; undefined for none. */
  maxRows: number | undefined;
  payload: unknown;
  /** `jitter` in ms; 0 for none. */
  jitterMs: number;
  /** `maxRuns`; undefined for no limit. */
  maxRuns: number | undefined;
}

/** A code-defined job: its handler is the user's function. */
export interface CodeJob extends JobBase {
  source: "code";
  run: (ctx: RunContext) => unknown;
}

/** A data-defined job: its handler delivers `target` (attached by the registry); `def` is the stored row it came from. */
export interface DataJob extends JobBase {
  source: "data";
  run: (ctx: RunContext) => unknown;
  target: WebhookTarget;
  def: JobDef | undefined;
}

/** A job after validation. */
export type ResolvedJob = CodeJob | DataJob;

/** A data job before the registry attaches its delivery handler. */
export type DataJobResolved = Omit<DataJob, "run">;

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
export function resolveJob(name: string, spec: JobSpec, defaults: JobPolicy): CodeJob {
  checkName(name);
  const parsed = parseOrThrow(jobSchema, spec, `jobs.${name}`) as JobSpec;
  return expand(name, parsed, defaults, "code", parsed.run, undefined, undefined) as CodeJob;
}

/**
 * Validates a data-defined job (`target` instead of `run`; the schedule must be a
 * cron string or a `{ cron } | { every } | { at }` object, as it is stored as JSON).
 *
 * @throws {SchedulerError} as `resolveJob`.
 */
export function resolveDataJob(name: string, spec: DataJobSpec, defaults: JobPolicy, def?: JobDef): DataJobResolved {
  checkName(name);
  const parsed = parseOrThrow(dataJobSchema, spec, `jobs.${name}`) as DataJobSpec;
  if (isSchedule(parsed.schedule)) {
    throw new SchedulerError(
      "invalid-spec",
      `jobs.${name}.schedule: a data-defined job needs a cron string or a { cron }, { every } or { at } object`,
      {
        path: `jobs.${name}.schedule`,
      },
    );
  }
  // `run` is attached by the registry (`withRun`); until then it refuses to deliver.
  return expand(name, parsed, defaults, "data", unattached, parsed.target, def) as DataJobResolved;
}

const unattached = (): never => {
  throw new Error("edgecron: a data-defined job ran before its delivery was attached");
};

/**
 * `job` with its delivery attached as `run`, in place: the object keeps the one hidden
 * class every resolved job shares (a spread copy made a class of its own per job).
 */
export function withRun(job: DataJobResolved, run: (ctx: RunContext) => unknown): DataJob {
  const attached = job as DataJob;
  attached.run = run;
  return attached;
}

/** The JSON form of a data-defined job's spec, as stored by `define()`. */
export function dataSpecJson(job: Pick<JobBase, "schedule">, spec: DataJobSpec): Record<string, unknown> {
  return JSON.parse(JSON.stringify({ ...spec, schedule: job.schedule.toJSON() })) as Record<string, unknown>;
}

/**
 * The resolved job as ONE object literal with every field, code and data jobs alike
 * (`target` and `def` undefined for code jobs). A spread (`{ ...base, run }`) gave each
 * of 10 000 jobs a hidden class of its own once V8 optimised the copy (a map and a
 * 432-byte descriptor array per job: 5 MB at 10 000), and every read of a job field in the tick's
 * loops then missed V8's inline caches.
 */
function expand(
  name: string,
  spec: JobPolicy & JobModifiers & { schedule: unknown },
  defaults: JobPolicy,
  source: "code" | "data",
  run: (ctx: RunContext) => unknown,
  target: WebhookTarget | undefined,
  def: JobDef | undefined,
): JobBase & { source: "code" | "data"; run: unknown; target: unknown; def: unknown } {
  // One literal with `min` (not `{ ...at(f), min }`: V8 gives each such copy a map of its own).
  const at = (
    field: string,
    min?: number,
  ): { code: "invalid-spec"; field: string; path: string; min: number | undefined } => ({
    code: "invalid-spec",
    field: `jobs.${name}.${field}`,
    path: `jobs.${name}.${field}`,
    min,
  });
  const timezone = spec.timezone ?? defaults.timezone;
  const schedule = buildSchedule(name, spec.schedule, timezone, spec);
  const catchUp = { ...defaults.catchUp, ...spec.catchUp };
  const retries = spec.retries ?? defaults.retries;
  // Parsed in the order their errors have always come in: timeout, catch-up, retries, jitter.
  const timeoutMs = parseDuration(spec.timeout ?? defaults.timeout ?? "10m", at("timeout", 1));
  const windowMs = parseDuration(catchUp.window ?? "1h", at("catchUp.window", 1));
  const toleranceMs = parseDuration(catchUp.tolerance ?? "60s", at("catchUp.tolerance"));
  const backoffMs = parseDuration(retries?.backoff ?? "1s", at("retries.backoff"));
  const { jitterMs, maxRuns } = runModifiers(name, spec);
  return {
    name,
    schedule,
    timezone: schedule.timezone,
    description: spec.description ?? defaults.description,
    timeoutMs,
    overlap: spec.overlap ?? defaults.overlap ?? "skip",
    bufferLimit: spec.bufferLimit ?? defaults.bufferLimit ?? 100,
    pauseOnFailure: spec.pauseOnFailure ?? defaults.pauseOnFailure,
    catchUp: {
      mode: catchUp.mode ?? "latest",
      windowMs,
      toleranceMs,
    },
    retries: {
      attempts: retries?.attempts ?? 1,
      backoffMs,
    },
    enabled: spec.enabled ?? defaults.enabled ?? true,
    maxRows: spec.maxRows ?? defaults.maxRows,
    payload: spec.payload !== undefined ? spec.payload : defaults.payload,
    jitterMs,
    maxRuns,
    source,
    run,
    target,
    def,
  };
}

const MODIFIER_PATH = /^(?:except(?:\[\d+\])?|startAt|endAt)$/;

/** A modifier error's message without its own code and path, which the job's path replaces. */
function innerMessage(e: unknown): string {
  if (!(e instanceof SchedulerError)) return e instanceof Error ? e.message : String(e);
  const prefix = `${e.code}: ${e.path ?? ""}: `;
  return e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
}

function withSpecModifiers(input: unknown, mods: ReturnType<typeof scheduleModifiers>): string | ScheduleSpec {
  if (typeof input !== "object" || input === null || Object.keys(mods).length === 0) {
    return input as string | ScheduleSpec;
  }
  return { ...(input as ScheduleSpec), ...mods } as ScheduleSpec;
}

function withJobModifiers(name: string, schedule: Schedule, mods: ReturnType<typeof scheduleModifiers>): Schedule {
  try {
    return withModifiers(schedule, mods, { hashKey: name });
  } catch (e) {
    const path = e instanceof SchedulerError && e.path !== undefined
      ? `jobs.${name}.${e.path}`
      : `jobs.${name}.schedule`;
    throw new SchedulerError("invalid-spec", `${path}: ${innerMessage(e)}`, { path, cause: e });
  }
}

function isSchedule(input: unknown): input is Schedule {
  const s = input as Partial<Schedule> | null;
  return typeof s === "object" && s !== null && typeof s.next === "function" && typeof s.between === "function";
}

/** Cron strings of digits, `*`, `/`, `,`, `-` and spaces: no names, no `H`, no `L`/`W`/`#`. */
const PLAIN_CRON = /^[\d*/,\- ]+$/;
/** Schedules built from plain cron strings, by zone and text; the oldest goes past this many. */
const SHARED_MAX = 4_096;
const shared = new Map<string, Schedule>();

/**
 * The job's zone applies to inputs that name none: a cron string and `{ cron }` /
 * `{ every }` objects without `timezone` (core `schedule()` rules).
 */
function buildSchedule(name: string, input: unknown, timezone: string | undefined, modifiers: JobModifiers): Schedule {
  const path = `jobs.${name}.schedule`;
  const mods = scheduleModifiers(modifiers);
  if (isSchedule(input)) {
    if (timezone !== undefined && timezone !== input.timezone) {
      throw new SchedulerError(
        "invalid-spec",
        `jobs.${name}.timezone: ${quote(timezone)} conflicts with the schedule's own zone ${quote(input.timezone)}`,
        { path: `jobs.${name}.timezone` },
      );
    }
    return withJobModifiers(name, guardSchedule(name, input), mods);
  }
  // A plain numeric cron string without modifiers is the same schedule whatever the job
  // (only `H` and the modifiers depend on the job's name), so jobs share one.
  const shareable = typeof input === "string" && PLAIN_CRON.test(input) && Object.keys(mods).length === 0;
  const key = shareable ? `${timezone ?? ""}\u0000${input}` : undefined;
  const known = key === undefined ? undefined : shared.get(key);
  if (known !== undefined) return known;
  try {
    const options = timezone === undefined ? { hashKey: name } : { timezone, hashKey: name };
    // A stored spec carries the modifiers in its own fields too; the job's options win.
    const built = toSchedule(withSpecModifiers(input, mods), { ...options, ...mods });
    if (key !== undefined) {
      if (shared.size >= SHARED_MAX) shared.delete(shared.keys().next().value!);
      shared.set(key, built);
    }
    return built;
  } catch (e) {
    const message = e instanceof SchedulerError ? sentenceOf(e) : e instanceof Error ? e.message : String(e);
    const zoneField = timezone !== undefined && e instanceof SchedulerError && e.code === "invalid-timezone" &&
      message.includes(JSON.stringify(timezone));
    const inner = e instanceof SchedulerError ? e.path : undefined;
    const modifierField = inner !== undefined && MODIFIER_PATH.test(inner);
    // A field of a `{ at }` / `{ every }` object is named as such: a bad `at` was reported at `schedule`.
    const specField = inner !== undefined && typeof input === "object" && input !== null && Object.hasOwn(input, inner);
    const where = zoneField
      ? `jobs.${name}.timezone`
      : modifierField
      ? `jobs.${name}.${inner}`
      : specField
      ? `${path}.${inner}`
      : path;
    // One code and one path: `invalid-spec: jobs.x.timezone: unknown time zone "…"`, not the core error's own again
    // (nor `every()`'s label of its argument, `interval: `, after `schedule.every`).
    const said = specField ? message.replace(/^interval: /, "") : message;
    throw new SchedulerError("invalid-spec", `${where}: ${said}`, { path: where, cause: e });
  }
}

/** A core error's sentence without its code and its own field label (`invalid-timezone: timezone: `). */
function sentenceOf(e: SchedulerError): string {
  let message = sentence(e);
  if (e.path !== undefined && message.startsWith(`${e.path}: `)) message = message.slice(e.path.length + 2);
  return message;
}
