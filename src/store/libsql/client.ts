/**
 * The libSQL connection side: resolving options once, opening the client lazily,
 * retrying lock contention, and turning every driver failure into a `store-error`.
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
  open: () => Promise<Client>;
  /** Whether `close()` closes the client (only when the store created it). */
  owned: boolean;
}

const SCHEMES = ["file:", "libsql:", "https:", "http:", "wss:", "ws:"];

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
    return { open: async () => client, owned: false };
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
      return createClient({ url, ...(authToken === undefined ? {} : { authToken }), timeout: busyTimeout });
    },
    owned: true,
  };
}

/** SQLITE_BUSY and its variants: another connection holds the lock; the statement did nothing. */
export function isBusy(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  const message = typeof e?.message === "string" ? e.message : "";
  return code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED") || /database is locked|SQLITE_BUSY/i.test(message);
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn`, retrying while the database reports lock contention. Every statement
 * batch the store sends is atomic, so a busy failure wrote nothing and a retry is safe.
 * Any other failure becomes `SchedulerError("store-error")` with the driver error as cause.
 */
export async function withRetry<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 0;; attempt += 1) {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof SchedulerError) throw error;
      if (isBusy(error) && attempt < 40) {
        // Jittered, capped backoff (~4 s in all) so contending processes spread out.
        await pause(Math.min(2 ** attempt, 100) * (0.5 + Math.random()));
        continue;
      }
      throw storeError(operation, error);
    }
  }
}

/** Wraps a driver failure. The message carries the driver's code and text, never credentials. */
export function storeError(operation: string, cause: unknown): SchedulerError {
  const e = cause as { code?: unknown; message?: unknown } | null;
  const text = typeof e?.message === "string" ? e.message : String(cause);
  // LibsqlError messages already start with their code.
  const code = typeof e?.code === "string" && !text.startsWith(e.code) ? `${e.code}: ` : "";
  return new SchedulerError("store-error", `libsql: ${operation} failed: ${code}${text}`, { cause });
}
