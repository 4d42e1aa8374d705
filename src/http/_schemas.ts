/**
 * valibot schemas for every body, param and query the router accepts. Objects are
 * strict: an unknown field is a 400 naming it. Deep checks that need the core (cron
 * syntax, zones) are left to `scheduler.define()`, whose `SchedulerError` carries a path.
 */
import * as v from "valibot";
import { tryParseDuration } from "../core/duration.ts";
import { quote } from "../core/errors.ts";
import { JOB_NAME } from "../engine/spec.ts";

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const RESERVED_HEADERS = /^(?:edgecron-.*|host|content-length|transfer-encoding|connection)$/i;

/** A job name: 1–128 characters of `[A-Za-z0-9._:-]` (so never a control character). */
export const NameSchema = v.pipe(
  v.string(),
  v.check((s) => JOB_NAME.test(s), (issue) => `expected 1-128 characters of A-Z a-z 0-9 . _ : -, got ${quote(issue.input)}`),
);

const Duration = v.pipe(
  v.union([v.string(), v.number()], "expected a duration like \"30s\" or a number of milliseconds"),
  v.check((d) => tryParseDuration(d) !== undefined, (issue) => `expected a duration like "30s", got ${quote(issue.input)}`),
);

const Zone = v.pipe(v.string(), v.minLength(1, "expected an IANA zone like \"Europe/Paris\""), v.maxLength(64));

const Instant = v.pipe(
  v.union([v.number(), v.string()], "expected epoch milliseconds or an ISO-8601 instant"),
  v.transform((x) => (typeof x === "number" ? x : Date.parse(x))),
  v.check((ms) => Number.isSafeInteger(ms), "expected epoch milliseconds or an ISO-8601 instant"),
);

const CronSpec = v.strictObject({
  cron: v.pipe(v.string(), v.minLength(1, "expected a cron expression"), v.maxLength(256)),
  timezone: v.optional(Zone),
  dayMatch: v.optional(v.picklist(["or", "and"])),
});
const EverySpec = v.strictObject({
  every: v.pipe(v.string(), v.minLength(1, "expected a duration like \"15m\""), v.maxLength(64)),
  anchor: v.optional(v.union([v.number(), v.pipe(v.string(), v.maxLength(64))], "expected an instant (ms) or \"HH:MM\"")),
  timezone: v.optional(Zone),
});
const AtSpec = v.strictObject({ at: Instant });

const Schedule = v.lazy((input: unknown) => {
  if (typeof input === "string") return v.pipe(v.string(), v.minLength(1, "expected a cron expression"), v.maxLength(256));
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    if ("cron" in input) return CronSpec;
    if ("every" in input) return EverySpec;
    if ("at" in input) return AtSpec;
  }
  return v.custom<never>(() => false, "expected a cron string or an object with \"cron\", \"every\" or \"at\"");
});

const Target = v.strictObject({
  url: v.pipe(
    v.string(),
    v.maxLength(2048),
    v.check((s) => /^https?:\/\//i.test(s) && URL.canParse(s), (issue) => `expected an absolute http(s) URL, got ${quote(issue.input)}`),
  ),
  method: v.optional(v.picklist(["GET", "POST", "PUT", "PATCH", "DELETE"])),
  headers: v.optional(v.pipe(
    v.record(
      v.pipe(
        v.string(),
        v.check((k) => HEADER_NAME.test(k), (issue) => `invalid header name ${quote(issue.input)}`),
        v.check((k) => !RESERVED_HEADERS.test(k), (issue) => `header ${quote(issue.input)} is set by edgecron and cannot be configured`),
      ),
      v.pipe(v.string(), v.maxLength(4096), v.check((s) => !/[\r\n\0]/.test(s), "header values cannot contain CR, LF or NUL")),
    ),
    v.check((h) => Object.keys(h).length <= 50, "at most 50 headers"),
  )),
  body: v.optional(v.pipe(v.string(), v.maxLength(32_768))),
});

const PolicyEntries = {
  timezone: v.optional(Zone),
  timeout: v.optional(Duration),
  overlap: v.optional(v.picklist(["skip", "allow"])),
  catchUp: v.optional(v.strictObject({
    mode: v.optional(v.picklist(["latest", "all", "none"])),
    window: v.optional(Duration),
    tolerance: v.optional(Duration),
  })),
  retries: v.optional(v.strictObject({
    attempts: v.pipe(v.number(), v.integer("expected a whole number"), v.minValue(0), v.maxValue(100)),
    backoff: v.optional(Duration),
  })),
  enabled: v.optional(v.boolean()),
  payload: v.optional(v.unknown()),
  description: v.optional(v.pipe(v.string(), v.maxLength(1000))),
};

/** Body of `PUT /jobs/:name`: a data-defined job spec. */
export const DataJobSchema = v.strictObject({ schedule: Schedule, target: Target, ...PolicyEntries });

/** Body of `POST /jobs`: a spec plus its `name`. */
export const NamedDataJobSchema = v.strictObject({ name: NameSchema, schedule: Schedule, target: Target, ...PolicyEntries });

/** Body of `POST /jobs/:name/run`. */
export const RunBodySchema = v.strictObject({ mode: v.optional(v.picklist(["force", "due"])) });

/** Body of bodiless actions (`pause`, `resume`, `tick`): nothing or `{}`. */
export const EmptyBodySchema = v.strictObject({});

const PositiveInt = (max: number) =>
  v.pipe(
    v.string(),
    v.check((s) => /^\d{1,16}$/.test(s), (issue) => `expected a whole number, got ${quote(issue.input)}`),
    v.transform(Number),
    v.minValue(1, `expected 1 to ${max}`),
    v.maxValue(max, `expected 1 to ${max}`),
  );

/** Query of `GET /jobs/:name/runs`. */
export const RunsQuerySchema = v.strictObject({
  limit: v.optional(PositiveInt(100)),
  before: v.optional(v.pipe(
    v.string(),
    v.transform((s) => (/^\d{1,16}$/.test(s) ? Number(s) : Date.parse(s))),
    v.check((ms) => Number.isSafeInteger(ms), "expected epoch milliseconds or an ISO-8601 instant"),
  )),
});

/** Query of `GET /jobs` and `GET /jobs/:name`. */
export const NextQuerySchema = v.strictObject({ next: v.optional(PositiveInt(100)) });

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
