/**
 * The Postgres options: resolved once into the form the connection uses, with the
 * URL's credentials kept out of every message.
 */
import { quote, SchedulerError } from "../../core/errors.ts";
import type { PostgresSqlLike } from "./driver.ts";
import { checkOptionNames } from "./forms.ts";
import { allSecretsOf, checkReadable, redactUrl } from "./url.ts";

/** Options shared by both forms of `postgresStore`. */
interface CommonOptions {
  /**
   * The schema the tables live in, created when missing. Lower-case letters, digits and
   * `_`, starting with a letter or `_` but not `pg_`, at most 63 characters. Default `"edgecron"`.
   */
  schema?: string;
  /**
   * Use named prepared statements (each statement text is parsed once per connection).
   * Default true; set false behind a transaction-mode pooler that does not keep them
   * (PgBouncer before 1.21).
   */
  prepare?: boolean;
}

/** A postgres.js instance lent for one store call, and how to give it back. */
export interface PostgresLease {
  /** The instance the call runs its statements on. */
  sql: PostgresSqlLike;
  /** Called once when the call is done (successful or not); may end `sql`. */
  release(): void | Promise<void>;
}

/**
 * Options of `postgresStore`: a URL to connect to, a postgres.js `sql` you own, or a URL
 * with `lease`, which lends a connection per call instead of keeping a pool.
 */
export type PostgresStoreOptions =
  | CommonOptions & {
    /** `postgres://user:password@host:5432/db?sslmode=require` (or `postgresql://`). */
    url: string;
    /** The pool's most connections, 1 to 10 000. Default 10. */
    max?: number;
    /** How long opening a connection may take, in seconds (at most 2 147 483, the longest timer). Default 10. */
    connectTimeout?: number;
  }
  | CommonOptions & {
    /** A postgres.js (3.x) `sql` instance. The store never ends it: its owner does. */
    sql: PostgresSqlLike;
  }
  | CommonOptions & {
    /** Where `lease` connects; validated as for `{ url }`, and kept out of every message. */
    url: string;
    /**
     * Lends the postgres.js instance for one store call; the store calls the lease's
     * `release` when that call is done. For runtimes where a connection belongs to one
     * request and must not outlive it (Cloudflare Workers: `edgecron/cloudflare/postgres`).
     * The store keeps no connection between calls and ends none itself.
     */
    lease: (url: string) => PostgresLease | Promise<PostgresLease>;
  };

/** Where the store's connections come from: one pool for every call, or one lease per call. */
export type PostgresSource =
  | {
    /** Opens the pool (loading the driver for a URL); once per store. */
    open: () => Promise<PostgresSqlLike>;
    /** Whether the store created the pool (so it ends it on close). */
    owned: boolean;
  }
  | {
    /** Lends a connection for one call. */
    lend: () => Promise<PostgresLease>;
  };

/** The resolved form every later step sees. */
export type ResolvedPostgresOptions = PostgresSource & {
  /** The schema, validated. */
  schema: string;
  /** Texts to blank out of any error message (the URL's password and user info). */
  secrets: readonly string[];
  /** Whether statements are named prepared statements. */
  prepare: boolean;
};

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The most connections a pool may have. postgres.js makes every slot of the pool up
 * front (`max: 1e9` ran the process out of memory before any connection), and a server
 * takes at most 262 143 connections anyway.
 */
export const MAX_POOL = 10_000;
/** The longest `connectTimeout`, in seconds: a longer one overflows the runtime's timer, which then fires at once. */
export const MAX_CONNECT_TIMEOUT = 2_147_483;

function checkCount(value: unknown, field: string, max: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > max) {
    throw new SchedulerError(
      "invalid-spec",
      `postgresStore.${field}: expected an integer from 1 to ${max}, got ${quote(value)}`,
      {
        path: field,
      },
    );
  }
  return value;
}

/**
 * Normalises the options once.
 *
 * @throws {SchedulerError} `invalid-spec` for a URL that is not `postgres://` or
 * `postgresql://` or that the driver cannot read (bad port, unclosed `[`), a bad schema name, pool size or timeout, or a `sql` that is not a
 * postgres.js instance, an option name the form does not take (`shcema`, `max` beside
 * `sql`), and `url` beside `sql`. The URL in a message has its password blanked.
 */
