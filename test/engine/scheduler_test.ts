import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { createMemoryStore } from "../../src/store/memory/mod.ts";
import { deferred, MIN, ofType, rows, SEC, setup, T0, tally, tickAt } from "./_helpers.ts";

describe("scheduler.run (manual runs)", () => {
  it("force claims slot = now as a manual run and returns its outcome", async () => {
    const s = setup({ start: T0 + 10 * SEC });
    let ran = 0;
    s.scheduler.job("report", { schedule: "0 3 * * *", run: () => void ran++ });
    const result = await s.scheduler.run("report", { mode: "force" });
    assert.deepEqual(result, { ok: true, job: "report", slot: T0 + 10 * SEC, outcome: "ok" });
    const [row] = await rows(s.store, "report");
    assert.equal(row!.kind, "manual");
    assert.equal(ran, 1);
  });

  it("refuses unknown jobs, a second concurrent run, and due when nothing is due", async () => {
    const s = setup({ start: T0 + 10 * SEC });
    const gate = deferred();
    s.scheduler.job("report", { schedule: "0 3 * * *", run: () => gate.promise });
    assert.deepEqual(await s.scheduler.run("nope"), { ok: false, job: "nope", reason: "unknown job" });
    assert.deepEqual(await s.scheduler.run("report", { mode: "due" }), { ok: false, job: "report", reason: "not due" });
    const first = s.scheduler.run("report");
    await s.clock.settle();
    assert.deepEqual(await s.scheduler.run("report"), { ok: false, job: "report", reason: "already running" });
    gate.resolve();
    assert.equal((await first).ok, true);
    assert.equal(tally(await rows(s.store, "report")).ok, 1);
  });

  it("due runs the newest scheduled slot nobody recorded yet, once", async () => {
    const s = setup({ start: T0 - 1 });
    const slots: number[] = [];
    s.scheduler.job("hourly", { schedule: "0 * * * *", run: (ctx) => void slots.push(ctx.slot) });
    await tickAt(s, T0 - 1);
    await s.clock.set(T0 + 2 * 3_600_000 + 5 * MIN);
    assert.deepEqual(await s.scheduler.run("hourly", { mode: "due" }), {
      ok: true,
      job: "hourly",
      slot: T0 + 2 * 3_600_000,
      outcome: "ok",
    });
    assert.deepEqual(await s.scheduler.run("hourly", { mode: "due" }), { ok: false, job: "hourly", reason: "not due" });
    assert.deepEqual(slots, [T0 + 2 * 3_600_000]);
  });
});

describe("pause and resume", () => {
  it("are persisted in the store and obeyed by another scheduler sharing it", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a" });
    const b = setup({ store, node: "b", clock: a.clock });
    const ran: number[] = [];
    a.scheduler.job("shared", { schedule: "* * * * *", run: () => {} });
    b.scheduler.job("shared", { schedule: "* * * * *", run: (ctx) => void ran.push(ctx.slot) });
    await tickAt(b, T0 + 1);
    await a.scheduler.pause("shared");
    assert.equal((await b.scheduler.get("shared"))!.paused, true);
    await tickAt(b, T0 + MIN);
    await tickAt(b, T0 + 3 * MIN);
    assert.deepEqual(ran, []);
    await a.scheduler.resume("shared");
    await tickAt(b, T0 + 4 * MIN);
    assert.deepEqual(ran, [T0 + 4 * MIN]);
    // Paused time is recorded missed (never caught up, never silently lost).
    assert.deepEqual((await rows(store, "shared")).map((r) => r.status), ["missed", "missed", "missed", "ok"]);
  });

  it("refuses to pause an unknown job", async () => {
    const s = setup();
    await assert.rejects(
      s.scheduler.pause("ghost"),
      (e: unknown) => e instanceof SchedulerError && e.code === "unknown-job",
    );
  });

  it("a disabled job is listed but never planned", async () => {
    const s = setup();
    let ran = 0;
    s.scheduler.job("off", { schedule: "* * * * *", enabled: false, run: () => void ran++ });
    await tickAt(s, T0 + 1);
    await tickAt(s, T0 + MIN);
    assert.equal(ran, 0);
    assert.equal((await rows(s.store, "off")).length, 0);
    assert.equal((await s.scheduler.get("off"))!.enabled, false);
  });
});

