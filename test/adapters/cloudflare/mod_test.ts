import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cloudflareWorker, type ExecutionContext, libsqlFromEnv } from "../../../adapters/cloudflare/mod.ts";
import { createScheduler } from "../../../src/mod.ts";
import { memoryStore } from "../../../src/store/memory/mod.ts";
import type { Scheduler } from "../../../src/engine/types.ts";
import { SchedulerError } from "../../../src/core/errors.ts";
import { createManualClock, type ManualClock } from "../../../src/testing.ts";

const MINUTE = 60_000;
const T0 = Date.UTC(2030, 0, 1, 0, 0); // fixed instants on a manual clock: a tick never runs ahead of its clock
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

interface Env {
  EDGECRON_TOKEN?: string;
}

/** An ExecutionContext that keeps what the worker handed to waitUntil. */
function context(): ExecutionContext & { waited: Promise<unknown>[] } {
  const waited: Promise<unknown>[] = [];
  return { waited, waitUntil: (p) => void waited.push(p) };
}

function counting(clock: ManualClock): { make: (env: Env) => Scheduler; made: Env[]; runs: number[] } {
  const made: Env[] = [];
  const runs: number[] = [];
  return {
    made,
    runs,
    make: (env) => {
      made.push(env);
      return createScheduler({ clock, logger: quiet }).job("minutely", {
        schedule: "* * * * *",
        run: ({ slot }) => void runs.push(slot),
      });
    },
  };
}

const controller = (scheduledTime: number) => ({ scheduledTime, cron: "* * * * *" });

/** Moves `clock` on to `at` when it is behind: an event is delivered at its time or later. */
async function reach(clock: ManualClock, at: number): Promise<void> {
  if (clock.now() < at) await clock.set(at);
}

