// Shared fixture for the router tests: a real scheduler on a memory store and a
// manual clock, a recording fetch for webhook jobs, and a recording logger.
import { Hono } from "hono";
import { createManualClock, createScheduler, type ManualClock } from "../../src/engine/mod.ts";
import type { Logger, Scheduler } from "../../src/engine/types.ts";
import { createMemoryStore, type MemoryStore } from "../../src/store/mod.ts";
import { edgecronRouter, type RouterOptions } from "../../src/http/mod.ts";

export const TOKEN = "test-token-0123456789abcdef";
export const SECRET = "whsec_router_tests";
/** 2026-11-30T12:00:00Z, a Monday. */
export const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
export const HOUR = 3_600_000;

export interface Fixture {
  app: Hono;
  scheduler: Scheduler;
  clock: ManualClock;
  store: MemoryStore;
  fetched: Request[];
  errors: { message: string; fields: Record<string, unknown> | undefined }[];
  /** Sends a request; `auth` (default true) adds the bearer token. */
  call(
    method: string,
    path: string,
    init?: { body?: BodyInit | null; headers?: Record<string, string>; auth?: boolean },
  ): Promise<Response>;
}

export function quietLogger(errors: Fixture["errors"] = []): Logger {
  return { debug() {}, info() {}, warn() {}, error: (message, fields) => void errors.push({ message, fields }) };
}

/** Builds the fixture. `mount` mounts the router under that prefix of a parent app. */
export function setup(
  options: { router?: Partial<RouterOptions>; mount?: string; wrap?: (s: Scheduler) => Scheduler } = {},
): Fixture {
  const clock = createManualClock(T0);
  const store = createMemoryStore();
  const fetched: Request[] = [];
  const errors: Fixture["errors"] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    fetched.push(new Request(input, init));
    return new Response("ok");
  };
  const scheduler = createScheduler({
    clock,
    store,
    node: "node-a",
    webhookSecret: SECRET,
    fetch,
    logger: quietLogger(),
  });
  scheduler.job("hourly", {
    schedule: "0 * * * *",
    timezone: "Europe/Paris",
    description: "Hourly <b>report</b>",
    run: () => {},
  });
  scheduler.job("failing", {
    schedule: "*/15 * * * *",
    run: () => {
      throw new Error("boom: disk full");
    },
  });
  const routerOptions: RouterOptions = options.router?.public
    ? { now: clock.now, logger: quietLogger(errors), ...options.router }
    : { token: TOKEN, now: clock.now, logger: quietLogger(errors), ...options.router };
  const router = edgecronRouter(options.wrap ? options.wrap(scheduler) : scheduler, routerOptions);
  const app = options.mount ? new Hono().route(options.mount, router) : router;
  const call: Fixture["call"] = async (method, path, init = {}) => {
    const headers: Record<string, string> = {
      ...(init.auth === false ? {} : { authorization: `Bearer ${TOKEN}` }),
      ...init.headers,
    };
    return app.request(path, { method, headers, body: init.body ?? null });
  };
  return { app, scheduler, clock, store, fetched, errors, call };
}

/** Reads a JSON error body and returns its `error` member. */
export async function errorOf(res: Response): Promise<{ code: string; message: string; path?: string }> {
  const body = await res.json() as { error: { code: string; message: string; path?: string } };
  return body.error;
}

/** A JSON body with its content type. */
export function json(value: unknown): { body: string; headers: Record<string, string> } {
  return { body: JSON.stringify(value), headers: { "content-type": "application/json" } };
}
