/** Valibot schemas of job specs, and the conversion of a valibot issue to a `SchedulerError`. */
import * as v from "valibot";
import { quote, SchedulerError } from "../core/errors.ts";
import { tryParseDuration } from "../core/duration.ts";

/** Job names (and node ids): 1–128 characters of `[A-Za-z0-9._:-]`, so never a control character. */
export const JOB_NAME = /^[A-Za-z0-9._:-]{1,128}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const got = (issue: { input: unknown }): string => quote(typeof issue.input === "object" ? JSON.stringify(issue.input) : issue.input);

const duration = v.custom<string | number>(
  (input) => tryParseDuration(input) !== undefined,
  (issue) => `expected a duration like "30s", got ${got(issue)}`,
);

const text = (max: number) =>
  v.pipe(
    v.string((issue) => `expected a string, got ${got(issue)}`),
    v.maxLength(max, (issue) => `must be at most ${max} characters, got ${issue.input.length}`),
  );

const choice = <const T extends readonly string[]>(options: T) =>
  v.picklist(options, (issue) => `expected ${options.map((o) => `"${o}"`).join(" or ")}, got ${got(issue)}`);

const strict = <const E extends v.ObjectEntries>(entries: E) =>
  v.strictObject(entries, (issue) => {
    if (issue.expected === "never") return "unknown field";
    if (issue.expected.startsWith('"')) return "required field is missing";
    return `expected an object, got ${got(issue)}`;
  });

/** Policy fields shared by code- and data-defined jobs (and `SchedulerOptions.defaults`). */
export const policyEntries = {
  timezone: v.optional(v.pipe(text(64), v.minLength(1, () => "must not be empty"))),
  timeout: v.optional(duration),
  overlap: v.optional(choice(["skip", "allow"] as const)),
  catchUp: v.optional(strict({
    mode: v.optional(choice(["latest", "all", "none"] as const)),
    window: v.optional(duration),
    tolerance: v.optional(duration),
  })),
  retries: v.optional(strict({
    attempts: v.pipe(
      v.number((issue) => `expected a whole number 0-100, got ${got(issue)}`),
      v.integer((issue) => `expected a whole number 0-100, got ${got(issue)}`),
      v.minValue(0, (issue) => `expected a whole number 0-100, got ${got(issue)}`),
      v.maxValue(100, (issue) => `expected a whole number 0-100, got ${got(issue)}`),
    ),
    backoff: v.optional(duration),
  })),
  enabled: v.optional(v.boolean((issue) => `expected true or false, got ${got(issue)}`)),
  payload: v.optional(v.unknown()),
  description: v.optional(text(1000)),
};

const scheduleInput = v.custom<unknown>(
  (input) => typeof input === "string" || (typeof input === "object" && input !== null && !Array.isArray(input)),
  (issue) => `expected a cron string, { cron }, { every }, { at } or a Schedule, got ${got(issue)}`,
);

/** `SchedulerOptions.defaults`. */
export const policySchema = strict(policyEntries);

/** A code-defined job's spec. */
export const jobSchema = strict({
  ...policyEntries,
  schedule: scheduleInput,
  run: v.function_((issue) => `expected a function, got ${got(issue)}`),
});

const url = v.pipe(
  text(2048),
  v.check((input) => {
    try {
      const parsed = new URL(input);
      return parsed.protocol === "http:" || parsed.protocol === "https:";
    } catch {
      return false;
    }
  }, (issue) => `expected an http or https URL, got ${got(issue)}`),
);

/** A data-defined job's webhook target. */
export const targetSchema = strict({
  url,
  method: v.optional(choice(["GET", "POST", "PUT", "PATCH", "DELETE"] as const)),
  headers: v.optional(v.record(
    v.pipe(v.string(), v.regex(HEADER_NAME, (issue) => `invalid header name ${got(issue)}`)),
    v.pipe(text(4096), v.check((value) => !/[\r\n\0]/.test(value), () => "header values must not contain line breaks")),
    (issue) => `expected an object of header names to strings, got ${got(issue)}`,
  )),
  body: v.optional(text(65_536)),
});

/** A data-defined job's spec: no `run`, a `target`, and a JSON-only schedule. */
export const dataJobSchema = strict({
  ...policyEntries,
  schedule: scheduleInput,
  target: targetSchema,
});

/**
 * Throws `invalid-name` unless `name` is 1–128 characters of `[A-Za-z0-9._:-]`.
 *
 * @throws {SchedulerError} `invalid-name: job name must be 1-128 characters of A-Z a-z 0-9 . _ : -, got "a b"`
 */
export function checkName(name: unknown): string {
  if (typeof name !== "string" || !JOB_NAME.test(name)) {
    throw new SchedulerError(
      "invalid-name",
      `job name must be 1-128 characters of A-Z a-z 0-9 . _ : -, got ${quote(typeof name === "string" ? name : String(name))}`,
      { path: "name" },
    );
  }
  return name;
}

/**
 * Parses `input` with `schema` or throws `invalid-spec` naming the first issue's field,
 * prefixed with `prefix` (`jobs.nightly`).
 */
export function parseOrThrow<T extends v.GenericSchema>(schema: T, input: unknown, prefix: string): v.InferOutput<T> {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const dot = v.getDotPath(issue);
  const path = dot === null || dot === "" ? prefix : `${prefix}.${dot}`;
  throw new SchedulerError("invalid-spec", `${path}: ${issue.message}`, { path });
}
