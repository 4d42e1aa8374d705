/**
 * The JSON API routes. Every input goes through a valibot schema first; scheduler
 * errors are mapped to statuses by the router's error handler.
 */
import type { Context, Hono } from "hono";
import type * as v from "valibot";
import type { HealthReport, JobInfo } from "../engine/types.ts";
import { readJson } from "./_body.ts";
import { type RouterContext, requireAuth } from "./_context.ts";
import { errorBody, HttpError, validate } from "./_errors.ts";
import {
  EmptyBodySchema,
  NameSchema,
  NextQuerySchema,
  NoQuerySchema,
  parseJob,
  parseNamedJob,
  PutQuerySchema,
  RunBodySchema,
  RunsQuerySchema,
} from "./_schemas.ts";

function query<S extends v.GenericSchema>(c: Context, schema: S): v.InferOutput<S> {
  const raw = c.req.queries();
  const single: Record<string, string> = {};
  for (const [key, values] of Object.entries(raw)) {
    if (values.length !== 1) throw new HttpError(400, "invalid-request", `query.${key}: given more than once`, `query.${key}`);
    single[key] = values[0] as string;
  }
  return validate(schema, single, "query");
}

function nameParam(c: Context): string {
  return validate(NameSchema, c.req.param("name"), "params.name");
}

async function body<S extends v.GenericSchema>(c: Context, rc: RouterContext, schema: S): Promise<v.InferOutput<S>> {
  return validate(schema, await readJson(c.req.raw, rc.maxBodyBytes));
}

async function existing(rc: RouterContext, name: string): Promise<JobInfo> {
  const info = await rc.scheduler.get(name);
  if (info === undefined) throw new HttpError(404, "unknown-job", `job ${JSON.stringify(name)} does not exist`, "params.name");
  return info;
}

function refuseCodeDefined(info: JobInfo | undefined): void {
  if (info?.source === "code") {
    throw new HttpError(409, "code-defined", `job ${JSON.stringify(info.name)} is defined in code; change it there`);
  }
}

/** Health without internal error text: only the code prefix of the last error leaves. */
function publicHealth(report: HealthReport): HealthReport {
  const code = report.lastError === undefined ? undefined : (/^([a-z][a-z-]*):/.exec(report.lastError)?.[1] ?? "error");
  return { ...report, lastError: code };
}

const REFUSAL_STATUS = { "unknown job": 404, "already running": 409, "not due": 409, paused: 409, lost: 409 } as const;

/** Registers the JSON routes on `app`. */
export function registerApi(app: Hono, rc: RouterContext): void {
  const read = requireAuth(rc, { cookie: true });
  const write = requireAuth(rc, { cookie: false });
  const { scheduler } = rc;

  app.get("/health", read, async (c) => {
    query(c, NoQuerySchema);
    const report = publicHealth(await scheduler.health());
    return c.json(report, report.ok ? 200 : 503);
  });

  app.get("/jobs", read, async (c) => {
    const { next } = query(c, NextQuerySchema);
    return c.json({ jobs: await scheduler.list(next === undefined ? {} : { next }) });
  });

  app.get("/jobs/:name", read, async (c) => {
    const name = nameParam(c);
    const { next = 10 } = query(c, NextQuerySchema);
    const info = await scheduler.get(name, { next });
    if (info === undefined) throw new HttpError(404, "unknown-job", `job ${JSON.stringify(name)} does not exist`, "params.name");
    return c.json(info);
  });

  app.get("/jobs/:name/runs", read, async (c) => {
    const name = nameParam(c);
    const q = query(c, RunsQuerySchema);
    await existing(rc, name);
    const limit = q.limit ?? 50;
    const runs = await scheduler.runs(name, q.before === undefined ? { limit } : { limit, before: q.before });
    const last = runs.at(-1);
    return c.json({ job: name, runs, nextBefore: runs.length === limit && last ? last.slot : null });
  });

  app.post("/jobs/:name/run", write, async (c) => {
    const name = nameParam(c);
    query(c, NoQuerySchema);
    const { mode } = await body(c, rc, RunBodySchema);
    const result = await scheduler.run(name, mode === undefined ? {} : { mode });
    if (result.ok) return c.json(result);
    const status = REFUSAL_STATUS[result.reason];
    const code = status === 404 ? "unknown-job" : result.reason.replace(/ /g, "-");
    return c.json(errorBody(code, `job ${JSON.stringify(name)} was not run: ${result.reason}`), status);
  });

  for (const action of ["pause", "resume"] as const) {
    app.post(`/jobs/:name/${action}`, write, async (c) => {
      const name = nameParam(c);
      query(c, NoQuerySchema);
      await body(c, rc, EmptyBodySchema);
      await existing(rc, name);
      await scheduler[action](name);
      return c.json({ job: name, paused: action === "pause" });
    });
  }

  app.post("/tick", write, async (c) => {
    query(c, NoQuerySchema);
    // No `now` from the client: a caller must not be able to run future slots early.
    await body(c, rc, EmptyBodySchema);
    const report = await scheduler.tick();
    if (!report.ok) {
      rc.logger.error("edgecron http: tick failed", { error: report.error });
      return c.json(errorBody("store-error", "the store is unavailable; no slot ran"), 503);
    }
    return c.json(report);
  });

  app.post("/jobs", write, async (c) => {
    query(c, NoQuerySchema);
    const { name, spec } = parseNamedJob(await readJson(c.req.raw, rc.maxBodyBytes));
    const current = await scheduler.get(name);
    refuseCodeDefined(current);
    if (current !== undefined) throw new HttpError(409, "conflict", `job ${JSON.stringify(name)} already exists; use PUT to replace it`);
    return c.json(await scheduler.define(name, spec, { ifVersion: 0 }), 201);
  });

  app.put("/jobs/:name", write, async (c) => {
    const name = nameParam(c);
    const { ifVersion } = query(c, PutQuerySchema);
    const spec = parseJob(await readJson(c.req.raw, rc.maxBodyBytes));
    const current = await scheduler.get(name);
    refuseCodeDefined(current);
    const info = await scheduler.define(name, spec, ifVersion === undefined ? {} : { ifVersion });
    return c.json(info, current === undefined ? 201 : 200);
  });

  app.delete("/jobs/:name", write, async (c) => {
    const name = nameParam(c);
    query(c, NoQuerySchema);
    const info = await existing(rc, name);
    refuseCodeDefined(info);
    if (!await scheduler.undefine(name)) throw new HttpError(404, "unknown-job", `job ${JSON.stringify(name)} does not exist`, "params.name");
    return c.json({ job: name, deleted: true });
  });
}