describe("events and logging", () => {
  it("a throwing listener and a throwing logger never reach the scheduler", async () => {
    const throwing = () => {
      throw new Error("listener down");
    };
    const s = setup({
      onEvent: throwing,
      logger: { debug: throwing, info: throwing, warn: throwing, error: throwing },
    });
    let ran = 0;
    s.scheduler.job("x", {
      schedule: "* * * * *",
      run: (ctx) => {
        ctx.log.info("still fine");
        ran++;
      },
    });
    await tickAt(s, T0 + 1);
    const report = await tickAt(s, T0 + MIN);
    assert.equal(report.jobs["x"]!.outcomes[T0 + MIN], "ok");
    assert.equal(ran, 1);
  });

  it("emits claimed, started, succeeded and tick in order, and quotes job names in log lines", async () => {
    const s = setup();
    s.scheduler.job("a.b:c", { schedule: "* * * * *", run: () => {} });
    await tickAt(s, T0 + 1);
    s.events.length = 0;
    await tickAt(s, T0 + MIN);
    assert.deepEqual(s.events.map((e) => e.type), ["claimed", "started", "succeeded", "tick"]);
    assert.ok(s.logger.lines.some((l) => l.startsWith('info job "a.b:c" succeeded')));
  });
});

describe("leases", () => {
  it("a running claim of a dead node is recorded abandoned after its lease and re-run when retries are left", async () => {
    const s = setup({ start: T0 - MIN + 1 });
    const attempts: number[] = [];
    s.scheduler.job("resilient", {
      schedule: "0 * * * *",
      retries: { attempts: 2 },
      run: (ctx) => void attempts.push(ctx.attempt),
    });
    await tickAt(s, T0 - MIN + 1);
    await s.store.claim([{
      job: "resilient",
      slot: T0,
      kind: "scheduled",
      status: "running",
      overlap: "skip",
      node: "dead",
      batch: "dead-batch",
      now: T0,
      leaseUntil: T0 + MIN,
    }]);
    const early = await tickAt(s, T0 + 30 * SEC);
    // The dead node's row is the watermark: nothing to plan, and its lease is still live.
    assert.equal(early.jobs["resilient"], undefined);
    const report = await tickAt(s, T0 + 2 * MIN);
    assert.deepEqual(report.jobs["resilient"]!.abandoned, [T0]);
    assert.deepEqual(attempts, [2]);
    const [event] = ofType(s.events, "abandoned");
    assert.deepEqual(event, {
      type: "abandoned",
      job: "resilient",
      slot: T0,
      attempt: 1,
      node: "dead",
      willRetry: true,
    });
    const [row] = await rows(s.store, "resilient");
    assert.equal(row!.status, "ok");
    assert.equal(row!.attempt, 2);
  });
});

