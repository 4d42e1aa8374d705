/**
 * The JSON API routes. Every input goes through a valibot schema first; scheduler
 * errors are mapped to statuses by the router's error handler. Every body goes out
 * through `withIso()`: instants as epoch ms with an ISO-8601 `…Iso` sibling.
 */
import type { Context, Hono } from "hono";
import type * as v from "valibot";
import { SchedulerError, sentence } from "../core/errors.ts";
import type { DataJobSpec, HealthReport, JobInfo } from "../engine/types.ts";
import { startBackfill } from "./_backfill.ts";
import { readJson } from "./_body.ts";
import { requireAuth, type RouterContext } from "./_context.ts";
import { errorBody, HttpError, validate } from "./_errors.ts";
import { withIso } from "./_iso.ts";
import { listJobs } from "./_list.ts";
import { JOBS_PAGE, JobsQuerySchema } from "./_paging.ts";
import {
  BackfillBodySchema,
  EmptyBodySchema,
  NameSchema,
  NextQuerySchema,
  NoQuerySchema,
  parseJob,
  parseNamedJob,
  PauseBodySchema,
  PutQuerySchema,
  RunBodySchema,
  RunsQuerySchema,
} from "./_schemas.ts";

function query<S extends v.GenericSchema>(c: Context, schema: S): v.InferOutput<S> {
  const raw = c.req.queries();
  const single: Record<string, string> = Object.create(null);
  for (const [key, values] of Object.entries(raw)) {
    if (values.length !== 1) {
      throw new HttpError(400, "invalid-request", `query.${key}: given more than once`, `query.${key}`);
    }
    single[key] = values[0] as string;
  }
  return validate(schema, { ...single }, "query");
}

function nameParam(c: Context): string {
  return validate(NameSchema, c.req.param("name"), "params.name");
}

async function body<S extends v.GenericSchema>(c: Context, rc: RouterContext, schema: S): Promise<v.InferOutput<S>> {
  return validate(schema, await readJson(c.req.raw, rc.maxBodyBytes));
}

/** Sends `value` as JSON with the `…Iso` siblings. */
function send(c: Context, value: unknown, status: 200 | 201 | 202 | 502 | 503 | 504 = 200): Response {
  return c.json(withIso(value) as object, status);
}

async function existing(rc: RouterContext, name: string): Promise<JobInfo> {
  const info = await rc.scheduler.get(name);
  if (info === undefined) {
    throw new HttpError(404, "unknown-job", `job ${JSON.stringify(name)} does not exist`, "params.name");
  }
  return info;
}

function refuseCodeDefined(info: JobInfo | undefined): void {
  if (info?.source === "code") {
    throw new HttpError(409, "code-defined", `job ${JSON.stringify(info.name)} is defined in code; change it there`);
  }
}

/** A job that will not fire (paused, disabled) lists no next slots. */
function quietNext(info: JobInfo): JobInfo {
  return info.paused || !info.enabled ? { ...info, next: [] } : info;
}

/** Health without internal error text: only the code prefix of the last error leaves. */
function publicHealth(report: HealthReport): HealthReport {
  const code = report.lastError === undefined ? undefined : (/^([a-z][a-z-]*):/.exec(report.lastError)?.[1] ?? "error");
  return { ...report, lastError: code };
}

/**
 * `scheduler.define()` with the body's own field paths: the engine names fields
 * `jobs.<name>.schedule`, the client sent `schedule`.
 */
async function define(
  rc: RouterContext,
  name: string,
  spec: DataJobSpec,
  ifVersion: number | undefined,
): Promise<JobInfo> {
  try {
    return await rc.scheduler.define(name, spec, ifVersion === undefined ? {} : { ifVersion });
  } catch (e) {
    const prefix = `jobs.${name}.`;
    if (e instanceof SchedulerError && e.code.startsWith("invalid-") && e.path?.startsWith(prefix)) {
      const path = e.path.slice(prefix.length);
      const message = sentence(e);
      throw new SchedulerError(e.code, message.split(prefix).join(""), { path, cause: e });
    }
    throw e;
  }
}

const REFUSAL_STATUS = {
  "unknown job": 404,
  "already running": 409,
  "not due": 409,
  paused: 409,
  lost: 409,
  broken: 409,
} as const;
/** A manual run that ran but failed: the upstream (the handler) failed or was too slow. */
const FAILED_STATUS: Partial<Record<string, 502 | 504>> = { error: 502, abandoned: 502, timeout: 504 };