describe("cloudflareWorker", () => {
  it("ticks with controller.scheduledTime inside ctx.waitUntil, once per slot", async () => {
    const clock = createManualClock(T0);
    const { make, runs } = counting(clock);
    const worker = cloudflareWorker(make);
    const env: Env = { EDGECRON_TOKEN: "t" };
    for (const i of [0, 1, 1, 2, 1]) {
      const ctx = context();
      await reach(clock, T0 + i * MINUTE);
      await worker.scheduled(controller(T0 + i * MINUTE), env, ctx);
      assert.equal(ctx.waited.length, 1, "the tick is handed to waitUntil");
      await ctx.waited[0];
    }
    // The very first trigger registers the job and runs its own slot.
    assert.deepEqual(runs, [T0, T0 + MINUTE, T0 + 2 * MINUTE]);
  });

  it("wrangler dev's /__scheduled (scheduledTime = the current time) runs the job on the first call", async () => {
    const clock = createManualClock(T0 + 37_123);
    const { make, runs } = counting(clock);
    const worker = cloudflareWorker(make);
    const ctx = context();
    await worker.scheduled({ scheduledTime: T0 + 37_123, cron: "* * * * *" }, { EDGECRON_TOKEN: "t" }, ctx);
    await Promise.all(ctx.waited);
    assert.deepEqual(runs, [T0], "the minute the trigger fired for");
  });

  it("a scheduledTime ahead of the isolate's clock runs each slot at its time; one of 0 leaves lastTick and runs nothing", async () => {
    // Ahead, the event ran 00:05's slots at 00:00:05 and recorded the minutes between `missed`;
    // a scheduledTime of 0 then moved lastTick (and /health) back to 1970.
    const clock = createManualClock(T0 + 5_000);
    const ran: string[] = [];
    const early: string[] = [];
    const scheduler = createScheduler({ clock, logger: quiet });
    for (const [name, schedule] of [["minutely", "* * * * *"], ["every-10s", "*/10 * * * * *"]] as const) {
      scheduler.job(name, {
        schedule,
        run: ({ slot }) => {
          ran.push(`${name}@${(slot - T0) / 1000}`);
          if (slot > clock.now()) early.push(`${name}@${(slot - T0) / 1000} at ${(clock.now() - T0) / 1000}`);
        },
      });
    }
    const worker = cloudflareWorker<Env>(scheduler);
    const env: Env = { EDGECRON_TOKEN: "t" };
    const lastTick = async (): Promise<number> => {
      const res = await worker.fetch(
        new Request("http://w/health", { headers: { authorization: "Bearer t" } }),
        env,
        context(),
      );
      return ((await res.json()) as { lastTick: number }).lastTick;
    };
    const statuses = async (): Promise<string[]> => {
      const out: string[] = [];
      for (const name of ["minutely", "every-10s"]) {
        for (const run of await scheduler.runs(name, { limit: 1000 })) {
          out.push(`${name}@${(run.slot - T0) / 1000} ${run.status}`);
        }
      }
      return out.sort();
    };
    const ahead = worker.scheduled(controller(T0 + 5 * MINUTE), env, context());
    await clock.settle();
    assert.equal(ran.length, 0, "nothing ran at 00:00:05");
    // It runs ahead as long as its window asks (a minute), from the clock: 00:00:05 to 00:01:05.
    await clock.set(T0 + MINUTE + 5_000);
    await ahead;
    assert.deepEqual(early, []);
    const firstMinute = ["minutely@60", ...[10, 20, 30, 40, 50, 60].map((t) => `every-10s@${t}`)];
    assert.deepEqual([...ran].sort(), firstMinute.sort());
    const recorded = await statuses();
    assert.equal(recorded.length, 7);
    assert.deepEqual(recorded.filter((r) => !r.endsWith(" ok")), [], "none missed");
    const last = await lastTick();
    assert.equal(last, T0 + MINUTE, "the last slot ticked, not the trigger's time");

    await worker.scheduled(controller(0), env, context());
    assert.equal(await lastTick(), last, "a scheduledTime of 0 left lastTick");
    assert.equal(ran.length, 7, "and ran nothing");
    assert.deepEqual(await statuses(), recorded, "and recorded nothing");

    // The regular trigger of 00:01, 5 s late: the slots it covers, once each.
    const next = worker.scheduled(controller(T0 + MINUTE), env, context());
    await clock.set(T0 + 2 * MINUTE);
    await next;
    assert.deepEqual(early, []);
    assert.equal(new Set(ran).size, ran.length, "each slot once");
    for (const t of [70, 80, 90, 100, 110]) assert.ok(ran.includes(`every-10s@${t}`), `every-10s@${t}`);
    assert.deepEqual((await statuses()).filter((r) => !r.endsWith(" ok")), []);
  });

  it("builds the scheduler once per env object and shares it between fetch and scheduled", async () => {
    const { make, made } = counting(createManualClock(T0));
    const worker = cloudflareWorker(make);
    const env: Env = { EDGECRON_TOKEN: "t" };
    await worker.scheduled(controller(T0), env, context());
    const res = await worker.fetch(
      new Request("http://w/health", { headers: { authorization: "Bearer t" } }),
      env,
      context(),
    );
    assert.equal(res.status, 200);
    assert.equal(
      ((await res.json()) as { lastTick: number }).lastTick,
      T0,
      "fetch sees the scheduler scheduled() ticked",
    );
    assert.equal(made.length, 1);
    await worker.scheduled(controller(T0), { EDGECRON_TOKEN: "t" }, context());
    assert.equal(made.length, 2, "another env object gets its own scheduler");
  });

  it("accepts a ready scheduler instead of a factory", async () => {
    const runs: number[] = [];
    const clock = createManualClock(T0);
    const scheduler = createScheduler({ clock, logger: quiet }).job("j", {
      schedule: "* * * * *",
      run: ({ slot }) => void runs.push(slot),
    });
    const worker = cloudflareWorker<Env>(scheduler);
    await worker.scheduled(controller(T0), {}, context());
    await clock.set(T0 + MINUTE);
    await worker.scheduled(controller(T0 + MINUTE), {}, context());
    assert.deepEqual(runs, [T0, T0 + MINUTE]);
  });

  it("does not cache a failed build: the next event tries again", async () => {
    let calls = 0;
    const worker = cloudflareWorker((_env: Env) => {
      calls += 1;
      if (calls === 1) throw new Error("binding not ready");
      return createScheduler({ clock: createManualClock(T0), logger: quiet });
    });
    const env: Env = { EDGECRON_TOKEN: "t" };
    await assert.rejects(worker.scheduled(controller(T0), env, context()), /binding not ready/);
    await worker.scheduled(controller(T0), env, context());
    assert.equal(calls, 2);
  });

  it("answers 503 naming EDGECRON_TOKEN and how to set it when it is missing, logged once, and still ticks", async () => {
    const logged: string[] = [];
    const logger = { ...quiet, error: (m: string) => void logged.push(m) };
    const runs: number[] = [];
    const worker = cloudflareWorker(() =>
      createScheduler({ clock: createManualClock(T0), logger }).job("j", {
        schedule: "* * * * *",
        run: ({ slot }) => void runs.push(slot),
      })
    );
    const env: Env = {};
    for (let i = 0; i < 2; i++) {
      const res = await worker.fetch(new Request("http://w/health"), env, context());
      assert.equal(res.status, 503);
      const body = await res.json() as { error: { code: string; message: string } };
      assert.equal(body.error.code, "not-configured");
      assert.match(body.error.message, /^EDGECRON_TOKEN is not set/);
      for (const how of [".dev.vars", "wrangler secret put EDGECRON_TOKEN", "--var EDGECRON_TOKEN:"]) {
        assert.ok(body.error.message.includes(how), how);
      }
      assert.doesNotMatch(JSON.stringify(body), /\bat .*\.ts:\d+/);
    }
    assert.equal(logged.filter((l) => l.includes("EDGECRON_TOKEN")).length, 1, "logged once, at the first request");
    await worker.scheduled(controller(T0), env, context());
    assert.deepEqual(runs, [T0]);
  });

  it("a store that cannot be initialised answers 503 store-error without its own message, which names hosts and SQL", async () => {
    const store = memoryStore();
    store.setFailing(true);
    const worker = cloudflareWorker(() => createScheduler({ store, logger: quiet }));
    const errors: unknown[] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      const res = await worker.fetch(new Request("http://w/health"), { EDGECRON_TOKEN: "t" }, context());
      assert.equal(res.status, 503);
      const body = await res.json() as { error: { code: string; message: string } };
      assert.equal(body.error.code, "store-error");
      assert.doesNotMatch(body.error.message, /memory store|set to fail/);
      assert.equal(errors.length, 1, "the store's own error goes to the worker logs");
    } finally {
      console.error = consoleError;
    }
  });

  it("takes router options from env through the router option", async () => {
    const worker = cloudflareWorker(counting(createManualClock(T0)).make, { router: () => ({ public: true }) });
    const res = await worker.fetch(new Request("http://w/health"), {}, context());
    assert.equal(res.status, 200);
  });
});

describe("libsqlFromEnv", () => {
  it("throws invalid-spec naming env.LIBSQL_URL when the binding is missing", () => {
    assert.throws(
      () => libsqlFromEnv({}),
      (e: unknown) =>
        e instanceof SchedulerError && e.code === "invalid-spec" && e.path === "env.LIBSQL_URL" &&
        /LIBSQL_URL/.test(e.message),
    );
  });

  it("builds a store over the web client from the bindings without connecting", () => {
    const store = libsqlFromEnv({ LIBSQL_URL: "libsql://example.invalid", LIBSQL_AUTH_TOKEN: "secret" });
    assert.equal(typeof store.claim, "function");
  });
});
