/**
 * edgecron on Cloudflare Workers: a module worker `{ fetch, scheduled }`. A Cron
 * Trigger's `scheduled` event ticks with `controller.scheduledTime` as `now`, inside
 * `ctx.waitUntil`; `fetch` serves the router. Secrets come from `env`, never a global.
 *
 * @module
 */
import { SchedulerError } from "../../src/core/errors.ts";
import { runAheadUntil, triggerSlot } from "../../src/engine/tick/run_ahead.ts";
import type { Scheduler } from "../../src/engine/types.ts";
import type { RouterOptions } from "../../src/http/mod.ts";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import { d1Store, isD1Database } from "../../src/store/d1/mod.ts";
import type { Store } from "../../src/store/types.ts";
import { appFor, type FetchHandler, setClientAddress } from "../_app.ts";
import { inEvent } from "./_events.ts";

/** The parts of the Workers runtime's `ScheduledController` used here. */
export interface ScheduledController {
  readonly scheduledTime: number;
  readonly cron: string;
}

/** The parts of the Workers runtime's `ExecutionContext` used here. */
export interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** A module worker, as `export default` expects it. */
export interface EdgecronWorker<Env> {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response>;
  scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void>;
}

/** The bindings the defaults read. */
export interface EdgecronEnv {
  /** Bearer token of the router (a secret: `wrangler secret put EDGECRON_TOKEN`). */
  EDGECRON_TOKEN?: string;
}

/** The bindings `libsqlFromEnv` reads. */
export interface LibsqlEnv {
  /** `libsql://db.turso.io`, `https://…` (a var). */
  LIBSQL_URL?: string;
  /** The database token (a secret). */
  LIBSQL_AUTH_TOKEN?: string;
}

/**
 * A libSQL store over `@libsql/client/web` (HTTP; no native code, no `file:`), with the
 * URL and token read from the worker's bindings.
 *
 * @throws {SchedulerError} `invalid-spec` when `env.LIBSQL_URL` is missing.
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { libsqlFromEnv, type LibsqlEnv } from "edgecron/cloudflare";
 *
 * export const build = (env: LibsqlEnv) => createScheduler({ store: libsqlFromEnv(env) });
 * ```
 */
export function libsqlFromEnv(env: LibsqlEnv): Store {
  const url = env.LIBSQL_URL;
  if (typeof url !== "string" || url === "") {
    throw new SchedulerError(
      "invalid-spec",
      "env.LIBSQL_URL: expected the database URL binding (libsql:// or https://), got none",
      {
        path: "env.LIBSQL_URL",
      },
    );
  }
  const authToken = env.LIBSQL_AUTH_TOKEN;
  // By URL, so the client is imported only when a libSQL store is made (a D1-only
  // worker bundles none of it); under the workerd condition "@libsql/client" is its
  // web (HTTP) client.
  return libsqlStore({ url, ...(authToken ? { authToken } : {}) });
}

/**
 * The shared store a Worker's bindings offer: D1 when the binding named `binding`
 * (default `DB`) is a D1 database, otherwise libSQL from `LIBSQL_URL`; undefined when
 * there is neither (each isolate then keeps its own memory store: not exactly-once).
 * Postgres is not picked here (its driver needs `nodejs_compat`, and every worker calling
 * this would carry it): use `postgresFromEnv` from `edgecron/cloudflare/postgres`.
 *
 * @throws {SchedulerError} `invalid-spec` when neither D1 nor libSQL is bound but
 * `DATABASE_URL` or a `HYPERDRIVE` binding is (the error names `postgresFromEnv`), or the
 * D1 binding's name holds something else, or `options.binding` names no binding: a
 * memory store would silently give up exactly-once.
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { storeFromEnv } from "edgecron/cloudflare";
 *
 * export function build(env: object) {
 *   const store = storeFromEnv(env); // or storeFromEnv(env, { binding: "JOBS_DB" })
 *   return createScheduler(store ? { store } : {});
 * }
 * ```
 */
