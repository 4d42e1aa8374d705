/** `createScheduler()`: the job registry and the public API over tick, timer and store. */
import { quote, SchedulerError } from "../core/errors.ts";
import { parseDuration } from "../core/duration.ts";
import { createMemoryStore } from "../store/memory/mod.ts";
import { checkName, JOB_NAME } from "./_schema.ts";
import { allJobs, countersOf, type EngineState, storeCall } from "./_state.ts";
import { withDeadline } from "./store_deadline.ts";
import { systemClock } from "./clock.ts";
import { consoleLogger, createEmitter, errorText, jobLabel, logEvent, safeLogger } from "./events.ts";
import { describeJobs } from "./info.ts";
import { manualRun } from "./manual.ts";
import { dataSpecJson, resolveDataJob, resolveDefaults, resolveJob } from "./spec.ts";
import { stopRuns } from "./stop.ts";
import { type StartedTick, startTick } from "./tick.ts";
import { createTimerLoop } from "./timer.ts";
import type { RunContext, Scheduler, SchedulerEvent, SchedulerOptions, TickReport } from "./types.ts";
import { deliverWebhook } from "./webhook.ts";
import { checkTargetUrl, resolveWebhookPolicy } from "./webhook_policy.ts";

/**
 * Creates a scheduler. Nothing runs until `tick()` is called (platform triggers) or
 * `start()` arms timer mode.
 *
 * Options (all optional): `store` (default `createMemoryStore()`), `node` (default a
 * random UUID), `clock` (default the system clock), `logger` (default `consoleLogger()`),
 * `onEvent`, `defaults` (policy defaults for every job), `fetch` and `webhookSecret`
 * (webhook delivery of data-defined jobs), `leaseGrace` (default `"30s"`), `storeTimeout`
 * (default `"30s"`: a store call that has not answered by then fails as `store-error`),
 * `retention` (default `"7d"`, never shorter than the longest catch-up window).
 *
 * `tick(now)` resolves when every run it started has its outcome recorded, so a
 * platform trigger that awaits it (`ctx.waitUntil(scheduler.tick())`) keeps the
 * isolate alive for them. Timer mode does not wait for runs before re-arming.
 *
 * @throws {SchedulerError} `invalid-spec` for bad `defaults`, `leaseGrace`, `storeTimeout` or `retention`;
 * `invalid-name` for a bad `node`.
 * @example
 * const scheduler = createScheduler({ store: libsqlStore({ url: "file:edgecron.db" }) })
 *   .job("nightly", { schedule: "0 3 * * *", timezone: "Europe/Paris", run: () => backup() });
 * scheduler.start();
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
    throw new SchedulerError("invalid-name", `node: expected 1-128 characters of A-Z a-z 0-9 . _ : -, got ${quote(String(node))}`, {
      path: "node",
    });
  }
  const fetcher = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  const webhooks = resolveWebhookPolicy(options.webhooks);
  const clock = options.clock ?? systemClock();
  const at = (field: string) => ({ code: "invalid-spec", field, path: field });

  const store = options.store ?? createMemoryStore();
  const storeTimeoutMs = options.storeTimeout === undefined
    ? 30_000
    : options.storeTimeout === Infinity
    ? Infinity
    : parseDuration(options.storeTimeout, { ...at("storeTimeout"), min: 1 });
  const state: EngineState = {
    store: withDeadline(store, clock, storeTimeoutMs),
    clock,
    node,
    log,
    emit,
    defaults: resolveDefaults(options.defaults),
    leaseGraceMs: parseDuration(options.leaseGrace ?? "30s", at("leaseGrace")),
    retentionMs: parseDuration(options.retention ?? "7d", { ...at("retention"), min: 1 }),
    handlerOf: (job) => job.run ?? ((ctx: RunContext) => {
      if (options.webhookSecret === undefined) {
        throw new SchedulerError("invalid-spec", "webhookSecret is not configured: data-defined jobs cannot run on this node");
      }
      return deliverWebhook(job.target!, ctx, { fetch: fetcher, secret: options.webhookSecret, nowMs: clock.now(), policy: webhooks });
    }),
    code: new Map(),
    data: new Map(),
    counters: new Map(),
    active: new Set(),
    controllers: new Set(),
    stopping: false,
    storeOk: true,
    lastError: undefined,
    lastTick: undefined,
    lastPrune: undefined,
  };
  let ready: Promise<void> | undefined;
  const init = (): Promise<void> => (ready ??= state.store.init().catch((e: unknown) => {
    ready = undefined;
    throw e;
  }));
  const begin = async (now: number): Promise<StartedTick> => {
    try {
      await init();
    } catch {
      // The snapshot that follows fails the same way and reports it.
    }
    try {
      return await startTick(state, now);
    } catch (e) {
      // Only a broken user-supplied Schedule object can get here; tick() still never rejects.
      const error = errorText(e);
      log.error("tick failed", { error });
      const report: TickReport = { now, node, ok: false, error, jobs: {} };
      return { report, settled: Promise.resolve(report) };
    }
  };
  const timer = createTimerLoop(state, begin);

  const scheduler: Scheduler = {
    node,
    store,
    job(name, spec) {
      const job = resolveJob(name, spec, state.defaults);
      if (state.code.has(name)) {
        throw new SchedulerError("invalid-name", `${jobLabel(name)} is already registered`, { path: "name" });
      }
      state.code.set(name, job);
      countersOf(state, name);
      return scheduler;
    },
    async tick(now) {
      const started = await begin(now ?? clock.now());
      return started.settled;
    },
    start: () => timer.start(),
    async stop(opts = {}) {
      await timer.stop();
      await stopRuns(state, {
        graceMs: parseDuration(opts.grace ?? "10s", at("grace")),
        deadlineMs: parseDuration(opts.deadline ?? "30s", at("deadline")),
      });
    },
    list: async (opts = {}) => {
      await init();
      return describeJobs(state, undefined, opts.next);
    },
    async get(name, opts = {}) {
      await init();
      return (await describeJobs(state, name, opts.next))[0];
    },
    async run(name, opts = {}) {
      await init();
      return manualRun(state, name, opts.mode ?? "force");
    },
    pause: (name) => setPaused(state, name, true, init),
    resume: (name) => setPaused(state, name, false, init),
    async runs(name, query) {
      await init();
      return storeCall(state, () => state.store.runs(name, query));
    },
    async define(name, spec, opts = {}) {
      checkName(name);
      if (state.code.has(name)) {
        throw new SchedulerError("conflict", `${jobLabel(name)} is a code-defined job`, { path: "name" });
      }
      const job = resolveDataJob(name, spec, state.defaults);
      checkTargetUrl(job.target!.url, webhooks, `jobs.${name}.target.url`);
      // Computed before the store call: a failure here is the caller's input, not the store's.
      const json = dataSpecJson(job, spec);
      await init();
      const def = await storeCall(state, () => state.store.putDef(name, json, clock.now(), opts));
      state.data.set(name, { ...job, def });
      return (await describeJobs(state, name))[0]!;
    },
    async undefine(name) {
      await init();
      const removed = await storeCall(state, () => state.store.deleteDef(name));
      state.data.delete(name);
      return removed;
    },
    async getSetting(key) {
      await init();
      return storeCall(state, () => state.store.getSetting(key));
    },
    async putSetting(key, value) {
      await init();
      await storeCall(state, () => state.store.putSetting(key, value));
    },
    async health() {
      return {
        ok: state.storeOk,
        node,
        store: state.storeOk ? "ok" : "error",
        lastTick: state.lastTick,
        lastError: state.lastError,
        jobs: allJobs(state).length,
        running: timer.running,
      };
    },
  };
  return scheduler;
}

async function setPaused(state: EngineState, name: string, paused: boolean, init: () => Promise<void>): Promise<void> {
  if (state.code.get(name) === undefined && state.data.get(name) === undefined) {
    await init();
    const def = await storeCall(state, () => state.store.getDef(name));
    if (def === undefined) throw new SchedulerError("unknown-job", `no job named ${JSON.stringify(name)}`, { path: "name" });
  }
  await init();
  await storeCall(state, () => state.store.setPaused(name, paused, state.clock.now()));
}
