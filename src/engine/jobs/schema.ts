/** Valibot schemas of job specs, and the conversion of a valibot issue to a `SchedulerError`. */
import * as v from "valibot";
import { quote, SchedulerError } from "../../core/errors.ts";
import { didYouMean, suggest } from "../../core/suggest.ts";
import { choice, duration, got, strict, text } from "./_valibot.ts";
import { HEADER_VALUE, MAX_TARGET_HEADERS, RESERVED_HEADER } from "../../webhook/deliver.ts";
import { modifierEntries, specModifierEntries } from "./modifiers.ts";

/**
 * Job names (and node ids): 1–128 characters of `[A-Za-z0-9._:-]`, so never a control
 * character, and never `.` or `..` (URL path normalisation would eat them).
 */
export const JOB_NAME = /^(?!\.\.?$)[A-Za-z0-9._:-]{1,128}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
/** C0 and C1 controls except tab and line feed, and DEL. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** The largest `target.body`, in characters. */
export const MAX_TARGET_BODY = 32_768;
/** How deeply a data job's `payload` may nest. */
export const MAX_JSON_DEPTH = 32;
/** The placeholder reads show instead of a header value; refused as a value so a read-modify-write cannot store it. */
export const REDACTED = "[redacted]";

/** True when `value` is plain JSON (objects, arrays, strings, finite numbers, booleans, null) at most `depth` deep. */
export function isJsonValue(value: unknown, depth: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || depth === 0) return false;
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth - 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value).every((item) => isJsonValue(item, depth - 1));
}

const ATTEMPTS_RULE = "expected a whole number 1-100 (every attempt, the first included: 1 = no retry)";

/** Policy fields shared by code- and data-defined jobs (and `SchedulerOptions.defaults`). */
export const policyEntries = {
  timezone: v.optional(v.pipe(text(64), v.minLength(1, () => "must not be empty"))),
  timeout: v.optional(duration),
  overlap: v.optional(choice(["skip", "allow", "bufferOne", "bufferAll", "cancelOther"] as const)),
  pauseOnFailure: v.optional(v.pipe(
    v.number((issue) => `expected a whole number 1-1000, got ${got(issue)}`),
    v.integer((issue) => `expected a whole number 1-1000, got ${got(issue)}`),
    v.minValue(1, (issue) => `expected a whole number 1-1000, got ${got(issue)}`),
    v.maxValue(1000, (issue) => `expected a whole number 1-1000, got ${got(issue)}`),
  )),
  bufferLimit: v.optional(v.pipe(
    v.number((issue) => `expected a whole number 1-10000, got ${got(issue)}`),
    v.integer((issue) => `expected a whole number 1-10000, got ${got(issue)}`),
    v.minValue(1, (issue) => `expected a whole number 1-10000, got ${got(issue)}`),
    v.maxValue(10_000, (issue) => `expected a whole number 1-10000, got ${got(issue)}`),
  )),
  catchUp: v.optional(strict({
    mode: v.optional(choice(["latest", "all", "none"] as const)),
    window: v.optional(duration),
    tolerance: v.optional(duration),
  })),
  retries: v.optional(strict({
    attempts: v.pipe(
      v.number((issue) => `${ATTEMPTS_RULE}, got ${got(issue)}`),
      v.integer((issue) => `${ATTEMPTS_RULE}, got ${got(issue)}`),
      v.minValue(1, (issue) => `${ATTEMPTS_RULE}, got ${got(issue)}`),
      v.maxValue(100, (issue) => `${ATTEMPTS_RULE}, got ${got(issue)}`),
    ),
    backoff: v.optional(duration),
  })),
  enabled: v.optional(v.boolean((issue) => `expected true or false, got ${got(issue)}`)),
  maxRows: v.optional(v.pipe(
    v.number((issue) => `expected a whole number 1-1000000000, got ${got(issue)}`),
    v.integer((issue) => `expected a whole number 1-1000000000, got ${got(issue)}`),
    v.minValue(1, (issue) => `expected a whole number 1-1000000000, got ${got(issue)}`),
    v.maxValue(1_000_000_000, (issue) => `expected a whole number 1-1000000000, got ${got(issue)}`),
  )),
  payload: v.optional(v.unknown()),
  description: v.optional(
    v.pipe(text(1000), v.check((s) => !CONTROL.test(s), () => "must not contain control characters")),
  ),
};

