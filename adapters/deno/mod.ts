/**
 * edgecron on Deno and Deno Deploy: one `Deno.cron` trigger (every minute by default)
 * calls `scheduler.tick()`, and `Deno.serve` serves the router.
 *
 * Deno.cron hands its handler no slot time, so the tick takes the trigger's latest fire
 * (what Workers pass as `scheduledTime`); claims make a double delivery (or two isolates
 * firing at once) harmless.
 *
 * @module
 */
import { runAheadUntil, triggerSlot } from "../../src/engine/tick/run_ahead.ts";
import type { Scheduler, TickReport } from "../../src/engine/types.ts";
import { type Client, createClient } from "@libsql/client/web";
import { quote, SchedulerError } from "../../src/core/errors.ts";
import { redactUrl } from "../../src/store/libsql/client.ts";
import { denoKvStore, type KvLike } from "../../src/store/deno-kv/mod.ts";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import { memoryStore } from "../../src/store/memory/mod.ts";
import type { Store } from "../../src/store/types.ts";
import { appFor, type AppOptions, setClientAddress } from "../_app.ts";
import { createShutdown, type ShutdownOptions } from "../_lifecycle.ts";
import { announce, DEFAULT_HOSTNAME, listenError, listenUrl } from "../_listen.ts";
export { resolveHost } from "./resolve.ts";

/** Options of `serveDeno`. */
export interface DenoServeOptions extends AppOptions, ShutdownOptions {
  /** The `Deno.cron` schedule that triggers ticks; default `"* * * * *"`. */
  trigger?: string;
  /** The `Deno.cron` name; default `"edgecron tick"`. */
  name?: string;
  /**
   * `Deno.serve` options, or false to serve nothing; default `{ port: 8787, hostname: "127.0.0.1" }`
   * (loopback, as the Node and Bun adapters). On Deno Deploy the platform binds: no port or host is passed.
   */
  serve?: false | { port?: number; hostname?: string };
  /**
   * Also run timer mode, for a long-lived `deno run` process whose jobs fire more often
   * than the trigger; default false (Deno Deploy isolates are not long-lived).
   */
  timer?: boolean;
  /**
   * Tick once at start-up, at the clock's time (the tick waits for the store); default false. The first
   * `Deno.cron` call registers new jobs and runs its own slot; this start-up tick only
   * catches up earlier (by each job's catch-up policy) on slots missed while no isolate ran.
   */
  tickOnStart?: boolean;
  /** Stop gracefully on SIGINT/SIGTERM and exit 0 (local processes); default true. */
  signals?: boolean;
  /** Called after every triggered tick. */
  onTick?: (report: TickReport) => void;
  /** Called once listening. */
  onListen?: (info: { url: string; port: number }) => void;
}

/** What `serveDeno` started. */
export interface DenoHandle {
  /**
   * Resolves when the store is initialised; rejects with the boot's `store-error` when it
   * could not be (the trigger and requests keep trying, and the first to succeed carries on).
   */
  ready: Promise<void>;
  /** The HTTP server, unless `serve: false`. */
  server: Deno.HttpServer | undefined;
  /** The graceful stop (idempotent). */
  shutdown(): Promise<void>;
}

/**
 * Registers the `Deno.cron` trigger and serves the router. Call it at the top level of
 * your main module, synchronously: Deno Deploy discovers cron triggers while the module
 * loads.
 *
 * @throws `Error` when `Deno.cron` is missing (`deno run` without `--unstable-cron`);
 * {SchedulerError} `invalid-spec` without a token or `router: { public: true }`.
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { serveDeno } from "edgecron/deno";
 *
 * const scheduler = createScheduler().job("cleanup", { schedule: "0 3 * * *", run: () => console.log("cleanup") });
 * const token = Deno.env.get("EDGECRON_TOKEN");
 * serveDeno(scheduler, token === undefined ? {} : { token });
 * ```
 */
