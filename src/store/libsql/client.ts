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
 * @throws {SchedulerError} `invalid-spec` for a URL with an unsupported scheme or a bad timeout.
 */
export function resolveLibsqlOptions(options: LibsqlStoreOptions): ResolvedLibsqlOptions {
  if ("client" in options) {
    const client = options.client;
    if (client === null || typeof client !== "object" || typeof client.batch !== "function") {
      throw new SchedulerError("invalid-spec", `libsqlStore.client: expected an @libsql/client Client, got ${quote(client)}`, {
        path: "client",
      });
    }
    return { open: async () => client, owned: false, busyTimeout: 5_000 };
  }
  const url = options.url ?? "file:edgecron.db";
  if (typeof url !== "string" || !SCHEMES.some((scheme) => url.toLowerCase().startsWith(scheme))) {
    throw new SchedulerError(
      "invalid-spec",
      `libsqlStore.url: expected a file:, libsql:, https: or wss: URL, got ${quote(url)}`,
      { path: "url" },
    );
  }
  const busyTimeout = options.busyTimeout ?? 5_000;
  if (!Number.isSafeInteger(busyTimeout) || busyTimeout < 0) {
    throw new SchedulerError("invalid-spec", `libsqlStore.busyTimeout: expected milliseconds >= 0, got ${quote(busyTimeout)}`, {
      path: "busyTimeout",
    });
  }
  const authToken = options.authToken;
  return {
    // Loaded on first use, so a store given a `{ client }` (say `@libsql/client/web` on
    // Deno Deploy) never loads the driver's native embedded engine.
    open: async () => {
      const { createClient } = await import("@libsql/client");
      const timeout = Math.min(busyTimeout, NATIVE_WAIT_SLICE);
      return createClient({ url, ...(authToken === undefined ? {} : { authToken }), timeout });
    },
    owned: true,
    busyTimeout,
  };
}

/** SQLITE_BUSY and its variants: another connection holds the lock; the statement did nothing. */
export function isBusy(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  const message = typeof e?.message === "string" ? e.message : "";
  return code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED") || /database is locked|SQLITE_BUSY/i.test(message);
}

/** Wraps a driver failure. The message carries the driver's code and text, never credentials. */
export function storeError(operation: string, cause: unknown): SchedulerError {
  const e = cause as { code?: unknown; message?: unknown } | null;
  const text = typeof e?.message === "string" ? e.message : String(cause);
  // LibsqlError messages already start with their code.
  const code = typeof e?.code === "string" && !text.startsWith(e.code) ? `${e.code}: ` : "";
  return new SchedulerError("store-error", `libsql: ${operation} failed: ${code}${text}`, { cause });
}
