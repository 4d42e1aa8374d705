/**
 * The libSQL options: resolving them once, recognising lock contention, and turning
 * every driver failure into a `store-error`.
 */
import type { Client } from "@libsql/client";
import { quote, SchedulerError } from "../../core/errors.ts";

/** Options of `libsqlStore`: a URL to connect to, or a client you own. */
export type LibsqlStoreOptions =
  | {
    /** `file:path.db` (embedded), `libsql://…` or `https://…` (Turso, sqld). Default `"file:edgecron.db"`. */
    url?: string;
    authToken?: string;
    /** How long a `file:` connection waits for another writer's lock, in ms. Default 5000. */
    busyTimeout?: number;
  }
  | {
    /** An `@libsql/client` client. The store never closes it: its owner does. */
    client: Client;
  };

/** The resolved form every later step sees. */
export interface ResolvedLibsqlOptions {
  /** Opens a client; for a store-owned client, a fresh one on every call. */
  open: () => Promise<Client>;
  /** Whether the store created the client (so it may close and reopen it). */
  owned: boolean;
  /** How long one call waits in all for another writer's lock, in ms. */
  busyTimeout: number;
  /** The URL without credentials, for error messages (undefined for a `{ client }`). */
  where?: string;
}

const SCHEMES = ["file:", "libsql:", "https:", "http:", "wss:", "ws:"];

/**
 * The longest one native lock wait may block, in ms. The embedded driver waits for a
 * lock synchronously, freezing the event loop; so the driver waits at most this long
 * and the store waits the rest of `busyTimeout` asynchronously, between retries.
 */
export const NATIVE_WAIT_SLICE = 20;

/**
 * Normalises the options once.
 *
 * @throws {SchedulerError} `invalid-spec` for a URL with an unsupported scheme, a `file:`
 *   URL with no file, a remote URL with no host, or a bad timeout.
 */
export function resolveLibsqlOptions(options: LibsqlStoreOptions): ResolvedLibsqlOptions {
  if ("client" in options) {
    const client = options.client;
    if (client === null || typeof client !== "object" || typeof client.batch !== "function") {
      throw new SchedulerError(
        "invalid-spec",
        `libsqlStore.client: expected an @libsql/client Client, got ${quote(client)}`,
        {
          path: "client",
        },
      );
    }
    return { open: async () => client, owned: false, busyTimeout: 5_000 };
  }
  const url = options.url ?? "file:edgecron.db";
  if (typeof url !== "string" || !SCHEMES.some((scheme) => url.toLowerCase().startsWith(scheme))) {
    throw new SchedulerError(
      "invalid-spec",
      `libsqlStore.url: expected a file:, libsql:, https:, http:, wss: or ws: URL, got ${
        quote(typeof url === "string" ? redactUrl(url) : url)
      }`,
      { path: "url" },
    );
  }
  // `file:` alone opened an unnamed database: nothing on disk, nothing shared between processes.
  if (/^file:(\/\/)?(\?.*)?$/i.test(url)) {
    throw new SchedulerError(
      "invalid-spec",
      `libsqlStore.url: ${quote(redactUrl(url))} names no file; say "file:edgecron.db"`,
      {
        path: "url",
      },
    );
  }
  // The driver took `libsql://` and failed only at init, as a store-error.
  if (!/^file:/i.test(url) && remoteHost(url) === "") {
    throw new SchedulerError(
      "invalid-spec",
      `libsqlStore.url: ${quote(redactUrl(url))} names no host; say "libsql://<database>.turso.io" or ` +
        `"http://127.0.0.1:8080"`,
      { path: "url" },
    );
  }
  const busyTimeout = options.busyTimeout ?? 5_000;
  if (!Number.isSafeInteger(busyTimeout) || busyTimeout < 0) {
    throw new SchedulerError(
      "invalid-spec",
      `libsqlStore.busyTimeout: expected milliseconds >= 0, got ${quote(busyTimeout)}`,
      {
        path: "busyTimeout",
      },
    );
  }
  const authToken = options.authToken;
  let driver: Promise<typeof import("@libsql/client")> | undefined;
  return {
    // Loaded on first use, so a store given a `{ client }` (say `@libsql/client/web` on
    // Deno Deploy) never loads the driver's native embedded engine.
    open: async () => {
      // A client is reopened after each lock failure: the module is imported once.
      const { createClient } = await (driver ??= import("@libsql/client"));
      const timeout = Math.min(busyTimeout, NATIVE_WAIT_SLICE);
      return createClient({ url, ...(authToken === undefined ? {} : { authToken }), timeout });
    },
    owned: true,
    busyTimeout,
    where: redactUrl(url),
  };
}