export function resolvePostgresOptions(
  options: PostgresStoreOptions,
  load: () => Promise<PostgresFactory> = loadDriver,
): ResolvedPostgresOptions {
  if (options === null || typeof options !== "object") {
    throw new SchedulerError("invalid-spec", `postgresStore: expected { url } or { sql }, got ${quote(options)}`);
  }
  checkOptionNames(options);
  const schema = options.schema ?? "edgecron";
  if (typeof schema !== "string" || !SCHEMA.test(schema)) {
    throw new SchedulerError(
      "invalid-spec",
      `postgresStore.schema: expected lower-case letters, digits and _ (at most 63, not starting with a digit), got ${
        quote(schema)
      }`,
      { path: "schema" },
    );
  }
  // Postgres keeps pg_ names for itself: CREATE SCHEMA refuses them and pg_catalog refuses tables.
  if (schema.startsWith("pg_")) {
    throw new SchedulerError(
      "invalid-spec",
      `postgresStore.schema: names starting with pg_ are Postgres's own, got ${quote(schema)}`,
      { path: "schema" },
    );
  }
  const prepare = options.prepare ?? true;
  if (typeof prepare !== "boolean") {
    throw new SchedulerError("invalid-spec", `postgresStore.prepare: expected true or false, got ${quote(prepare)}`, {
      path: "prepare",
    });
  }
  if ("sql" in options) {
    const sql = options.sql;
    const candidate: unknown = sql;
    const methods = candidate as Partial<Record<"unsafe" | "begin", unknown>>;
    if (
      typeof candidate !== "function" || typeof methods.unsafe !== "function" || typeof methods.begin !== "function"
    ) {
      throw new SchedulerError(
        "invalid-spec",
        `postgresStore.sql: expected a postgres.js sql instance, got ${quote(sql)}`,
        {
          path: "sql",
        },
      );
    }
    return { open: async () => sql, owned: false, schema, secrets: [], prepare };
  }
  const url: unknown = options.url;
  if (typeof url !== "string" || !/^postgres(ql)?:\/\//i.test(url)) {
    const shown = typeof url === "string" ? redactUrl(url) : url;
    throw new SchedulerError(
      "invalid-spec",
      `postgresStore.url: expected a postgres:// or postgresql:// URL, got ${quote(shown)}`,
      {
        path: "url",
      },
    );
  }
  checkReadable(url);
  const secrets = allSecretsOf(url);
  if ("lease" in options) {
    const lease: unknown = options.lease;
    if (typeof lease !== "function") {
      throw new SchedulerError("invalid-spec", `postgresStore.lease: expected a function, got ${quote(lease)}`, {
        path: "lease",
      });
    }
    const lendFor = options.lease;
    return { lend: async () => checkLease(await lendFor(url)), schema, secrets, prepare };
  }
  const max = checkCount(options.max ?? 10, "max", MAX_POOL);
  const connectTimeout = checkCount(options.connectTimeout ?? 10, "connectTimeout", MAX_CONNECT_TIMEOUT);
  return {
    open: async () => {
      const postgres = await load();
      return postgres(url, {
        max,
        prepare,
        connect_timeout: connectTimeout,
        // CREATE … IF NOT EXISTS and friends would print notices to the console.
        onnotice: () => {},
        connection: { application_name: "edgecron" },
      });
    },
    owned: true,
    schema,
    secrets,
    prepare,
  };
}

function checkLease(lease: unknown): PostgresLease {
  const candidate = lease as { sql?: unknown; release?: unknown } | null;
  const sql: unknown = candidate?.sql;
  const methods = sql as { unsafe?: unknown; begin?: unknown } | undefined;
  if (
    candidate === null || typeof candidate !== "object" || typeof sql !== "function" ||
    typeof methods?.unsafe !== "function" || typeof methods.begin !== "function" ||
    typeof candidate.release !== "function"
  ) {
    throw new SchedulerError(
      "invalid-spec",
      `postgresStore.lease: expected it to return { sql, release }, got ${quote(lease)}`,
      { path: "lease" },
    );
  }
  return lease as PostgresLease;
}

/** The postgres.js default export, as far as the store calls it. */
export type PostgresFactory = (url: string, options: Record<string, unknown>) => PostgresSqlLike;

/**
 * Loads postgres.js on first use, so the core and the other stores never carry it.
 *
 * @throws {SchedulerError} `store-error` naming the package when it is not installed.
 */
export async function loadDriver(): Promise<PostgresFactory> {
  try {
    const mod = await import("postgres");
    return mod.default as unknown as PostgresFactory;
  } catch (cause) {
    throw missingDriver(cause);
  }
}

/** The error for a missing `postgres` package. */
export function missingDriver(cause: unknown): SchedulerError {
  return new SchedulerError(
    "store-error",
    'postgres: the "postgres" package (postgres.js 3.x) is not installed; edgecron/postgres needs it: npm install postgres',
    { cause },
  );
}