/** Registers the JSON routes on `app`. */
export function registerApi(app: Hono, rc: RouterContext): void {
  const read = requireAuth(rc, { cookie: true });
  const write = requireAuth(rc, { cookie: false });
  const cached = rc.cache.middleware;
  const { scheduler } = rc;
  const changed = (): void => rc.cache.clear();

  app.get("/health", read, async (c) => {
    query(c, NoQuerySchema);
    const report = publicHealth(await scheduler.health());
    return send(c, report, report.ok ? 200 : 503);
  });

  app.get("/jobs", read, cached, async (c) => {
    const { next, limit = JOBS_PAGE, after } = query(c, JobsQuerySchema);
    const page = await listJobs(scheduler, {
      limit,
      ...(next === undefined ? {} : { next }),
      ...(after === undefined ? {} : { after }),
    });
    return send(c, page);
  });

  app.get("/jobs/:name", read, cached, async (c) => {
    const name = nameParam(c);
    const { next = 10 } = query(c, NextQuerySchema);
    const info = await scheduler.get(name, { next });
    if (info === undefined) {
      throw new HttpError(404, "unknown-job", `job ${JSON.stringify(name)} does not exist`, "params.name");
    }
    return send(c, quietNext(info));
  });

  app.get("/jobs/:name/runs", read, cached, async (c) => {
    const name = nameParam(c);
    const q = query(c, RunsQuerySchema);
    await existing(rc, name);
    const limit = q.limit ?? 50;
    const runs = await scheduler.runs(name, q.before === undefined ? { limit } : { limit, before: q.before });
    const last = runs.at(-1);
    return send(c, { job: name, runs, nextBefore: runs.length === limit && last ? last.slot : null });
  });

  app.post("/jobs/:name/run", write, async (c) => {
    const name = nameParam(c);
    query(c, NoQuerySchema);
    const { mode } = await body(c, rc, RunBodySchema);
    const result = await scheduler.run(name, mode === undefined ? {} : { mode });
    changed();
    if (result.ok) {
      const status = FAILED_STATUS[result.outcome];
      if (status === undefined) return send(c, result);
      // The slot's own row: the newest one before the next millisecond.
      const [row] = await scheduler.runs(name, { before: result.slot + 1, limit: 1 }).catch(() => []);
      return send(c, { ...result, error: row?.error ?? null }, status);
    }
    const status = REFUSAL_STATUS[result.reason];
    const code = status === 404 ? "unknown-job" : result.reason.replace(/ /g, "-");
    return c.json(errorBody(code, `job ${JSON.stringify(name)} was not run: ${result.reason}`), status);
  });

  app.post("/jobs/:name/pause", write, async (c) => {
    const name = nameParam(c);
    query(c, NoQuerySchema);
    const { note } = await body(c, rc, PauseBodySchema);
    await existing(rc, name);
    // The router has one token, so every API caller is "api".
    await scheduler.pause(name, note === undefined ? { by: "api" } : { note, by: "api" });
    changed();
    return send(c, { job: name, paused: true });
  });

  app.post("/jobs/:name/resume", write, async (c) => {
    const name = nameParam(c);
    query(c, NoQuerySchema);
    await body(c, rc, EmptyBodySchema);
    await existing(rc, name);
    await scheduler.resume(name);
    changed();
    return send(c, { job: name, paused: false });
  });

  app.post("/jobs/:name/backfill", write, async (c) => {
    const name = nameParam(c);
    query(c, NoQuerySchema);
    const { from, to, rerun, overlap } = await body(c, rc, BackfillBodySchema);
    await existing(rc, name);
    const planned = startBackfill(c, rc, name, {
      from,
      to,
      ...(rerun === undefined ? {} : { rerun }),
      ...(overlap === undefined ? {} : { overlap }),
    });
    const slots = await planned;
    changed();
    return send(c, { job: name, planned: slots.length, first: slots[0] ?? null, last: slots.at(-1) ?? null }, 202);
  });

  app.post("/tick", write, async (c) => {
    query(c, NoQuerySchema);
    // No `now` from the client: a caller must not be able to run future slots early.
    await body(c, rc, EmptyBodySchema);
    const report = await scheduler.tick();
    changed();
    if (!report.ok) {
      rc.logger.error("http: tick failed", { error: report.error });
      return c.json(errorBody("store-error", "the store is unavailable; no slot ran"), 503);
    }
    return send(c, report);
  });

  app.post("/jobs", write, async (c) => {
    query(c, NoQuerySchema);
    const { name, spec } = parseNamedJob(await readJson(c.req.raw, rc.maxBodyBytes));
    const current = await scheduler.get(name);
    refuseCodeDefined(current);
    const exists = () =>
      new HttpError(409, "conflict", `job ${JSON.stringify(name)} already exists; use PUT to replace it`);
    if (current !== undefined) throw exists();
    // Another POST may create it first: the same answer, not the store's version conflict.
    const info = await define(rc, name, spec as DataJobSpec, 0).catch((e) => {
      throw (e as SchedulerError).code === "conflict" ? exists() : e;
    });
    changed();
    return send(c, info, 201);
  });

  app.put("/jobs/:name", write, async (c) => {
    const name = nameParam(c);
    const { ifVersion } = query(c, PutQuerySchema);
    const spec = parseJob(await readJson(c.req.raw, rc.maxBodyBytes));
    const current = await scheduler.get(name);
    refuseCodeDefined(current);
    // Refused here when already stale, so a plain conflict is not reported as a store failure.
    const version = current?.def?.version ?? 0;
    if (ifVersion !== undefined && ifVersion !== version) {
      throw new HttpError(
        409,
        "conflict",
        `job ${JSON.stringify(name)} is at version ${version}, not ${ifVersion}`,
        "query.ifVersion",
      );
    }
    // Created only if still absent: a PUT that lost that race replaces the job (200), as it would have later.
    let created = current === undefined;
    const info = await define(rc, name, spec as DataJobSpec, ifVersion ?? (created ? 0 : undefined)).catch((e) => {
      if (ifVersion !== undefined || !created || (e as SchedulerError).code !== "conflict") throw e;
      created = false;
      return define(rc, name, spec as DataJobSpec, undefined);
    });
    changed();
    return send(c, info, created ? 201 : 200);
  });

  app.delete("/jobs/:name", write, async (c) => {
    const name = nameParam(c);
    query(c, NoQuerySchema);
    // A body it ignored (`{ "ifVersion": 3 }`) deleted the job without a condition.
    await body(c, rc, EmptyBodySchema);
    const info = await existing(rc, name);
    refuseCodeDefined(info);
    const removed = await scheduler.undefine(name);
    changed();
    if (!removed) throw new HttpError(404, "unknown-job", `job ${JSON.stringify(name)} does not exist`, "params.name");
    return send(c, { job: name, deleted: true });
  });
}