export function storeFromEnv(env: object, options: { binding?: string } = {}): Store | undefined {
  const bindings = env as LibsqlEnv & Record<string, unknown>;
  const db = bindings[options.binding ?? "DB"];
  if (isD1Database(db)) return d1Store(db);
  if (typeof bindings.LIBSQL_URL === "string" && bindings.LIBSQL_URL !== "") return libsqlFromEnv(bindings);
  const hyperdrive = bindings.HYPERDRIVE;
  const postgresBinding = typeof bindings.DATABASE_URL === "string" && bindings.DATABASE_URL !== ""
    ? "DATABASE_URL"
    : typeof hyperdrive === "object" && hyperdrive !== null
    ? "HYPERDRIVE"
    : undefined;
  if (postgresBinding !== undefined) {
    throw new SchedulerError(
      "invalid-spec",
      `env.${postgresBinding}: a Postgres binding is set, but storeFromEnv picks only D1 and libSQL; use ` +
        'postgresFromEnv(env) from "edgecron/cloudflare/postgres" (with compatibility_flags = ["nodejs_compat"])',
      { path: `env.${postgresBinding}` },
    );
  }
  // A binding named for D1 that is something else (a var, a KV namespace), or a binding
  // asked for by name that is missing, is a wrangler.toml mistake: a memory store would
  // silently give up exactly-once.
  const name = options.binding ?? "DB";
  if (db !== undefined || options.binding !== undefined) {
    throw new SchedulerError(
      "invalid-spec",
      `env.${name}: expected a D1 database binding ([[d1_databases]] binding = ${JSON.stringify(name)} in ` +
        `wrangler.toml), got ${kindOf(db)}`,
      { path: `env.${name}` },
    );
  }
  return undefined;
}