const scheduleText = v.pipe(text(256), v.minLength(1, () => "expected a cron expression"));
const zone = v.optional(v.pipe(text(64), v.minLength(1, () => "must not be empty")));
const scheduleShapes = {
  // hashKey and format come back in a stored H or AWS schedule's toJSON(): a second node
  // reading the definition must accept what the first wrote.
  cron: strict({
    cron: scheduleText,
    timezone: zone,
    dayMatch: v.optional(choice(["or", "and"] as const)),
    hashKey: v.optional(v.pipe(text(128), v.minLength(1, () => "expected the job's name"))),
    format: v.optional(choice(["cron", "aws"] as const)),
    ...specModifierEntries,
  }),
  every: strict({
    every: v.pipe(text(64), v.minLength(1, () => 'expected a duration like "15m"')),
    anchor: v.optional(
      v.union([v.pipe(v.number(), v.integer(anchorMessage)), text(64)], anchorMessage),
    ),
    timezone: zone,
    hashKey: v.optional(v.pipe(text(128), v.minLength(1, () => "expected the job's name"))),
    ...specModifierEntries,
  }),
  at: strict({
    at: v.union(
      [v.pipe(v.number(), v.integer(atMessage)), text(64)],
      atMessage,
    ),
    hashKey: v.optional(v.pipe(text(128), v.minLength(1, () => "expected the job's name"))),
    ...specModifierEntries,
  }),
};
// A slot is whole milliseconds: a fractional instant here failed every tick's claims at its first slot.
function anchorMessage(issue: v.BaseIssue<unknown>): string {
  return `expected an instant (whole ms) or "HH:MM", got ${got(issue)}`;
}
function atMessage(issue: v.BaseIssue<unknown>): string {
  return `expected whole epoch milliseconds or an ISO-8601 instant, got ${got(issue)}`;
}
const isScheduleObject = (input: object): boolean =>
  typeof (input as { next?: unknown }).next === "function" &&
  typeof (input as { between?: unknown }).between === "function";

/**
 * A schedule as JSON: a cron string, or a strict `{ cron }`, `{ every }` or `{ at }`
 * object (unknown fields refused). A code job may also pass a `Schedule` object.
 */
const scheduleInput = v.lazy((input: unknown) => {
  if (typeof input === "string") return scheduleText;
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    if (isScheduleObject(input)) return v.unknown();
    if ("cron" in input) return scheduleShapes.cron;
    if ("every" in input) return scheduleShapes.every;
    if ("at" in input) return scheduleShapes.at;
  }
  return v.custom<never>(
    () => false,
    (issue) => `expected a cron string, { cron }, { every }, { at } or a Schedule, got ${got(issue)}`,
  );
});

/** `SchedulerOptions.defaults`. */
export const policySchema = strict(policyEntries);

/** A code-defined job's spec. */
export const jobSchema = strict({
  ...policyEntries,
  ...modifierEntries,
  schedule: scheduleInput,
  run: v.function_((issue) => `expected a function, got ${got(issue)}`),
});

const parseUrl = (input: string): URL | undefined => {
  try {
    return new URL(input);
  } catch {
    return undefined;
  }
};

const url = v.pipe(
  text(2048),
  v.check((input) => {
    const parsed = parseUrl(input);
    return parsed !== undefined && (parsed.protocol === "http:" || parsed.protocol === "https:");
  }, (issue) => `expected an http or https URL, got ${got(issue)}`),
  v.check((input) => {
    const parsed = parseUrl(input) as URL;
    return parsed.username === "" && parsed.password === "";
  }, () => "credentials in the URL are refused; send them in target.headers"),
);

const headerNames = v.pipe(
  v.custom<Record<string, string>>((input) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return true; // the record reports it
    return Object.keys(input).length <= MAX_TARGET_HEADERS;
  }, () => `at most ${MAX_TARGET_HEADERS} headers`),
  // Parsed JSON has it as an own key, which a record drops without a word.
  v.check(
    (input) => typeof input !== "object" || input === null || !Object.hasOwn(input, "__proto__"),
    () => 'invalid header name "__proto__"',
  ),
);