describe("robustness", () => {
  it("a user-supplied Schedule that throws is logged and does not stop other jobs", async () => {
    const s = setup();
    const broken = {
      kind: "cron" as const,
      timezone: "UTC",
      next: () => {
        throw new Error("broken next");
      },
      nextRuns: () => [],
      prev: () => null,
      between: () => {
        throw new Error("broken between");
      },
      toString: () => "broken",
      toJSON: () => ({ cron: "* * * * *" }),
    };
    let ran = 0;
    s.scheduler.job("broken", { schedule: broken, run: () => {} });
    s.scheduler.job("fine", { schedule: "* * * * *", run: () => void ran++ });
    await tickAt(s, T0 + 1);
    const report = await tickAt(s, T0 + MIN);
    assert.equal(report.ok, true);
    assert.equal(ran, 1);
    assert.ok(s.logger.lines.some((l) => l.startsWith('error job "broken": its schedule failed')));
    s.scheduler.start();
    await s.clock.settle();
    assert.equal((await s.scheduler.health()).running, true);
    await s.scheduler.stop();
  });

  it("refuses bad arguments to tick, run, list, get and summaries by name, before any store call", async () => {
    // They were taken: tick(NaN) reached the store and came back as a failed tick naming
    // `snapshot.now`; run(name, { mode: "weird" }) ran as "force"; list({ limit: -1 })
    // listed nothing; get(name, { next: 1e9 }) gave 100; list({ window: 1e20 }) failed
    // naming the store's `overview.since`.
    const s = setup();
    let ran = 0;
    s.scheduler.job("a", { schedule: "* * * * *", run: () => void ran++ });
    const refused = async (call: () => Promise<unknown>, code: string, path: string): Promise<void> => {
      await assert.rejects(call, (e: unknown) => {
        assert.ok(e instanceof SchedulerError, String(e));
        assert.deepEqual([e.code, e.path], [code, path], e.message);
        assert.ok(e.message.startsWith(`${code}: ${path}: `), e.message);
        return true;
      });
    };
    await refused(() => s.scheduler.tick(NaN), "invalid-instant", "now");
    await refused(() => s.scheduler.tick("2030-01-01T00:00:00Z" as never), "invalid-instant", "now");
    await refused(() => s.scheduler.tick(T0 + 0.5), "invalid-instant", "now");
    await refused(() => s.scheduler.tick(T0, { until: Infinity }), "invalid-instant", "until");
    await refused(() => s.scheduler.run("a", { mode: "weird" as never }), "invalid-spec", "mode");
    await refused(() => s.scheduler.run("a", null as never), "invalid-spec", "run");
    await refused(() => s.scheduler.list({ limit: -1 }), "invalid-spec", "limit");
    await refused(() => s.scheduler.list({ limit: 1.5 }), "invalid-spec", "limit");
    await refused(() => s.scheduler.list({ next: 101 }), "invalid-spec", "next");
    await refused(() => s.scheduler.get("a", { next: 1e9 }), "invalid-spec", "next");
    await refused(() => s.scheduler.list({ window: 1e20 }), "invalid-spec", "window");
    await refused(() => s.scheduler.list({ window: -1 }), "invalid-spec", "window");
    await refused(() => s.scheduler.list({ after: 7 as never }), "invalid-spec", "after");
    await refused(() => s.scheduler.summaries({ limit: -1 }), "invalid-spec", "limit");
    assert.equal(ran, 0);
    assert.equal(ofType(s.events, "store-error").length, 0);
    // What they allow still works.
    assert.equal((await s.scheduler.get("a", { next: 100, window: 86_400_000 }))!.next.length, 100);
    assert.deepEqual(await s.scheduler.list({ limit: 0 }), []);
    const report = await s.scheduler.tick(T0, { until: T0 + MIN });
    assert.equal(report.ok, true);
  });

  it("refuses a node id that is not 1-128 safe characters", () => {
    assert.throws(
      () => setup({ node: "worker 1" }),
      (e: unknown) => e instanceof SchedulerError && e.code === "invalid-name" && e.path === "node",
    );
  });

  it("health() reports the node, job count and timer state", async () => {
    const s = setup({ node: "n1" });
    s.scheduler.job("x", { schedule: "@hourly", run: () => {} });
    await tickAt(s, T0);
    assert.deepEqual(await s.scheduler.health(), {
      ok: true,
      node: "n1",
      store: "ok",
      lastTick: T0,
      lastError: undefined,
      jobs: 1,
      running: false,
    });
    s.scheduler.start();
    assert.equal((await s.scheduler.health()).running, true);
    await s.scheduler.stop();
  });

  it("close() without stop() stops the node at once: no tick on the closed store, each run in flight said lost", async () => {
    // The timer kept ticking on the closed store ("store error … no slot runs until it
    // recovers", once a tick) and the run in flight lost its outcome unsaid.
    const s = setup({ node: "n1", start: T0 + 1 });
    const stuck = deferred();
    s.scheduler.job("long", { schedule: "* * * * *", run: () => stuck.promise });
    s.scheduler.job("often", { schedule: "*/10 * * * * *", run: () => {} });
    s.scheduler.start();
    await s.clock.set(T0 + MIN);
    await s.clock.settle();
    const ticks = ofType(s.events, "tick").length;
    await s.scheduler.close();
    assert.equal((await s.scheduler.health()).running, false);
    await s.clock.advance(MIN);
    assert.equal(ofType(s.events, "store-error").length, 0);
    assert.ok(ofType(s.events, "tick").length <= ticks + 1, "no tick after close");
    assert.deepEqual(
      ofType(s.events, "lost").filter((e) => e.job === "long").map((e) =>
        "reason" in e && e.reason.startsWith("close() (no stop() first) with the run still going")
      ),
      [true],
    );
    stuck.resolve();
  });

  it("list() shows next slots, last outcome, counters and the live run", async () => {
    const s = setup();
    const gate = deferred();
    s.scheduler.job("x", { schedule: "*/10 * * * *", description: "ten", run: () => gate.promise });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + 10 * MIN);
    const pending = s.scheduler.tick();
    await s.clock.settle();
    const [info] = await s.scheduler.list({ next: 2 });
    assert.equal(info!.description, "ten");
    assert.equal(info!.schedule, "*/10 * * * *");
    assert.deepEqual(info!.next, [T0 + 20 * MIN, T0 + 30 * MIN]);
    assert.equal(info!.runningSince, T0 + 10 * MIN);
    gate.resolve();
    await pending;
    const after = await s.scheduler.get("x");
    assert.equal(after!.runningSince, undefined);
    assert.equal(after!.lastOutcome?.status, "ok");
    assert.equal(after!.counters.runs, 1);
    assert.equal(after!.counters.ok, 1);
  });
});

