/** `createScheduler()`: resolves the options once and wires the engine's rooms into the public API. */
import { checkWellFormed } from "../core/errors.ts";
import { createMemoryStore } from "../store/memory/mod.ts";
import { consoleLogger, createEmitter, logEvent, safeLogger } from "./events.ts";
import { checkOptionNames, resolveOptions } from "./options.ts";
import { createTriggers } from "./trigger.ts";
import { createReconciler } from "./tick/reconcile.ts";
import { createTicker } from "./tick/tick.ts";
import { createDataJobs, webhookHandler } from "./jobs/data.ts";
import { createJobViews } from "./jobs/info.ts";
import { createPauses } from "./jobs/pause.ts";
import { createJobRegistry } from "./jobs/registry.ts";
import { createBackfill } from "./run/backfill.ts";
import { createLease } from "./run/lease.ts";
import { createManualRuns } from "./run/manual.ts";
import { createOutcomeWriter } from "./run/outcomes.ts";
import { createPromoter } from "./run/overlap.ts";
import { sleep } from "./run/sleep.ts";
import { createStop } from "./run/stop.ts";
import { createRunTracker } from "./run/tracker.ts";
import { createStoreHealth } from "./store/health.ts";
import { createInit } from "./store/init.ts";
import type { Scheduler, SchedulerEvent, SchedulerOptions } from "./types.ts";

/**
 * Creates a scheduler. Nothing runs until `tick()` is called (platform triggers) or
 * `start()` arms timer mode.
 *
 * Options (all optional): `store` (default `createMemoryStore()`), `node` (default a
 * random UUID), `clock` (default the system clock), `logger` (default `consoleLogger()`),
 * `onEvent`, `defaults` (policy defaults for every job), `fetch` and `webhookSecret`
 * (webhook delivery of data-defined jobs), `lease` (default `"15s"`), `heartbeat`
 * (default a third of the lease), `leaseGrace` (default `"5s"`), `concurrency`
 * (default 200), `storeTimeout` (default `"30s"`: a store call that has not answered by
 * then fails as `store-error`), `retention` (default `"7d"`, never shorter than the
 * longest catch-up window).
 *
 * `tick(now)` resolves when every run it started has its outcome recorded, so a
 * platform trigger that awaits it (`ctx.waitUntil(scheduler.tick())`) keeps the
 * isolate alive for them. Timer mode does not wait for runs before re-arming.
 *
 * @throws {SchedulerError} `invalid-spec` for bad `defaults`, `lease`, `heartbeat`,
 * `leaseGrace`, `concurrency`, `storeTimeout` or `retention`; `invalid-name` for a bad `node`.
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { libsqlStore } from "edgecron/libsql";
 *
 * const scheduler = createScheduler({ store: libsqlStore({ url: "file:edgecron.db" }) })
 *   .job("nightly", { schedule: "0 3 * * *", timezone: "Europe/Paris", run: () => console.log("backup") });
 * scheduler.start();
 * ```
 */
export function createScheduler(options: SchedulerOptions = {}): Scheduler {
  checkOptionNames(options);
  const log = safeLogger(options.logger ?? consoleLogger());
  const listener = createEmitter(options.onEvent, log);
  const emit = (event: SchedulerEvent): void => {
    logEvent(log, event);
    listener(event);
  };
  const resolved = resolveOptions(options);
  const { node, clock, defaults, webhooks, signing, concurrency, retentionMs, storeTimeoutMs } = resolved;

  const raw = options.store ?? createMemoryStore();
  if (storeTimeoutMs !== Infinity) raw.setCallTimeout?.(storeTimeoutMs);
  const health = createStoreHealth(raw, {
    clock,
    timeoutMs: storeTimeoutMs,
    // A failed init is logged by `init`, backing off while the same error repeats; every one is an event.
    emit: (event, method) => (method === "init" ? listener(event) : emit(event)),
  });
  const store = health.store;
  const deliver = webhookHandler({ fetch: resolved.fetch, signing, webhooks, clock });
  const registry = createJobRegistry({ defaults, log, deliver });
  const tracker = createRunTracker();
  const sleepDeps = { clock, tracker };
  const writer = createOutcomeWriter({
    store,
    clock,
    log,
    maxWaitMs: resolved.policy.heartbeatMs,
    sleep: (ms, signal) => sleep(sleepDeps, ms, signal),
  });
  const lease = createLease({ store, clock, node, policy: resolved.policy, tracker, writer, log });
  const runner = { store, clock, log, emit, registry, lease, tracker, node };
  const reconciler = createReconciler({ store, clock, node, registry, lease, tracker, emit });
  const promoter = createPromoter(runner);
  const ticker = createTicker({ ...runner, reconciler, promoter, concurrency, retentionMs });
  const views = createJobViews({ store, clock, registry });
  const init = createInit({ store, registry, clock, log, retentionMs, historyWarnRows: resolved.historyWarnRows });
  const { ready } = init;
  const triggers = createTriggers({
    ...runner,
    ticker,
    views,
    ready,
    initFailures: () => init.failures,
    runAhead: resolved.runAhead,
    claimAheadMs: resolved.claimAheadMs,
    claimAheadJobs: resolved.claimAheadJobs,
  });
  const pauses = createPauses({ store, registry, clock, ready });
  const dataJobs = createDataJobs({ store, registry, views, clock, defaults, webhooks, signing, ready });
  // Every read waits for the store's schema first, like every other call that touches the store.
  const afterReady = <A extends unknown[], R>(read: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    await ready();
    return await read(...args);
  };

  const stop = createStop({ tracker, clock, lease, triggers, emit });
  const scheduler: Scheduler = {
    node,
    log,
    ready,
    // Without a stop() first, the timer kept ticking on the closed store (a store error
    // logged each time) and the runs in flight lost their outcomes unsaid: stopped now,
    // at once (each run still going is given up with a `lost` event).
    close: async () => {
      await stop({ grace: 0, deadline: 0 }, "close() (no stop() first)");
      await store.close();
    },
    job(name, spec) {
      registry.addCode(name, spec);
      return scheduler;
    },
    tick: triggers.tick,
    start: triggers.start,
    stop: (options) => stop(options),
    list: afterReady(views.list),
    get: afterReady(views.get),
    summaries: afterReady(views.summaries),
    run: createManualRuns({ ...runner, ready }),
    backfill: createBackfill({ ...runner, promoter, ready }),
    pause: pauses.pause,
    resume: pauses.resume,
    runs: afterReady(store.runs),
    define: dataJobs.define,
    undefine: dataJobs.undefine,
    getSetting: afterReady((key) => {
      checkWellFormed(key, "key");
      return store.getSetting(key);
    }),
    putSetting: afterReady((key, value) => {
      checkWellFormed(key, "key");
      checkWellFormed(value, "value");
      return store.putSetting(key, value);
    }),
    health: async () => {
      // Reads answer beside another process's write lock: after a failed write, one write
      // shows whether the store takes them again (`probe`).
      await health.probe();
      return {
        ok: health.ok,
        node,
        store: health.ok ? "ok" : "error",
        lastTick: ticker.lastTick,
        lastError: health.lastError,
        jobs: registry.count(),
        running: triggers.running,
      };
    },
  };
  return scheduler;
}