/** A data-defined job's webhook target. */
export const targetSchema = v.pipe(
  strict({
    url,
    method: v.optional(choice(["GET", "POST", "PUT", "PATCH", "DELETE"] as const)),
    headers: v.optional(v.pipe(
      headerNames,
      v.record(
        v.pipe(
          v.string(),
          v.regex(HEADER_NAME, (issue) => `invalid header name ${got(issue)}`),
          v.check(
            (name) => !RESERVED_HEADER.test(name),
            (issue) => `header ${got(issue)} is set by edgecron and cannot be configured`,
          ),
        ),
        v.pipe(
          text(4096),
          v.check((value) => !/[\r\n]/.test(value), () => "header values must not contain line breaks"),
          v.check(
            (value) => HEADER_VALUE.test(value),
            () => "header values must be printable Latin-1 text (no control characters)",
          ),
          v.check((value) => value !== REDACTED, () => `${REDACTED} is what reads show; send the real value`),
        ),
        (issue) => `expected an object of header names to strings, got ${got(issue)}`,
      ),
    )),
    body: v.optional(text(MAX_TARGET_BODY)),
  }),
  // A GET sends no body, and the signature covers the body sent.
  v.forward(
    v.check((target) => target.method !== "GET" || target.body === undefined, () => "a GET request sends no body"),
    ["body"],
  ),
);

const jsonPayload = v.custom<unknown>(
  (input) => isJsonValue(input),
  () => `expected plain JSON nested at most ${MAX_JSON_DEPTH} deep`,
);

/** A data-defined job's spec: no `run`, a `target`, a JSON-only schedule and payload. */
export const dataJobSchema = strict({
  ...policyEntries,
  ...modifierEntries,
  payload: v.optional(jsonPayload),
  schedule: scheduleInput,
  target: targetSchema,
});

const NAME_RULE = "job name must be 1-128 characters of A-Z a-z 0-9 . _ : -, and not . or ..";

/**
 * Throws `invalid-name` unless `name` is 1–128 characters of `[A-Za-z0-9._:-]` other
 * than `.` and `..`.
 *
 * @throws {SchedulerError} `invalid-name: job name must be 1-128 characters of A-Z a-z 0-9 . _ : -, and not . or .., got "a b"`
 */
export function checkName(name: unknown): string {
  if (typeof name !== "string" || !JOB_NAME.test(name)) {
    throw new SchedulerError(
      "invalid-name",
      `${NAME_RULE}, got ${quote(typeof name === "string" ? name : String(name))}`,
      { path: "name" },
    );
  }
  return name;
}

/** The `name` field of an API body, with the same rule and message as `checkName`. */
export const nameSchema = v.pipe(
  v.string((issue) => `${NAME_RULE}, got ${got(issue)}`),
  v.regex(JOB_NAME, (issue) => `${NAME_RULE}, got ${got(issue)}`),
);

/**
 * Parses `input` with `schema` or throws `invalid-spec` naming the first issue's field,
 * prefixed with `prefix` (`jobs.nightly`).
 */
export function parseOrThrow<T extends v.GenericSchema>(schema: T, input: unknown, prefix: string): v.InferOutput<T> {
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  const issue = result.issues[0];
  const dot = v.getDotPath(issue);
  const path = dot === null || dot === "" ? prefix : prefix === "" ? dot : `${prefix}.${dot}`;
  const hint = issue.message === "unknown field" ? didYouMean(fieldSuggestions(dot?.split(".").at(-1) ?? "")) : "";
  throw new SchedulerError(
    dot === "name" ? "invalid-name" : "invalid-spec",
    `${path === "" ? "body" : path}: ${issue.message}${hint}`,
    { path },
  );
}

/** Every field name a job spec has, at any depth: what a misspelt one is compared with. */
const FIELD_NAMES = [
  "name",
  "schedule",
  "timezone",
  "timeout",
  "overlap",
  "catchUp",
  "retries",
  "enabled",
  "payload",
  "description",
  "target",
  "mode",
  "window",
  "tolerance",
  "attempts",
  "backoff",
  "cron",
  "every",
  "anchor",
  "at",
  "dayMatch",
  "hashKey",
  "format",
  "url",
  "method",
  "headers",
  "body",
  "run",
];
/** Names other schedulers (or habit) use for ours. */
const ALIASES: Readonly<Record<string, string>> = {
  tz: "timezone",
  zone: "timezone",
  time_zone: "timezone",
  timeZone: "timezone",
  catch_up: "catchUp",
  catchup: "catchUp",
  retry: "retries",
  maxAttempts: "attempts",
  maximumAttempts: "attempts",
  data: "payload",
  webhook: "target",
  verb: "method",
  handler: "run",
  expression: "schedule",
};

/** The field names an unknown field probably meant. */
export function fieldSuggestions(field: string): string[] {
  const alias = Object.hasOwn(ALIASES, field) ? ALIASES[field] : undefined;
  // Short names are close to many others: one edit for them, a third of the length otherwise.
  return alias !== undefined ? [alias] : suggest(field, FIELD_NAMES, 1, Math.max(1, Math.floor(field.length / 3)));
}