/**
 * The host of a remote URL as the driver reads it (`scheme://[user[:password]@]host[:port]`,
 * `[…]` around IPv6), or "" when there is none, `//` included.
 */
function remoteHost(url: string): string {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1];
  if (authority === undefined) return "";
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  return /^\[([^\]]*)\]/.exec(hostPort)?.[1] ?? hostPort.replace(/:.*$/, "");
}

/**
 * `url` without credentials: the user and password of `scheme://user:pass@host` (and of
 * `libsql:user:pass@host`, missing its `//`, outside `file:` URLs) and the values of `authToken`/`token`/`password`/`secret`-like query parameters become `***`.
 * Error messages and log lines show this form only. Text that is not a URL is returned
 * with anything before an `@` masked, in case it still carries a password.
 *
 * @example redactUrl("postgres://u:p@localhost/db") // "postgres://***@localhost/db"
 */
export function redactUrl(url: string): string {
  const withoutUser = url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, "$1***@")
    // No `//`: the host check refuses such a URL and quotes it.
    .replace(/^((?!file:)[a-z][a-z0-9+.-]*:)(?!\/\/)[^?#]*@/i, "$1***@");
  return withoutUser.replace(/([?&][^=&#]*(?:token|password|passwd|pass|secret|key|auth)[^=&#]*=)[^&#]*/gi, "$1***");
}

/** SQLITE_BUSY and its variants: another connection holds the lock; the statement did nothing. */
export function isBusy(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  const message = typeof e?.message === "string" ? e.message : "";
  return code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED") ||
    /database is locked|SQLITE_BUSY/i.test(message);
}

/**
 * Wraps a driver failure. The message carries the driver's code and text, the URL it
 * failed on and the underlying cause (`fetch failed (connect ECONNREFUSED …)`), and a
 * `file:` database whose folder is missing says so; never credentials.
 */
export function storeError(operation: string, cause: unknown, where?: string): SchedulerError {
  const e = cause as { code?: unknown; message?: unknown; cause?: unknown } | null;
  let text = typeof e?.message === "string" ? e.message : String(cause);
  // LibsqlError messages already start with their code.
  const code = typeof e?.code === "string" && !text.startsWith(e.code) ? `${e.code}: ` : "";
  const inner = causeText(e?.cause);
  if (inner !== "" && !text.includes(inner)) text += ` (${inner})`;
  const at = where === undefined ? "" : ` on ${where}`;
  return new SchedulerError(
    "store-error",
    `libsql: ${operation} failed${at}: ${code}${scrub(text)}${folderHint(text, where)}`,
    { cause },
  );
}

/** The messages of an error's `cause` chain (undici puts the socket error there), at most 3 deep. */
function causeText(cause: unknown, depth = 0): string {
  if (depth === 3 || typeof cause !== "object" || cause === null) return "";
  const { message, code, cause: next } = cause as { message?: unknown; code?: unknown; cause?: unknown };
  const own = typeof message === "string" && message !== "" ? message : typeof code === "string" ? code : "";
  const deeper = causeText(next, depth + 1);
  return deeper === "" || own.includes(deeper) ? own : own === "" ? deeper : `${own}: ${deeper}`;
}

/** A driver message may quote a URL: no credentials leave through it. */
function scrub(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s?#@]*@/gi, "$1***@").replace(/(authToken=)[^&\s]*/gi, "$1***");
}

/** SQLite's "unable to open" (code 14) for a `file:` URL is almost always a missing folder. */
function folderHint(text: string, where: string | undefined): string {
  if (where === undefined || !/^file:/i.test(where) || !/unable to open|SQLITE_CANTOPEN|: 14\b/i.test(text)) return "";
  const path = where.replace(/^file:(\/\/)?/i, "").replace(/\?.*$/, "");
  const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  const folder = slash > 0 ? path.slice(0, slash) : ".";
  return `. The folder ${
    quote(folder)
  } does not exist or is not writable: create it first (the database file itself is created)`;
}
