/**
 * valibot schemas for every body, param and query the router accepts. Objects are
 * strict: an unknown field is a 400 naming it. Job bodies use the engine's ONE job
 * schema (extended with `name`) and its error conversion, so `POST /jobs` and
 * `scheduler.define()` refuse the same inputs with the same codes.
 */
import * as v from "valibot";
import { LONE_SURROGATE, LONE_SURROGATE_RULE, quote, SchedulerError, sentence } from "../core/errors.ts";
import { toWholeEpochMs } from "../core/instant.ts";
import { checkName, dataJobSchema, JOB_NAME, nameSchema, parseOrThrow } from "../engine/jobs/schema.ts";
import { HTTP_INSTANT } from "./_errors.ts";
import type { DataJobSpec } from "../engine/types.ts";

/** A job name in a URL: 1–128 characters of `[A-Za-z0-9._:-]`, not `.` or `..`. */
export const NameSchema = v.pipe(
  v.string(),
  v.check(
    (s) => JOB_NAME.test(s),
    (issue) => `expected 1-128 characters of A-Z a-z 0-9 . _ : -, not . or .., got ${quote(issue.input)}`,
  ),
);

/** Body of `POST /jobs`: the engine's data-job schema plus `name`. */
export const NamedDataJobSchema = v.strictObject({ name: nameSchema, ...dataJobSchema.entries }, dataJobSchema.message);

/** Body of `PUT /jobs/:name`: the engine's data-job schema. */
export const DataJobSchema = dataJobSchema;

/**
 * Parses a `POST /jobs` body: `invalid-name` for the name, then `invalid-spec` naming
 * the field, exactly as `scheduler.define(name, spec)` would.
 *
 * @throws {SchedulerError} `invalid-name` or `invalid-spec` (the router answers 400).
 */
export function parseNamedJob(input: unknown): { name: string; spec: DataJobSpec } {
  const name = typeof input === "object" && input !== null && !Array.isArray(input)
    ? (input as { name?: unknown }).name
    : undefined;
  // checkName() quotes what it got as text: a missing name read `got "undefined"`, `5` read `got "5"`.
  if (typeof name !== "string") {
    const why = name === undefined ? "required" : `expected a string, got ${JSON.stringify(name)}`;
    throw new SchedulerError("invalid-name", `name: ${why}`, { path: "name" });
  }
  checkName(name);
  const { name: _, ...spec } = parseOrThrow(NamedDataJobSchema, input, "");
  return { name: name as string, spec: spec as DataJobSpec };
}

/**
 * Parses a `PUT /jobs/:name` body as `scheduler.define()` would.
 *
 * @throws {SchedulerError} `invalid-spec` naming the field (the router answers 400).
 */
export function parseJob(input: unknown): DataJobSpec {
  return parseOrThrow(DataJobSchema, input, "") as DataJobSpec;
}

/** Body of `POST /jobs/:name/run`. */
export const RunBodySchema = v.strictObject({
  mode: v.optional(v.picklist(
    ["force", "due"],
    (issue) =>
      `expected "force" (run now, whatever the schedule; the default) or "due" (run the slot that is due, if one is), got ${
        quote(
          typeof issue.input === "string" || typeof issue.input === "number"
            ? issue.input
            : JSON.stringify(issue.input) ?? String(issue.input),
        )
      }`,
  )),
});

const Instant = v.union([
  v.pipe(v.string(), v.maxLength(40, `expected ${HTTP_INSTANT}`)),
  v.pipe(v.number(), v.integer("expected whole epoch milliseconds")),
], `expected ${HTTP_INSTANT}`);

/** Body of `POST /jobs/:name/backfill`: the range `[from, to)` and its options. */
export const BackfillBodySchema = v.strictObject({
  from: Instant,
  to: Instant,
  rerun: v.optional(v.boolean()),
  overlap: v.optional(v.picklist(["bufferAll", "bufferOne", "skip", "allow"])),
});

/** Body of `POST /jobs/:name/pause`: an optional note (shown with the job until it resumes). */
export const PauseBodySchema = v.strictObject({
  note: v.optional(v.pipe(
    v.string(),
    v.maxLength(500, "expected at most 500 characters"),
    v.check((s) => !/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(s), "must not contain control characters"),
    // libSQL stored one as U+FFFD: the pause answered 200 and the job then showed another note.
    v.check((s) => !LONE_SURROGATE.test(s), LONE_SURROGATE_RULE),
  )),
});

/** Body of bodiless actions (`resume`, `tick`): nothing or `{}`. */
export const EmptyBodySchema = v.strictObject({});

/** A whole number from a query string, 1 to `max`: a larger one is refused naming the maximum, never cut to it. */
export function queryInt(max: number): v.GenericSchema<string, number> {
  return v.pipe(
    v.string(),
    v.check(
      (s) => /^\d{1,16}$/.test(s) && +s >= 1 && +s <= max,
      (issue) => `expected a whole number from 1 to ${max}, got ${quote(issue.input)}`,
    ),
    v.transform(Number),
  );
}

/**
 * The instant of a query cursor as epoch ms, read as the backfill body's `from` and `to`
 * are (`toWholeEpochMs`): whole epoch milliseconds, negative ones too (`nextBefore` of a
 * history that reaches before 1970), or an ISO-8601 instant with `Z` or an offset; never
 * `Date.parse`'s guesses (`-5` as May 2001, `12/25`, an ISO time without offset in the server's zone).
 * For anything else, why: the rule and the text sent, an instant past what a Date holds
 * said as out of range.
 */
export function queryInstant(text: string): number | string {
  try {
    return toWholeEpochMs(/^-?\d{1,16}$/.test(text) ? Number(text) : text, { field: "before" }) + 0; // -0 is 0
  } catch (e) {
    const why = e instanceof SchedulerError ? sentence(e).slice("before: ".length) : "";
    return why.endsWith("(out of range)") ? why : `expected ${HTTP_INSTANT}, got ${quote(text)}`;
  }
}

const QueryInstant = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const ms = queryInstant(dataset.value);
    if (typeof ms === "number") return ms;
    addIssue({ message: ms });
    return NEVER;
  }),
);

/** Query of `GET /jobs/:name/runs`. */
export const RunsQuerySchema = v.strictObject({
  limit: v.optional(queryInt(100)),
  before: v.optional(QueryInstant),
});

/** Query of `GET /jobs` and `GET /jobs/:name`. */
export const NextQuerySchema = v.strictObject({ next: v.optional(queryInt(100)) });

/** Query of `PUT /jobs/:name` (optimistic concurrency). */
export const PutQuerySchema = v.strictObject({
  ifVersion: v.optional(v.pipe(
    v.string(),
    v.check((s) => /^\d{1,9}$/.test(s), (issue) => `expected a version number, got ${quote(issue.input)}`),
    v.transform(Number),
  )),
});

/** A query with no parameters. */
export const NoQuerySchema = v.strictObject({});
