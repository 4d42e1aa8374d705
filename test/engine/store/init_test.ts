import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore, type MemoryStore } from "../../../src/store/memory/mod.ts";
import { faultyStore } from "../_faulty.ts";
import { SchedulerError } from "../../../src/core/errors.ts";
import { MIN, ofType, rows, SEC, setup, T0 } from "../_helpers.ts";

/** A memory store whose `init()` throws a plain `Error` (a hand-made store) the first `times` calls. */
function initThrows(times: number): MemoryStore & { inits: number } {
  const inner = createMemoryStore();
  const out = { ...inner, inits: 0 } as MemoryStore & { inits: number };
  out.init = () => {
    out.inits += 1;
    return out.inits <= times ? Promise.reject(new Error("database is locked")) : inner.init();
  };
  return out;
}

describe("store init before a tick", () => {
  it("tick() on a store whose init fails reports ok: false with the store's error and runs nothing; the next tick initialises it and runs", async () => {
    const store = faultyStore();
    store.failNext("init");
    const s = setup({ store });
    const runs: number[] = [];
    s.scheduler.job("minutely", { schedule: "* * * * *", run: ({ slot }) => void runs.push(slot) });

    const failed = await s.scheduler.tick();
    assert.equal(failed.ok, false);
    assert.match(failed.error ?? "", /^store-error: faulty store: init failed/);
    assert.deepEqual(failed.jobs, {});
    assert.deepEqual(runs, [], "nothing is planned on a store that is not initialised");
    assert.equal(store.calls["snapshot"], undefined, "no snapshot of a store that is not initialised");
    assert.equal(ofType(s.events, "store-error").length, 1);
    assert.deepEqual(ofType(s.events, "tick").map((e) => e.report.ok), [false]);
    assert.deepEqual(s.logger.lines.filter((l) => l.startsWith("error")).length, 1, "one error line: the store-error");

    const next = await s.scheduler.tick();
    assert.equal(next.ok, true);
    assert.equal(store.calls["init"], 2, "init is tried again, not remembered as failed");
    assert.deepEqual(runs, [T0]);
    assert.equal((await s.scheduler.health()).ok, true);
  });

  it("an init that throws a plain Error (a hand-made store) fails the tick the same way", async () => {
    const store = initThrows(2);
    const s = setup({ store });
    const runs: number[] = [];
    s.scheduler.job("minutely", { schedule: "* * * * *", run: ({ slot }) => void runs.push(slot) });
    for (const _ of [1, 2]) {
      const report = await s.scheduler.tick();
      assert.equal(report.ok, false);
      assert.equal(report.error, "database is locked");
    }
    assert.deepEqual(runs, []);
    assert.equal((await s.scheduler.tick()).ok, true);
    assert.equal(store.inits, 3);
    assert.deepEqual(runs, [T0]);
  });

  it("timer mode: start() on a store whose init fails emits a failed tick, runs nothing, and retries init at the next wake", async () => {
    const store = faultyStore();
    store.failNext("init");
    const s = setup({ store, start: T0 + 30 * SEC });
    const runs: number[] = [];
    s.scheduler.job("minutely", { schedule: "* * * * *", run: ({ slot }) => void runs.push(slot) });
    s.scheduler.start();
    await s.clock.advance(0);
    assert.deepEqual(ofType(s.events, "tick").map((e) => e.report.ok), [false]);
    assert.deepEqual(runs, []);

    await s.clock.advance(30 * SEC);
    assert.equal(store.calls["init"], 2);
    assert.deepEqual(runs, [T0 + MIN]);
    assert.deepEqual(ofType(s.events, "tick").map((e) => e.report.ok), [false, true]);
    await s.scheduler.stop();
    assert.deepEqual((await rows(s.store, "minutely")).map((r) => r.status), ["ok"]);
  });

  it("timer mode: a store whose init keeps failing is tried again with back-off, logged at the 1st, 2nd, 4th... failure and when the error changes, and once when it recovers", async () => {
    // It was tried, and logged, at every wake: a line a second for an every-second job.
    const inner = createMemoryStore();
    const errors = ["database is locked", "database is locked", "database is locked", "disk I/O error"];
    let inits = 0;
    const initAt: number[] = [];
    const store: MemoryStore = {
      ...inner,
      init: () => {
        inits += 1;
        initAt.push(s.clock.now() - T0);
        const error = inits <= 7 ? errors[Math.min(inits - 1, 2)] : inits <= 9 ? errors[3] : undefined;
        // The last is a store's own refusal, whose text starts with its code: said once in the log.
        if (error === undefined) return inner.init();
        return Promise.reject(error === errors[3] ? new SchedulerError("store-error", error) : new Error(error));
      },
    };
    const s = setup({ store });
    const runs: number[] = [];
    s.scheduler.job("secondly", { schedule: "* * * * * *", run: ({ slot }) => void runs.push(slot) });
    s.scheduler.start();
    await s.clock.advance(0);
    for (let i = 0; i < 200; i++) await s.clock.advance(SEC);
    // 1 s, 2 s, 4 s ... between attempts, at most 60 s; the 10th succeeds.
    assert.deepEqual(initAt, [0, 1, 3, 7, 15, 31, 63, 123, 183, 243].filter((t) => t <= 200).map((t) => t * SEC));
    const failedLines = s.logger.lines.filter((l) => l.startsWith("error store error"));
    assert.deepEqual(failedLines, [
      "error store error: database is locked; no slot runs until it recovers",
      "error store error: database is locked; no slot runs until it recovers (init failed 2 times in a row; retried with back-off)",
      "error store error: database is locked; no slot runs until it recovers (init failed 4 times in a row; retried with back-off)",
      "error store error: disk I/O error; no slot runs until it recovers (init failed 8 times in a row; retried with back-off)",
    ]);
    assert.equal(ofType(s.events, "store-error").length, 9, "every failure is still an event");
    assert.deepEqual(runs, []);
    await s.clock.advance(60 * SEC);
    assert.equal(inits, 10);
    assert.deepEqual(s.logger.lines.filter((l) => l.includes("initialised after")), [
      "info store initialised after 9 failed attempts",
    ]);
    // Back to a wake per slot once initialised.
    const after = runs.length;
    await s.clock.advance(3 * SEC);
    assert.equal(runs.length - after, 3);
    await s.scheduler.stop();
  });
});
