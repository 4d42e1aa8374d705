/**
 * edgecron on Cloudflare Workers with Postgres (`edgecron/cloudflare/postgres`): the
 * Postgres store over a Hyperdrive binding or `DATABASE_URL`, with one connection per
 * event. workerd ties a socket to the event that opened it ("Cannot perform I/O on
 * behalf of a different request"), so no pool outlives an event: `cloudflareWorker`
 * runs each `fetch` and `scheduled` event with its own connection, opened on the
 * event's first query and ended with `ctx.waitUntil` when the event is done.
 *
 * Its own subpath because postgres.js on workerd imports `node:buffer`, `node:stream`
 * and `cloudflare:sockets`: a worker that imports this needs
 * `compatibility_flags = ["nodejs_compat"]`, and a worker on D1 or libSQL, which never
 * imports it, carries none of it.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import postgres from "postgres";
import { quote, SchedulerError } from "../../src/core/errors.ts";
import type { PostgresLease, PostgresSqlLike } from "../../src/store/postgres/mod.ts";
import { postgresStore } from "../../src/store/postgres/mod.ts";
import type { Store } from "../../src/store/types.ts";
import { type EventContext, wrapEvents } from "./_events.ts";

/** A Hyperdrive binding, as far as the store reads it. */
export interface HyperdriveLike {
  /** `postgres://user:password@host:port/db`, pointing at Hyperdrive's pool. */
  readonly connectionString: string;
}

/** The bindings `postgresFromEnv` reads. */
export interface PostgresEnv {
  /** A Hyperdrive binding (`[[hyperdrive]] binding = "HYPERDRIVE"`); preferred when bound. */
  HYPERDRIVE?: HyperdriveLike;
  /** `postgres://…?sslmode=require` (a secret: it carries the password), used without Hyperdrive. */
  DATABASE_URL?: string;
}

/** Options of `postgresFromEnv`. */
export interface PostgresFromEnvOptions {
  /** The Hyperdrive binding's name; default `"HYPERDRIVE"`. */
  binding?: string;
  /** The schema the tables live in; default `"edgecron"` (see `postgresStore`). */
  schema?: string;
  /** Connections one event may open; default 2 (a lease renewal need not wait behind a claim). */
  max?: number;
}

/** One event's connections, by URL; ended with the event. */
interface EventConnections {
  readonly open: Map<string, PostgresSqlLike>;
  ended: boolean;
}

// The event a store call belongs to. workerd carries it through promises and timers,
// so a lease renewal that fires mid-event finds its event's connection.
const events = new AsyncLocalStorage<EventConnections>();

const connectionOf = (url: string, max: number): PostgresSqlLike =>
  postgres(url, {
    max,
    // fetch_types stays on (Cloudflare suggests turning it off to save a round trip): without
    // the array types postgres.js sends a text[] parameter as "a,b", a malformed array.
    onnotice: () => {},
    connection: { application_name: "edgecron" },
  }) as unknown as PostgresSqlLike;

/** The connection for one store call: the event's own, or (outside any event) one for this call alone. */
function leaseFor(url: string, max: number): PostgresLease {
  const event = events.getStore();
  if (event !== undefined && !event.ended) {
    let sql = event.open.get(url);
    if (sql === undefined) {
      sql = connectionOf(url, max);
      event.open.set(url, sql);
    }
    return { sql, release: () => {} };
  }
  const sql = connectionOf(url, 1);
  return { sql, release: () => sql.end({ timeout: 5 }) };
}

/** Runs one event with its own connections, ended once its work is done. */
function withConnections<T>(ctx: EventContext, work: () => Promise<T>): Promise<T> {
  const event: EventConnections = { open: new Map(), ended: false };
  return events.run(event, async () => {
    try {
      return await work();
    } finally {
      event.ended = true;
      const ending = Promise.all([...event.open.values()].map((sql) => sql.end({ timeout: 5 }).catch(() => {})));
      ctx.waitUntil(ending);
    }
  });
}

function urlOf(env: PostgresEnv & Record<string, unknown>, binding: string): string {
  const hyperdrive = env[binding] as Partial<HyperdriveLike> | undefined;
  if (hyperdrive !== undefined && hyperdrive !== null) {
    if (typeof hyperdrive.connectionString === "string" && hyperdrive.connectionString !== "") {
      return hyperdrive.connectionString;
    }
    throw new SchedulerError(
      "invalid-spec",
      `env.${binding}: expected a Hyperdrive binding with a connectionString, got ${quote(typeof hyperdrive)}`,
      { path: `env.${binding}` },
    );
  }
  if (typeof env.DATABASE_URL === "string" && env.DATABASE_URL !== "") return env.DATABASE_URL;
  throw new SchedulerError(
    "invalid-spec",
    `env.${binding} / env.DATABASE_URL: expected a Hyperdrive binding or a postgres:// URL, got neither`,
    { path: "env.DATABASE_URL" },
  );
}

/**
 * The Postgres store for a worker: over the Hyperdrive binding (`HYPERDRIVE`, or
 * `options.binding`) when bound, else `DATABASE_URL`, with one connection per event.
 * Inside `cloudflareWorker` each event opens its connection on its first query and ends
 * it when done; a call made outside an event (your own handler) opens one for itself.
 * Pass the worker's `env` itself: the events are found by that object, and a copy
 * gets a connection per call.
 * Needs `compatibility_flags = ["nodejs_compat"]` and the `postgres` package.
 *
 * @throws {SchedulerError} `invalid-spec` when neither binding is set, or the URL or an
 * option is malformed (the URL's password is never shown).
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { cloudflareWorker } from "edgecron/cloudflare";
 * import { postgresFromEnv, type PostgresEnv } from "edgecron/cloudflare/postgres";
 *
 * export default cloudflareWorker((env: PostgresEnv) =>
 *   createScheduler({ store: postgresFromEnv(env) })
 *     .job("digest", { schedule: "0 8 * * *", timezone: "Europe/Paris", run: () => console.log("digest") }));
 * ```
 */
export function postgresFromEnv(env: PostgresEnv, options: PostgresFromEnvOptions = {}): Store {
  const binding = options.binding ?? "HYPERDRIVE";
  const max = options.max ?? 2;
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new SchedulerError("invalid-spec", `postgresFromEnv.max: expected an integer >= 1, got ${quote(max)}`, {
      path: "max",
    });
  }
  const url = urlOf(env as PostgresEnv & Record<string, unknown>, binding);
  const store = postgresStore({
    url,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    lease: (target) => leaseFor(target, max),
  });
  wrapEvents(env, withConnections);
  return store;
}