/** "no binding", "null", "a string", "an object": what a binding turned out to be. */
function kindOf(value: unknown): string {
  if (value === undefined) return "no binding";
  if (value === null) return "null";
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

/** What a Worker without its token answers (503) and logs once. */
const MISSING_TOKEN = "EDGECRON_TOKEN is not set, so the API and dashboard are closed. Set it as a secret: " +
  "`wrangler secret put EDGECRON_TOKEN` (deployed), a line EDGECRON_TOKEN=<random> in .dev.vars " +
  "(wrangler dev), or `wrangler dev --var EDGECRON_TOKEN:<random>`. Cron Triggers run without it.";

/**
 * What a request answers when the worker could not be built or its store initialised,
 * before any authentication: a missing or malformed binding (`invalid-*`, a deployment
 * error) is named; a store that cannot be reached is a 503 that says only that, as the
 * router answers it (the store's own error can name hosts and SQL: it goes to the logs);
 * anything else is a bare 500.
 */
function failedResponse(error: unknown): Response {
  const headers = { "Cache-Control": "no-store" };
  if (error instanceof SchedulerError && error.code.startsWith("invalid-")) {
    return Response.json({ error: { code: error.code, message: error.message } }, { status: 500, headers });
  }
  if (error instanceof SchedulerError && error.code === "store-error") {
    return Response.json(
      { error: { code: "store-error", message: "the store is unavailable; try again later (see the worker logs)" } },
      { status: 503, headers },
    );
  }
  return Response.json(
    { error: { code: "internal", message: "edgecron worker failed; see the worker logs" } },
    { status: 500, headers },
  );
}

/** Options of `cloudflareWorker`. */
export interface CloudflareOptions<Env> {
  /** Router options from the bindings; default `{ token: env.EDGECRON_TOKEN }`. */
  router?: (env: Env) => RouterOptions;
  /** What `fetch` serves instead of the router (e.g. your Hono app mounting it). */
  app?: (scheduler: Scheduler, env: Env) => FetchHandler;
}

interface Built {
  scheduler: Scheduler;
  app: FetchHandler | undefined;
}

/**
 * Builds a module worker from a scheduler, or from a function of `env` that makes one
 * (for stores and secrets that live in bindings). The scheduler is built once per
 * isolate and env object, and its store initialised before the first tick or request,
 * inside the event (so a store with per-event connections has one). A factory that
 * throws is not cached, and a store that failed to initialise is tried again: the next
 * event retries either.
 *
 * Pass the function when the store needs the event's `env` (a binding). A scheduler
 * made at global scope, beside `export default`, must name its `node`: the default node
 * id is drawn at random, which workerd refuses there ("Disallowed operation called
 * within global scope", and the worker does not start).
 *
 * @throws Nothing itself; a factory's error rejects that event's promise.
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { cloudflareWorker, libsqlFromEnv, type LibsqlEnv } from "edgecron/cloudflare";
 *
 * export default cloudflareWorker((env: LibsqlEnv) =>
 *   createScheduler({ store: libsqlFromEnv(env) })
 *     .job("digest", { schedule: "0 8 * * *", timezone: "Europe/Paris", run: () => console.log("digest") }));
 * ```
 */
export function cloudflareWorker<Env extends object = EdgecronEnv>(
  source: Scheduler | ((env: Env) => Scheduler | Promise<Scheduler>),
  options: CloudflareOptions<Env> = {},
): EdgecronWorker<Env> {
  const routerOf = options.router ?? ((env: Env): RouterOptions => {
    const token = (env as EdgecronEnv).EDGECRON_TOKEN;
    return token === undefined ? {} : { token };
  });
  // Only the default router reads EDGECRON_TOKEN; a missing one is a deployment step left out.
  const tokenMissing = (env: Env): boolean =>
    options.router === undefined && options.app === undefined && !(env as EdgecronEnv).EDGECRON_TOKEN;
  let toldMissingToken = false;
  // Workers hand every event of an isolate the same env object; a new object (another
  // binding set, as in tests) gets its own scheduler.
  const built = new WeakMap<Env, Promise<Built>>();
  const make = (env: Env): Promise<Built> => {
    let pending = built.get(env);
    if (pending === undefined) {
      pending =
        (async () => ({ scheduler: typeof source === "function" ? await source(env) : source, app: undefined }))();
      built.set(env, pending);
      pending.catch(() => built.delete(env));
    }
    return pending;
  };
  // The scheduler is made first (its store may ask for a per-event hook, such as one
  // Postgres connection per event), then the store is initialised inside the event.
  const during = <T>(env: Env, ctx: ExecutionContext, work: (b: Built) => Promise<T>): Promise<T> =>
    make(env).then((b) =>
      inEvent(env, ctx, async () => {
        await b.scheduler.ready();
        return await work(b);
      })
    );
  return {
    async fetch(request, env, ctx) {
      try {
        return await during(env, ctx, async (b) => {
          if (tokenMissing(env)) {
            if (!toldMissingToken) b.scheduler.log.error(MISSING_TOKEN);
            toldMissingToken = true;
            return Response.json({ error: { code: "not-configured", message: MISSING_TOKEN } }, {
              status: 503,
              headers: { "Cache-Control": "no-store" },
            });
          }
          b.app ??= options.app ? options.app(b.scheduler, env) : appFor(b.scheduler, { router: routerOf(env) });
          // Cloudflare sets CF-Connecting-IP itself (a client cannot forge it on Workers). The
          // context goes along: without it a backfill (run after its 202) had no `waitUntil`,
          // and workerd cut its store calls once the answer was sent (one row, left `buffered`).
          return await b.app.fetch(
            setClientAddress(request, request.headers.get("cf-connecting-ip") ?? undefined),
            env,
            ctx,
          );
        });
      } catch (error) {
        console.error("edgecron: fetch failed:", error);
        return failedResponse(error);
      }
    },
    scheduled(controller, env, ctx) {
      // The slot time is the trigger's, not the clock's: a late or repeated delivery
      // still names the same minute, so claims dedupe it. Then run ahead to the
      // trigger's next fire, so sub-minute slots run at their time under waitUntil.
      // wrangler dev's /__scheduled passes the current time, not the minute: read it as the
      // trigger's latest fire (a real Cron Trigger's scheduledTime already is one). One ahead
      // of the isolate's clock is ticked at the clock (the engine's rule), and the run-ahead
      // runs its slot when the clock reaches it: no tolerance is needed here.
      const now = triggerSlot(controller.cron, controller.scheduledTime);
      const until = runAheadUntil(controller.cron, now);
      const done = during(env, ctx, ({ scheduler }) => scheduler.tick(now, { until })).then(() => {});
      ctx.waitUntil(done);
      return done;
    },
  };
}
