// Adversarial: store failures at each step, leases that end too soon, and re-runs that
// would break the overlap policy. Every slot must end with one final row, run once.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../src/store/memory/mod.ts";
import { faultyStore } from "./_faulty.ts";
import { deferred, MIN, ofType, rows, SEC, setup, T0, tally, tickAt } from "./_helpers.ts";

describe("adversarial: store failures", () => {
  it("a failed write of an ok outcome is retried within the lease grace: the row ends ok and the slot never runs twice", async () => {
    const store = faultyStore();
    const s = setup({ store });
    const runs: number[] = [];
    s.scheduler.job("once", {
      schedule: "* * * * *",
      timeout: "10s",
      retries: { attempts: 3 },
      run: (ctx) => void runs.push(ctx.slot),
    });
    await tickAt(s, T0 + 1);
    store.failNext("update");
    await s.clock.set(T0 + MIN);
    const pending = s.scheduler.tick();
    await s.clock.advance(5 * SEC);
    assert.equal((await pending).jobs["once"]!.outcomes[T0 + MIN], "ok");
    for (let i = 2; i <= 4; i++) await tickAt(s, T0 + i * MIN);
    assert.deepEqual(runs, [T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN, T0 + 4 * MIN]);
    assert.deepEqual(tally(await rows(s.store, "once")), { ok: 4 });
  });

  it("an outcome write failing through an outage is retried with the claim renewed: the row ends ok within a heartbeat of the store's return", async () => {
    const store = faultyStore();
    const s = setup({ store });
    const runs: number[] = [];
    s.scheduler.job("once", { schedule: "* * * * *", timeout: "10s", run: (ctx) => void runs.push(ctx.slot) });
    await tickAt(s, T0 + 1);
    store.failNext("update", 1000);
    await s.clock.set(T0 + MIN);
    const pending = s.scheduler.tick();
    // An outage of 80 s, far past the lease (15 s) and the grace (5 s): renewals still land.
    await s.clock.advance(80 * SEC);
    const meanwhile = await s.scheduler.tick();
    assert.deepEqual(
      meanwhile.jobs["once"]!.skipped,
      [T0 + 2 * MIN],
      "the slot that ran still holds its lease: no other run beside it",
    );
    assert.equal((await s.store.getRun("once", T0 + MIN))!.status, "running");
    store.failNext("update", -1000);
    await s.clock.advance(5 * SEC);
    assert.equal((await pending).jobs["once"]!.outcomes[T0 + MIN], "ok");
    const first = await s.store.getRun("once", T0 + MIN);
    assert.equal(first!.status, "ok");
    assert.ok(first!.finishedAt! <= T0 + MIN + 1, "finishedAt is when the handler finished, not when the write landed");
    assert.deepEqual(runs, [T0 + MIN]);
    assert.equal(ofType(s.events, "abandoned").length, 0);
    assert.equal(ofType(s.events, "lost").length, 0);
  });

  it("the first tick after an outage lands the outcomes still waiting to be retried, then runs its slot", async () => {
    // The row of a run that ended during the outage read `running` to that tick's overlap
    // check until the outcome's retry wait (up to a heartbeat) was over: the job's next
    // slots were recorded `skipped` ("still running") with nothing running.
    const store = faultyStore();
    const s = setup({ store });
    const runs: number[] = [];
    s.scheduler.job("once", { schedule: "* * * * *", run: (ctx) => void runs.push(ctx.slot) });
    await tickAt(s, T0 + 1);
    store.failNext("update", 1000);
    await s.clock.set(T0 + MIN);
    const first = s.scheduler.tick();
    await s.clock.set(T0 + 2 * MIN); // retries failed all along; the last one waits a heartbeat
    store.failNext("update", -1000); // the store is back
    const report = await s.scheduler.tick();
    assert.deepEqual(report.jobs["once"]!.skipped, []);
    assert.equal(report.jobs["once"]!.outcomes[T0 + 2 * MIN], "ok");
    assert.equal((await first).jobs["once"]!.outcomes[T0 + MIN], "ok");
    assert.deepEqual(runs, [T0 + MIN, T0 + 2 * MIN]);
    assert.deepEqual(tally(await rows(s.store, "once")), { ok: 2 });
  });

  for (const storeTimeout of ["30s", Infinity] as const) {
    it(`an outcome write that never answers holds no tick past a second (storeTimeout ${String(storeTimeout)})`, async () => {
      // The tick's wait for the retried outcome writes had no bound: one row's write held by a
      // lock held every tick of the node for the store's timeout, or for ever.
      const store = createMemoryStore();
      const update = store.update.bind(store);
      let calls = 0;
      store.update = (key, patch) => {
        if (key.job !== "locked" || patch.status === undefined) return update(key, patch);
        return ++calls <= 3 ? Promise.reject(new Error("database is locked")) : new Promise(() => {});
      };
      const updateMany = store.updateMany.bind(store);
      store.updateMany = (writes) =>
        writes.some((w) => w.key.job === "locked")
          ? Promise.reject(new Error("database is locked"))
          : updateMany(writes);
      const s = setup({ store, storeTimeout });
      const starts: number[] = [];
      s.scheduler.job("locked", { schedule: "* * * * *", run: () => {} });
      s.scheduler.job("often", { schedule: "* * * * * *", run: () => void starts.push(s.clock.now()) });
      await tickAt(s, T0 + 1);
      await s.clock.set(T0 + MIN);
      void s.scheduler.tick(T0 + MIN);
      await s.clock.set(T0 + MIN + SEC); // the outcome's retries wait 250, 500, 1 000 ms
      void s.scheduler.tick(T0 + MIN + SEC);
      await s.clock.advance(5 * SEC);
      const first = starts.find((t) => t >= T0 + MIN + SEC);
      assert.ok(first !== undefined && first <= T0 + MIN + 2 * SEC, `the :01 slot started at ${first}`);
    });
  }

  it("stop({ deadline: 0 }) wakes a run waiting out a retry's backoff: no timer is left holding the process", async () => {
    const s = setup({});
    s.scheduler.job("flaky", {
      schedule: "* * * * *",
      retries: { attempts: 3, backoff: "1h" },
      run: () => {
        throw new Error("boom");
      },
    });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + MIN);
    void s.scheduler.tick(T0 + MIN);
    await s.clock.settle();
    await s.scheduler.stop({ grace: 0, deadline: 0 });
    assert.deepEqual(s.clock.pending().filter((t) => t.at - s.clock.now() >= 30 * MIN), []);
  });

  it("a run given up by close() is said lost once: no second lost, no failed, no error counted", async () => {
    const s = setup({ start: T0 + 1 });
    s.scheduler.job("long", {
      schedule: "* * * * *",
      retries: { attempts: 2 },
      run: (ctx) =>
        new Promise<void>((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
    });
    await s.scheduler.tick(T0 + 1);
    await s.clock.set(T0 + MIN);
    void s.scheduler.tick(T0 + MIN);
    await s.clock.settle();
    await s.scheduler.close();
    await s.clock.settle();
    assert.deepEqual(ofType(s.events, "lost").map((e) => "reason" in e && e.reason.split(";")[0]), [
      "close() (no stop() first) with the run still going",
    ]);
    assert.deepEqual(ofType(s.events, "failed"), []);
  });

  it("a run that settles after stop() gave it up still records its outcome, as the lost event allows", async () => {
    const s = setup({ start: T0 + 1 });
    const release = deferred();
    s.scheduler.job("slow", { schedule: "* * * * *", run: () => release.promise });
    await s.scheduler.tick(T0 + 1);
    await s.clock.set(T0 + MIN);
    void s.scheduler.tick(T0 + MIN);
    await s.clock.settle();
    await s.scheduler.stop({ grace: 0, deadline: 0 });
    release.resolve();
    await s.clock.settle();
    assert.equal((await s.store.getRun("slow", T0 + MIN))?.status, "ok");
    assert.match(
      ofType(s.events, "lost").map((e) => ("reason" in e ? e.reason : ""))[0] ?? "",
      /with the run still going; unless its outcome lands first, once its lease ends/,
    );
  });

  it("stop() that gives up at its deadline says which outcomes the store never took, and which runs were still going", async () => {
    // A success whose outcome write waited on a lock past the deadline was recorded
    // abandoned by another node and run again as attempt 2, with nothing said here.
    const store = faultyStore();
    const s = setup({ store });
    const release = deferred();
    s.scheduler.job("done", { schedule: "* * * * *", run: () => {} });
    s.scheduler.job("slow", { schedule: "* * * * *", run: () => release.promise });
    await tickAt(s, T0 + 1);
    store.failNext("update", 1000);
    await s.clock.set(T0 + MIN);
    void s.scheduler.tick();
    await s.clock.advance(SEC);
    const stopped = s.scheduler.stop({ grace: "1s", deadline: "3s" });
    await s.clock.advance(4 * SEC);
    await stopped;
    const lost = ofType(s.events, "lost").map((e) => "attempt" in e ? [e.job, e.attempt, e.reason] : [e.job]);
    assert.deepEqual(lost.sort(), [
      [
        "done",
        1,
        "stop() reached its deadline before the store took the outcome; unless its outcome lands first, once its lease ends the slot is recorded abandoned, and run again if the job has retries left",
      ],
      [
        "slow",
        1,
        "stop() reached its deadline with the run still going; unless its outcome lands first, once its lease ends the slot is recorded abandoned, and run again if the job has retries left",
      ],
    ]);
    assert.ok(
      s.logger.lines.includes(
        'warn job "done" slot 2030-01-01T00:01:00.000Z (attempt 1): outcome not recorded: stop() reached its deadline before the store took the outcome; unless its outcome lands first, once its lease ends the slot is recorded abandoned, and run again if the job has retries left',
      ),
    );
    release.resolve();
  });

  for (const method of ["snapshot", "claim", "reap", "reclaim"] as const) {
    it(`${method}() failing once: the tick fails closed, and afterwards every slot has one final row`, async () => {
      const store = faultyStore();
      const s = setup({ store, start: T0 - MIN + 1 });
      const runs: string[] = [];
      s.scheduler.job("j", {
        schedule: "* * * * *",
        timeout: "10s",
        retries: { attempts: 2 },
        run: (ctx) => void runs.push(`${ctx.slot}/${ctx.attempt}`),
      });
      await tickAt(s, T0 - MIN + 1);
      // A dead node's claim on T0 whose lease ends at T0+30s, so the next tick reaps it.
      await store.claim([{
        job: "j",
        slot: T0,
        kind: "scheduled",
        status: "running",
        overlap: "skip",
        node: "dead",
        batch: "d",
        now: T0,
        leaseUntil: T0 + 30 * SEC,
      }]);
      store.failNext(method);
      const failed = await tickAt(s, T0 + MIN);
      assert.equal(failed.ok, false);
      for (let i = 2; i <= 3; i++) await tickAt(s, T0 + i * MIN);
      const all = await rows(s.store, "j");
      assert.equal(all.filter((r) => r.status === "running").length, 0);
      assert.deepEqual(all.map((r) => r.slot), [T0, T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN]);
      assert.equal(new Set(runs).size, runs.length, "no attempt ran twice");
      assert.ok(ofType(s.events, "store-error").length >= 1);
    });
  }
});

describe("adversarial: leases", () => {
  it("a tick given a late `now` (a late platform trigger) leases from the clock, so a slow run is not reaped and re-run", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a" });
    const b = setup({ store, node: "b", clock: a.clock });
    const runs: string[] = [];
    for (const s of [a, b]) {
      s.scheduler.job("slow", {
        schedule: "* * * * *",
        timeout: "30s",
        retries: { attempts: 2 },
        run: async (ctx) => {
          runs.push(`${s.scheduler.node}:${ctx.attempt}`);
          await new Promise<void>((resolve) => s.clock.setTimeout(resolve, 28 * SEC));
        },
      });
    }
    await tickAt(a, T0 + 1);
    await a.clock.set(T0 + MIN + 10 * SEC);
    const late = a.scheduler.tick(T0 + MIN); // delivered 10 s after its scheduled time
    await a.clock.advance(27 * SEC);
    const other = b.scheduler.tick(); // another node ticks while the run is still within its timeout
    await a.clock.advance(40 * SEC);
    await Promise.all([late, other]);
    assert.deepEqual(runs, ["a:1"]);
    assert.equal((await store.getRun("slow", T0 + MIN))!.status, "ok");
  });

  it("a reaped claim is not re-run while another run of an overlap-skip job is live (manual run beside a dead node's row)", async () => {
    const s = setup({ start: T0 - MIN + 1 });
    let live = 0;
    let peak = 0;
    const gate = deferred();
    s.scheduler.job("single", {
      schedule: "0 * * * *",
      retries: { attempts: 2 },
      run: async () => {
        peak = Math.max(peak, ++live);
        await gate.promise;
        live--;
      },
    });
    await tickAt(s, T0 - MIN + 1);
    await s.store.claim([{
      job: "single",
      slot: T0,
      kind: "scheduled",
      status: "running",
      overlap: "skip",
      node: "dead",
      batch: "d",
      now: T0,
      leaseUntil: T0 + SEC,
    }]);
    await s.clock.set(T0 + MIN);
    const manual = s.scheduler.run("single", { mode: "force" });
    await s.clock.settle();
    const tick = s.scheduler.tick();
    await s.clock.settle();
    gate.resolve();
    await Promise.all([manual, tick]);
    assert.equal(peak, 1);
    const row = await s.store.getRun("single", T0);
    assert.equal(row!.status, "abandoned");
    assert.deepEqual(ofType(s.events, "abandoned").map((e) => e.willRetry), [false]);
  });

  it("stop() ends the leases of the runs waiting in the queue in one group write, not one per claim", async () => {
    const store = faultyStore();
    const s = setup({ store, concurrency: 1 });
    const { ran, ticking } = await minuteOfHeldRuns(s, 30);
    const many = store.calls["updateMany"] ?? 0, one = store.calls["update"] ?? 0;
    const stopping = s.scheduler.stop({ grace: "1s", deadline: "5s" });
    await s.clock.advance(SEC);
    await Promise.all([stopping, ticking]);
    assert.equal(ran.length, 1);
    // The 29 queued claims in one updateMany; the one run's outcome in one more write.
    assert.equal((store.calls["updateMany"] ?? 0) + (store.calls["update"] ?? 0) - many - one, 2);
    let released = 0;
    for (let i = 0; i < 30; i++) {
      const [row] = await rows(store, `held-${i}`);
      // Let go at the grace: until then a queued claim may still start, were capacity to free.
      if (row?.status === "running" && row.leaseUntil === T0 + MIN + SEC) released++;
    }
    assert.equal(released, 29);
  });

  it("stop() lets the claims waiting in the queue start as runs end, within the grace: none is given up", async () => {
    // The queue was dropped at once: a rolling restart recorded the node's queued slots
    // `abandoned`, and a job without retries never ran them.
    const s = setup({ concurrency: 1 });
    const ran: number[] = [];
    for (let i = 0; i < 5; i++) {
      s.scheduler.job(`job-${i}`, {
        schedule: "* * * * *",
        run: () => new Promise<void>((resolve) => s.clock.setTimeout(() => resolve(void ran.push(i)), SEC)),
      });
    }
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + MIN);
    const ticking = s.scheduler.tick();
    await s.clock.settle();
    let stopped = false;
    const stopping = s.scheduler.stop({ grace: "10s" }).then(() => void (stopped = true));
    for (let i = 0; i < 5 && !stopped; i++) await s.clock.advance(SEC);
    await Promise.all([stopping, ticking]);
    assert.equal(s.clock.now(), T0 + MIN + 5 * SEC, "stop() ends once the last queued run has");
    assert.deepEqual(ran.sort(), [0, 1, 2, 3, 4]);
    for (let i = 0; i < 5; i++) assert.deepEqual((await rows(s.store, `job-${i}`)).map((r) => r.status), ["ok"]);
  });

  it("stop() while a large minute is still being queued lets the rest of it go too, and does not hold the outcomes back", async () => {
    // Won jobs are queued 2 000 at a time with a turn between: a stop in such a turn drops
    // the queue, and the jobs queued after it were neither started nor released, and held
    // the outcome writes back for a second.
    const s = setup({ concurrency: 1 });
    const { ran, ticking } = await minuteOfHeldRuns(s, 4_500);
    let stopped = false;
    const stopping = s.scheduler.stop({ grace: "0s", deadline: "5s" }).then(() => void (stopped = true));
    // The grace's timer fires; nothing else may need the clock to move.
    await s.clock.advance(0);
    await s.clock.settle();
    assert.ok(stopped, "stop() waits for the clock");
    await Promise.all([stopping, ticking]);
    assert.equal(ran.length, 1);
    let released = 0;
    for (let i = 0; i < 4_500; i++) {
      const [row] = await rows(s.store, `held-${i}`);
      if (row?.status === "running" && row.leaseUntil === T0 + MIN) released++;
    }
    assert.equal(released, 4_499);
  });

  it("stop() in the middle of a catch-up queue releases the queued claims: another node reaps them and runs its next slot", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a" });
    const b = setup({ store, node: "b", clock: a.clock });
    const ran: string[] = [];
    const started = deferred();
    a.scheduler.job("q", {
      schedule: "* * * * *",
      catchUp: { mode: "all" },
      run: (ctx) => {
        ran.push(`a:${ctx.slot}`);
        started.resolve();
        return new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
      },
    });
    b.scheduler.job("q", {
      schedule: "* * * * *",
      catchUp: { mode: "all" },
      run: (ctx) => void ran.push(`b:${ctx.slot}`),
    });
    await tickAt(a, T0 + 1);
    await a.clock.set(T0 + 3 * MIN);
    const ticking = a.scheduler.tick(); // claims 00:01, 00:02, 00:03; runs 00:01
    await started.promise;
    const stopping = a.scheduler.stop({ grace: "1s", deadline: "5s" });
    await a.clock.advance(SEC);
    await Promise.all([stopping, ticking]);
    await tickAt(b, T0 + 4 * MIN);
    await tickAt(b, T0 + 5 * MIN);
    assert.deepEqual(ran, [`a:${T0 + MIN}`, `b:${T0 + 4 * MIN}`, `b:${T0 + 5 * MIN}`]);
    const all = await rows(store, "q");
    assert.deepEqual(all.map((r) => r.status), ["error", "abandoned", "abandoned", "ok", "ok"]);
  });
});

/**
 * `count` minutely jobs `held-<i>` whose runs last until aborted: registered, then the
 * minute's tick begun, resolved once its first run started (the rest wait in the queue).
 */
async function minuteOfHeldRuns(
  s: ReturnType<typeof setup>,
  count: number,
): Promise<{ ran: string[]; ticking: Promise<unknown> }> {
  const ran: string[] = [];
  const started = deferred();
  for (let i = 0; i < count; i++) {
    s.scheduler.job(`held-${i}`, {
      schedule: "* * * * *",
      run: (ctx) => {
        ran.push(ctx.job);
        started.resolve();
        return new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
      },
    });
  }
  await tickAt(s, T0 + 1);
  await s.clock.set(T0 + MIN);
  const ticking = s.scheduler.tick();
  await started.promise;
  return { ran, ticking };
}
