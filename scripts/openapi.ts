/**
 * Generates `src/http/openapi/document.ts`, the OpenAPI 3.1 document served at
 * `GET /openapi.json`, from the same valibot schemas that validate the requests
 * (`src/http/_schemas.ts`, `src/http/_paging.ts`). Run `npm run openapi` after changing
 * a schema or a route; `test/http/openapi_test.ts` fails while the file is stale.
 *
 * Generated at build time, not in the router: the converter stays out of the edge
 * bundles (the Workers budget is 100 KB gzipped) and out of the runtime dependencies.
 */
import { writeFileSync } from "node:fs";
import process from "node:process";
import { type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { JobsQuerySchema } from "../src/http/_paging.ts";
import {
  BackfillBodySchema,
  DataJobSchema,
  EmptyBodySchema,
  NamedDataJobSchema,
  NextQuerySchema,
  PauseBodySchema,
  PutQuerySchema,
  RunBodySchema,
  RunsQuerySchema,
} from "../src/http/_schemas.ts";
import { RESPONSE_SCHEMAS } from "./openapi_responses.ts";

type Schema = v.GenericSchema;
type Json = Record<string, unknown>;

/** Converts a request schema; a `lazy` (the schedule) becomes the `oneOf` of what it can return. */
function convert(schema: Schema): JsonSchema {
  return toJsonSchema(schema, {
    target: "draft-2020-12",
    typeMode: "input",
    errorMode: "ignore",
    overrideSchema(context) {
      const s = context.valibotSchema as unknown as { type: string; getter?: (input: unknown) => Schema };
      if (s.type !== "lazy" || s.getter === undefined) return undefined;
      const getter = s.getter;
      return { oneOf: ["0 * * * *", { cron: "" }, { every: "" }, { at: 0 }].map((sample) => convert(getter(sample))) };
    },
  });
}

/** Drops what the converter adds that an OpenAPI component does not need (`$schema`, empty `$defs`). */
function strip(schema: JsonSchema): Json {
  const clean = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(clean);
    if (typeof value !== "object" || value === null) return value;
    const out: Json = {};
    for (const [k, inner] of Object.entries(value)) {
      if (k === "$schema" || k === "$defs") continue;
      if (k === "required" && Array.isArray(inner) && inner.length === 0) continue;
      out[k] = clean(inner);
    }
    return out;
  };
  return clean(schema) as Json;
}

/**
 * What a query parameter takes, in the words of the schema's own refusal of an empty
 * value (`"a whole number from 1 to 100"`): a query is a string, so its range or form
 * is checked in code the converter cannot read.
 */
function ruleOf(schema: Schema): string | undefined {
  const result = v.safeParse(schema, "");
  return result.success ? undefined : /^expected (.*?), got /.exec(result.issues[0].message)?.[1];
}

function queryParameters(schema: Schema): Json[] {
  const json = strip(convert(schema)) as { properties?: Record<string, Json>; required?: string[] };
  const entries = (schema as unknown as { entries: Record<string, Schema> }).entries;
  return Object.entries(json.properties ?? {}).map(([name, s]) => {
    const rule = ruleOf(entries[name]!);
    return {
      name,
      in: "query",
      required: json.required?.includes(name) ?? false,
      ...(rule === undefined ? {} : { description: rule }),
      schema: s,
    };
  });
}

