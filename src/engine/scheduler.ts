/** `createScheduler()`: composes the engine's concepts and exposes the public API. */
import { quote, SchedulerError } from "../core/errors.ts";
import { parseDuration } from "../core/duration.ts";
import { createMemoryStore } from "../store/memory/mod.ts";
import { checkName, JOB_NAME } from "./jobs/schema.ts";
import { systemClock } from "./clock.ts";
import { consoleLogger, createEmitter, logEvent, safeLogger } from "./events.ts";
import { errorText, jobLabel } from "./text.ts";
import { createStoreHealth } from "./store/health.ts";
import { createJobViews } from "./jobs/info.ts";
import { createPromoter } from "./run/overlap.ts";
import { signingKey } from "../webhook/keys.ts";
import { planBackfill, runBackfill } from "./backfill.ts";
import { createLease } from "./run/lease.ts";
import { manualRun } from "./run/manual.ts";
import { concurrencyOf, leasePolicy, storeTimeoutOf } from "./options.ts";
import { mergeRounds } from "./tick/report.ts";
import { createOutcomeWriter } from "./run/outcomes.ts";
import { createReconciler } from "./tick/reconcile.ts";
import { createJobRegistry } from "./jobs/registry.ts";
import { sleep } from "./run/sleep.ts";
import { dataSpecJson, resolveDataJob, resolveDefaults } from "./jobs/spec.ts";
import { stopRuns } from "./run/stop.ts";
import { createTicker, type StartedTick } from "./tick/tick.ts";
import { createTimerLoop } from "./tick/timer.ts";
import { runAhead } from "./tick/run_ahead.ts";
import { startsOf } from "./tick/jitter.ts";
import { createRunTracker } from "./run/tracker.ts";
import type { PauseOptions, Scheduler, SchedulerEvent, SchedulerOptions, TickReport } from "./types.ts";
import { pauseInfo } from "./jobs/pause.ts";
import { historyWarnRowsOf, warnHistory } from "./jobs/history.ts";
import { deliverWebhook } from "../webhook/deliver.ts";
import { checkTargetUrl, resolveWebhookPolicy } from "../webhook/policy.ts";

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
  const log = safeLogger(options.logger ?? consoleLogger());
  const listener = createEmitter(options.onEvent, log);
  const emit = (event: SchedulerEvent): void => {
    logEvent(log, event);
    listener(event);
  };
  const node = options.node ?? crypto.randomUUID();
  if (typeof node !== "string" || !JOB_NAME.test(node)) {
    throw new SchedulerError(
      "invalid-name",
      `node: expected 1-128 characters of A-Z a-z 0-9 . _ : -, got ${quote(String(node))}`,
      {
        path: "node",
      },
    );
  }
  const fetcher = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  const webhooks = resolveWebhookPolicy(options.webhooks);
  // Checked at creation, so a bad key list fails at start-up, not at the first delivery.
  const signing = options.webhookSecret === undefined ? undefined : signingKey(options.webhookSecret);
  const clock = options.clock ?? systemClock();
  const at = (field: string) => ({ code: "invalid-spec" as const, field, path: field });
  const defaults = resolveDefaults(options.defaults);
  const policy = leasePolicy(options, at);
  const concurrency = concurrencyOf(options);
  const storeTimeoutMs = storeTimeoutOf(options, at);
  const retentionMs = parseDuration(options.retention ?? "7d", { ...at("retention"), min: 1 });
  const historyWarnRows = historyWarnRowsOf(options.historyWarnRows);

  const raw = options.store ?? createMemoryStore();
  if (storeTimeoutMs !== Infinity) raw.setCallTimeout?.(storeTimeoutMs);
  const health = createStoreHealth(raw, { clock, timeoutMs: storeTimeoutMs, emit });
  const store = health.store;
  const registry = createJobRegistry({
    defaults,
    log,
    deliver: (job, ctx) => {
      if (options.webhookSecret === undefined) {
        throw new SchedulerError(
          "invalid-spec",
          "webhookSecret is not configured: data-defined jobs cannot run on this node",
        );
      }
      return deliverWebhook(job.target, ctx, {
        fetch: fetcher,
        secret: signing!,
        nowMs: clock.now(),
        policy: webhooks,
      });
    },
  });
  const tracker = createRunTracker();
  const writer = createOutcomeWriter({
    store,
    log,
    maxWaitMs: policy.heartbeatMs,
    sleep: (ms) => sleep({ clock, tracker }, ms),
  });
  const lease = createLease({ store, clock, node, policy, tracker, writer, log });
  const runner = { store, clock, log, emit, registry, lease, tracker, node };
  const reconciler = createReconciler({ store, clock, node, registry, lease, tracker, emit });
  const promoter = createPromoter(runner);
  const ticker = createTicker({ ...runner, reconciler, promoter, concurrency, retentionMs });
  const views = createJobViews({ store, clock, registry });

  let initialised: Promise<void> | undefined;
  const ready = (): Promise<
    void
  > => (initialised ??= store.init().then(() =>
    warnHistory(registry.all(), clock.now(), retentionMs, historyWarnRows, log)
  ).catch((e: unknown) => {
    initialised = undefined;
    throw e;
  }));
  const begin = async (now: number): Promise<StartedTick> => {
    try {
      await ready();
    } catch {
      // The snapshot that follows fails the same way and reports it.
    }
    views.invalidate();
    try {
      return await ticker.start(now);
    } catch (e) {
      // Only a broken user-supplied Schedule object can get here; tick() still never rejects.
      const error = errorText(e);
      log.error("tick failed", { error });
      const report: TickReport = { now, node, ok: false, error, jobs: {} };
      return { report, settled: Promise.resolve(report) };
    }
  };
  // Room to claim at least half the capacity: when the next round of a tick is worth claiming.
  const hasRoom = (): boolean => ticker.hasRoom();
  // The next round of the last tick's plan (its node was at capacity): no snapshot.
  const more = async (): Promise<StartedTick> => {
    views.invalidate();
    try {
      return await ticker.more();
    } catch (e) {
      const error = errorText(e);
      log.error("tick failed", { error });
      const report: TickReport = { now: clock.now(), node, ok: false, error, jobs: {} };
      return { report, settled: Promise.resolve(report) };
    }
  };
  const timer = createTimerLoop(
    {
      clock,
      log,
      jobs: () => registry.all(),
      version: () => registry.version,
      onCapacity: (wake) =>
        tracker.onSettle(() => {
          if (hasRoom()) wake();
        }),
      hasCapacity: hasRoom,
    },
    begin,
    more,
  );
  // Run-ahead loops in flight (platform triggers); stop() aborts them.
  const aheads = new Set<AbortController>();
  const runAheadOn = options.runAhead ?? true;
  // Resolves once at least half the capacity is free (at once when it is).
  const roomWaiters: (() => void)[] = [];
  tracker.onSettle(() => {
    if (hasRoom()) { for (const resolve of roomWaiters.splice(0)) resolve(); }
  });
  const room = (): Promise<
    void
  > => (hasRoom() ? Promise.resolve() : new Promise((resolve) => roomWaiters.push(resolve)));
  // One trigger's tick: a node at its capacity left due slots, so (a platform trigger
  // ticks once a minute) it takes them in further rounds of the same plan as its runs
  // free capacity, without waiting for a round's outcomes to be written.
  const tickRounds = async (at: number, begun = begin(at)): Promise<TickReport> => {
    const started = [await begun];
    let last = started[0]!.report;
    while ((last.deferred ?? 0) > 0 && last.ok) {
      await room();
      const next = await more();
      if (Object.keys(next.report.jobs).length === 0) break;
      started.push(next);
      last = next.report;
    }
    const [first, ...rest] = await Promise.all(started.map((s) => s.settled));
    for (const round of rest) mergeRounds(first!, round);
    if (rest.length > 0) {
      if (last.deferred === undefined) delete first!.deferred;
      else first!.deferred = last.deferred;
    }
    return first!;
  };

  const scheduler: Scheduler = {
    node,
    log,
    ready,
    close: () => store.close(),
    job(name, spec) {
      registry.addCode(name, spec);
      return scheduler;
    },
    async tick(now, opts = {}) {
      const at = now ?? clock.now();
      if (opts.until === undefined || !runAheadOn || opts.until <= at) return tickRounds(at);
      const claimed = begin(at);
      const main = tickRounds(at, claimed);
      const controller = new AbortController();
      aheads.add(controller);
      const jobs = () =>
        registry.all().filter((job) => job.enabled).map((job) => ({ name: job.name, schedule: startsOf(job) }));
      const quiet = (names: readonly string[]) => tracker.settledOf(names);
      try {
        const [report] = await Promise.all([
          main,
          runAhead({ clock, begin, signal: controller.signal, jobs, quiet }, at, opts.until, claimed),
        ]);
        return report;
      } finally {
        aheads.delete(controller);
      }
    },
    start: () => timer.start(),
    async stop(opts = {}) {
      for (const controller of aheads) controller.abort();
      await timer.stop();
      // Claims queued and not started are released: no new run starts while stopping.
      await ticker.drop();
      await stopRuns(tracker, clock, {
        graceMs: parseDuration(opts.grace ?? "10s", at("grace")),
        deadlineMs: parseDuration(opts.deadline ?? "30s", at("deadline")),
      });
      // Runs still going past the deadline are given up: no more renewals, so their
      // leases end within one lease and any node takes the slots over.
      lease.abandon();
    },
    async list(opts = {}) {
      await ready();
      return views.list(opts);
    },
    async get(name, opts = {}) {
      await ready();
      return views.get(name, opts);
    },
    async run(name, opts = {}) {
      await ready();
      return manualRun(runner, name, opts.mode ?? "force");
    },
    async backfill(name, opts) {
      await ready();
      const job = registry.get(name);
      if (job === undefined) {
        throw new SchedulerError("unknown-job", `no job named ${JSON.stringify(name)}`, { path: "name" });
      }
      const plan = planBackfill(job, opts, clock.now());
      opts.onPlan?.(plan.slots);
      return runBackfill({ ...runner, promoter }, job, plan, opts.signal);
    },
    pause: (name, opts) => setPaused(name, true, opts),
    resume: (name) => setPaused(name, false),
    async runs(name, query) {
      await ready();
      return store.runs(name, query);
    },
    async define(name, spec, opts = {}) {
      checkName(name);
      if (registry.isCode(name)) {
        throw new SchedulerError("conflict", `${jobLabel(name)} is a code-defined job`, { path: "name" });
      }
      const job = resolveDataJob(name, spec, defaults);
      checkTargetUrl(job.target.url, webhooks, `jobs.${name}.target.url`);
      // Refused here rather than accepted and failed at every run: this node could not sign one delivery.
      if (options.webhookSecret === undefined) {
        throw new SchedulerError(
          "invalid-spec",
          `webhookSecret: ${
            jobLabel(name)
          } is a webhook job, and this scheduler has no webhookSecret to sign its deliveries; pass createScheduler({ webhookSecret })`,
          { path: "webhookSecret" },
        );
      }
      // Computed before the store call: a failure here is the caller's input, not the store's.
      const json = dataSpecJson(job, spec);
      await ready();
      const def = await store.putDef(name, json, clock.now(), opts);
      registry.setData(name, registry.resolveDef(def));
      return (await views.get(name))!;
    },
    async undefine(name) {
      await ready();
      const removed = await store.deleteDef(name);
      registry.setData(name, undefined);
      return removed;
    },
    async getSetting(key) {
      await ready();
      return store.getSetting(key);
    },
    async putSetting(key, value) {
      await ready();
      await store.putSetting(key, value);
    },
    async health() {
      return {
        ok: health.ok,
        node,
        store: health.ok ? "ok" : "error",
        lastTick: ticker.lastTick,
        lastError: health.lastError,
        jobs: registry.all().length,
        running: timer.running,
      };
    },
  };

  async function setPaused(name: string, paused: boolean, opts?: PauseOptions): Promise<void> {
    await ready();
    if (registry.get(name) === undefined) {
      const def = await store.getDef(name);
      if (def === undefined) {
        throw new SchedulerError("unknown-job", `no job named ${JSON.stringify(name)}`, { path: "name" });
      }
    }
    const info = pauseInfo(opts);
    await store.setPaused(name, paused, clock.now(), info);
  }
  return scheduler;
}