describe("createScheduler options", () => {
  it("refuses an option it does not take, naming it and the nearest it does; undefined values pass", async () => {
    const { createScheduler } = await import("../../src/engine/scheduler.ts");
    // A misspelt option was ignored: `concurency: 5` ran the node at the default 200.
    assert.throws(
      () => createScheduler({ store: createMemoryStore(), concurency: 5 } as never),
      (e: unknown) =>
        e instanceof SchedulerError && e.code === "invalid-spec" &&
        e.message === 'invalid-spec: concurency: not an option of createScheduler; did you mean "concurrency"?',
    );
    assert.throws(
      () => createScheduler({ Lease: "10s" } as never),
      /Lease: not an option of createScheduler; did you mean "lease"\?/,
    );
    assert.throws(
      () => createScheduler({ nonsense: 1 } as never),
      /^SchedulerError: invalid-spec: nonsense: not an option of createScheduler$/,
    );
    for (const bad of [null, "x", 5, []]) {
      assert.throws(
        () => createScheduler(bad as never),
        /invalid-spec: createScheduler: expected an options object/,
        String(bad),
      );
    }
    // Kinds no later check reads: `store: null` ran on a memory store; the others failed
    // later with a TypeError, or never (a `runAhead: "no"` ran ahead).
    const kinds: [string, unknown, RegExp][] = [
      ["store", null, /^invalid-spec: store: expected a store such as memoryStore\(\), got "null"$/],
      ["store", {}, /^invalid-spec: store: expected a store/],
      ["clock", { now: 1 }, /^invalid-spec: clock: expected a clock/],
      ["logger", "console", /^invalid-spec: logger: expected a logger object, got "console"$/],
      ["onEvent", "log", /^invalid-spec: onEvent: expected a function/],
      ["fetch", {}, /^invalid-spec: fetch: expected a function/],
      ["runAhead", "no", /^invalid-spec: runAhead: expected true or false, got "no"$/],
    ];
    for (const [key, value, re] of kinds) {
      assert.throws(() => createScheduler({ [key]: value } as never), (e: unknown) => {
        assert.ok(e instanceof SchedulerError && e.code === "invalid-spec", String(e));
        assert.match(e.message, re);
        return true;
      }, key);
    }
    const ok = createScheduler({ store: createMemoryStore(), node: "n", concurrency: undefined } as never);
    assert.equal(ok.node, "n");
  });
});