const NAME = {
  name: "name",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
};
const json = (ref: string, description: string): Json => ({
  description,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } },
});
const errors = (...statuses: number[]): Json =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/Error` }]));
const body = (ref: string): Json => ({
  required: false,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } },
});
const htmlPage = (description: string): Json => ({
  description,
  content: { "text/html": { schema: { type: "string" } } },
});
const form = (fields: string[]): Json => ({
  required: true,
  content: {
    "application/x-www-form-urlencoded": {
      schema: { type: "object", properties: Object.fromEntries(fields.map((f) => [f, { type: "string" }])) },
    },
  },
});
const redirect = { "303": { description: "Back to the dashboard" } };

/** The whole document. */
export function buildOpenApi(): Json {
  const action = (summary: string): Json => ({
    summary,
    parameters: [NAME],
    requestBody: body("EmptyBody"),
    responses: { "200": json("PauseResult", "The job's new state"), ...errors(400, 401, 404, 413, 503) },
  });
  const paths: Json = {
    "/health": {
      get: {
        summary: "Scheduler health",
        responses: { "200": json("Health", "Healthy"), "503": json("Health", "Unhealthy"), ...errors(400, 401) },
      },
    },
    "/jobs": {
      get: {
        summary: "A page of jobs, sorted by name",
        parameters: queryParameters(JobsQuerySchema),
        responses: { "200": json("JobPage", "One page"), ...errors(400, 401, 503) },
      },
      post: {
        summary: "Creates a data-defined webhook job",
        requestBody: { ...body("NamedDataJob"), required: true },
        responses: { "201": json("Job", "Created"), ...errors(400, 401, 409, 413, 503) },
      },
    },
    "/jobs/{name}": {
      get: {
        summary: "One job",
        parameters: [NAME, ...queryParameters(NextQuerySchema)],
        responses: { "200": json("Job", "The job"), ...errors(400, 401, 404, 503) },
      },
      put: {
        summary: "Creates or replaces a data-defined job",
        parameters: [NAME, ...queryParameters(PutQuerySchema)],
        requestBody: { ...body("DataJob"), required: true },
        responses: {
          "200": json("Job", "Replaced"),
          "201": json("Job", "Created"),
          ...errors(400, 401, 409, 413, 503),
        },
      },
      delete: {
        summary: "Deletes a data-defined job",
        parameters: [NAME],
        responses: { "200": json("Deleted", "Deleted"), ...errors(400, 401, 404, 409, 503) },
      },
    },
    "/jobs/{name}/runs": {
      get: {
        summary: "Run history, newest first",
        parameters: [NAME, ...queryParameters(RunsQuerySchema)],
        responses: { "200": json("RunPage", "One page"), ...errors(400, 401, 404, 503) },
      },
    },
    "/jobs/{name}/run": {
      post: {
        summary: "Runs the job now and answers its outcome",
        parameters: [NAME],
        requestBody: body("RunBody"),
        responses: {
          "200": json("RunResult", "Ran: ok (or skipped/missed)"),
          "502": json("RunResult", "Ran and failed: error"),
          "504": json("RunResult", "Ran and timed out"),
          ...errors(400, 401, 404, 409, 413, 503),
        },
      },
    },
    "/jobs/{name}/backfill": {
      post: {
        summary:
          "Runs the job for every slot of its schedule in [from, to), in order; answers at once with the planned count (progress shows in the run history)",
        parameters: [NAME],
        requestBody: { ...body("BackfillBody"), required: true },
        responses: {
          "202": json("BackfillStarted", "Planned; the slots run in the background"),
          ...errors(400, 401, 404, 409, 413, 503),
        },
      },
    },
    "/jobs/{name}/pause": {
      post: {
        ...action("Pauses the job on every node, with an optional note (shown in the job's `pause` until it resumes)"),
        requestBody: body("PauseBody"),
      },
    },
    "/jobs/{name}/resume": { post: action("Resumes the job") },
    "/tick": {
      post: {
        summary: "Runs one tick now (for external triggers)",
        requestBody: body("EmptyBody"),
        responses: { "200": json("TickReport", "What the tick did"), ...errors(400, 401, 413, 503) },
      },
    },
    "/openapi.json": {
      get: {
        summary: "This document",
        responses: {
          "200": { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } },
          ...errors(401),
        },
      },
    },
    "/metrics": {
      get: {
        summary: "Prometheus metrics (when the router has `metrics`)",
        responses: {
          "200": {
            description: "Text exposition format 0.0.4",
            content: { "text/plain": { schema: { type: "string" } } },
          },
          ...errors(401, 404, 503),
        },
      },
    },
    "/": {
      get: {
        summary: "Dashboard: every job (HTML)",
        parameters: [{ name: "after", in: "query", required: false, schema: { type: "string" } }],
        responses: { "200": htmlPage("The overview"), "401": htmlPage("Sign-in form") },
      },
    },
    "/ui/jobs/{name}": {
      get: {
        summary: "Dashboard: one job and its history (HTML)",
        parameters: [NAME, { name: "before", in: "query", required: false, schema: { type: "string" } }],
        responses: { "200": htmlPage("The job page"), "401": htmlPage("Sign-in form"), "404": htmlPage("No such job") },
      },
    },
    "/ui/login": {
      post: {
        summary: "Dashboard sign-in with the token",
        requestBody: form(["token"]),
        responses: {
          ...redirect,
          "401": htmlPage("Wrong token"),
          "403": htmlPage("Cross-site"),
          "429": htmlPage("Too many wrong tokens; `Retry-After` says when to try again"),
        },
      },
    },
    "/ui/logout": {
      post: {
        summary: "Dashboard sign-out",
        requestBody: form(["csrf"]),
        responses: { ...redirect, "403": htmlPage("Cross-site") },
      },
    },
  };
  for (const verb of ["run", "pause", "resume"]) {
    paths[`/ui/jobs/{name}/${verb}`] = {
      post: {
        summary: `Dashboard form: ${verb}`,
        parameters: [NAME],
        requestBody: form(["csrf", "back"]),
        responses: { ...redirect, "401": htmlPage("Sign-in form"), "403": htmlPage("Stale form or cross-site") },
      },
    };
  }
  paths["/ui/jobs/{name}/backfill"] = {
    post: {
      summary: "Dashboard form: backfill",
      parameters: [NAME],
      requestBody: form(["csrf", "from", "to", "rerun"]),
      responses: { ...redirect, "401": htmlPage("Sign-in form"), "403": htmlPage("Stale form or cross-site") },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "edgecron",
      version: "1",
      description: "Every instant is sent as epoch milliseconds `x` with an ISO-8601 sibling `xIso`.",
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      responses: { Error: json("Error", "An error: `{ error: { code, message, path? } }`") },
      schemas: {
        DataJob: strip(convert(DataJobSchema)),
        NamedDataJob: strip(convert(NamedDataJobSchema)),
        RunBody: strip(convert(RunBodySchema)),
        BackfillBody: strip(convert(BackfillBodySchema)),
        PauseBody: strip(convert(PauseBodySchema)),
        EmptyBody: strip(convert(EmptyBodySchema)),
        ...RESPONSE_SCHEMAS,
      },
    },
  };
}

/** The generated module's text. */
export function documentModule(): string {
  return `// GENERATED by scripts/openapi.ts from the request schemas; do not edit (npm run openapi).
/** The OpenAPI 3.1 document of the router, served at \`GET /openapi.json\`. */
export const OPENAPI_DOCUMENT: string = ${JSON.stringify(JSON.stringify(buildOpenApi()))};
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = new URL("../src/http/openapi/document.ts", import.meta.url);
  writeFileSync(out, documentModule());
  console.log(`wrote ${out.pathname}`);
}