export function serveDeno(scheduler: Scheduler, options: DenoServeOptions = {}): DenoHandle {
  const { trigger = "* * * * *", name = "edgecron tick", timer = false, signals = true, tickOnStart = false } = options;
  if (typeof Deno.cron !== "function") {
    throw new Error("edgecron/deno: Deno.cron is not available; run with --unstable-cron (or deploy to Deno Deploy)");
  }
  // A trigger's tick is at its scheduled time (Deno.cron hands no time, so: the trigger's
  // latest fire, as Workers' scheduledTime), then runs ahead to its next fire, so
  // sub-minute slots run at their time while the handler is awaited.
  // tick() initialises the store itself and retries an init that failed, so a store
  // down at boot is taken up by the first trigger after it is back.
  const tick = async (now: number | undefined): Promise<void> => {
    const report = await scheduler.tick(now, { until: runAheadUntil(trigger, now ?? Date.now()) });
    options.onTick?.(report);
  };
  // Before anything is registered: a missing token throws with no trigger left behind.
  const app = appFor(scheduler, options);
  const ready = scheduler.ready();
  // A store down at boot is logged by the scheduler (store-error) and retried by every
  // tick and request; left unhandled, this rejection would end the process.
  const settled = ready.catch(() => {});
  // Aborted by shutdown(): a stopped handle's trigger ran its jobs every minute on.
  const unregister = new AbortController();
  Deno.cron(name, trigger, { signal: unregister.signal }, async () => {
    await tick(triggerSlot(trigger, Date.now()));
  });
  if (tickOnStart) void tick(undefined);

  const onDeploy = onDenoDeploy();
  const serveOptions = options.serve === false
    ? undefined
    : onDeploy
    ? { ...options.serve }
    : { port: 8787, hostname: DEFAULT_HOSTNAME, ...options.serve };
  let server: Deno.HttpServer | undefined;
  if (serveOptions !== undefined) {
    try {
      server = Deno.serve({
        ...serveOptions,
        onListen: ({ hostname, port }) => {
          const url = listenUrl(hostname, port);
          announce(scheduler, url);
          options.onListen?.({ url, port });
        },
      }, async (request, info) => {
        // Settled either way: after a failed init, the router's calls try again themselves.
        await settled;
        return app.fetch(
          setClientAddress(request, "hostname" in info.remoteAddr ? info.remoteAddr.hostname : undefined),
        );
      });
    } catch (error) {
      throw listenError(error, serveOptions.port ?? 8787, serveOptions.hostname ?? DEFAULT_HOSTNAME, "serveDeno");
    }
  }
  // Its first tick waits for the store (and retries it) itself.
  if (timer) scheduler.start();

  const stop = createShutdown(scheduler, () => closeServer(server), {
    ...options,
    onError: (step, error) => console.error(`edgecron: ${step} failed:`, error),
  });
  const shutdown = (): Promise<void> => {
    unregister.abort();
    return stop();
  };
  if (signals) {
    // As bindSignals does on Node and Bun; Deno Deploy and Windows (SIGTERM) refuse some
    // listeners, and the platform stops us there.
    let signalled = false;
    const onSignal = (signal: Deno.Signal): void => {
      console.error(
        `edgecron: ${signal}${signalled ? " again, exiting now" : ": stopping (runs settle, then the store closes)"}`,
      );
      if (signalled) Deno.exit(1);
      signalled = true;
      void shutdown().then(() => Deno.exit(0));
    };
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      try {
        Deno.addSignalListener(signal, () => onSignal(signal));
      } catch {
        // Refused here: the platform stops us.
      }
    }
  }
  return { ready, server, shutdown };
}

/**
 * `server.shutdown()`, waited for at most 2 s before the store closes. Deno's shutdown waits for
 * every request in flight to finish, so a client that trickles a body a byte at a time
 * held a SIGTERM open for as long as it liked; Node and Bun close such connections at once.
 */
async function closeServer(server: Deno.HttpServer | undefined): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  // (A shutdown that throws leaves the timer to run out: 2 s, and nothing else.)
  await Promise.race([server?.shutdown(), new Promise((resolve) => timer = setTimeout(resolve, 2_000))]);
  clearTimeout(timer);
}

/** True on Deno Deploy (it sets `DENO_DEPLOYMENT_ID`); asked without a permission prompt. */
function onDenoDeploy(): boolean {
  try {
    if (Deno.permissions.querySync({ name: "env", variable: "DENO_DEPLOYMENT_ID" }).state !== "granted") return false;
    return Deno.env.get("DENO_DEPLOYMENT_ID") !== undefined;
  } catch {
    return false;
  }
}

/** Options of `denoStore`. */
export interface DenoStoreOptions {
  /** Passed to `Deno.openKv(path)`; default: the platform's KV (on Deno Deploy, the app's own database). */
  kvPath?: string;
}

/**
 * The shared store for a Deno app, with zero configuration: libSQL when `LIBSQL_URL` is
 * set (with `LIBSQL_AUTH_TOKEN`; HTTP client, no native code), otherwise Deno KV from
 * `Deno.openKv()`, which every isolate of a Deno Deploy app shares, so each slot runs
 * once. Where KV is unavailable (`deno run` without `--unstable-kv`) it warns and falls
 * back to an in-memory store, which is per process and not exactly-once.
 *
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { denoStore, serveDeno } from "edgecron/deno";
 *
 * const scheduler = createScheduler({ store: denoStore() })
 *   .job("report", { schedule: "0 8 * * 1", run: () => console.log("weekly report") });
 * serveDeno(scheduler, { token: Deno.env.get("EDGECRON_TOKEN") ?? "" });
 * ```
 */
export function denoStore(options: DenoStoreOptions = {}): Store {
  const url = Deno.env.get("LIBSQL_URL");
  if (url) return libsqlStore({ client: webClient(url, Deno.env.get("LIBSQL_AUTH_TOKEN") ?? "") });
  const openKv = (Deno as unknown as { openKv?: (path?: string) => Promise<KvLike> }).openKv;
  if (typeof openKv !== "function") {
    console.error(
      "edgecron: Deno KV is unavailable (run with --unstable-kv); using an in-memory store, not shared between processes",
    );
    return memoryStore();
  }
  // A function, so an open that failed (a KV folder missing at boot) is tried again by the next call.
  return denoKvStore(() => openKv.call(Deno, options.kvPath), { closeKv: true });
}

/**
 * The libSQL HTTP client for `LIBSQL_URL`.
 *
 * @throws {SchedulerError} `invalid-spec` naming `LIBSQL_URL` (password and token hidden)
 * when the client refuses the URL: the driver's own error quoted it whole, token included,
 * and named no variable.
 */
function webClient(url: string, authToken: string): Client {
  try {
    return createClient({ url, authToken });
  } catch {
    throw new SchedulerError(
      "invalid-spec",
      `LIBSQL_URL: expected a libsql:, https: or wss: URL, got ${quote(redactUrl(url))}`,
      { path: "LIBSQL_URL" },
    );
  }
}
