import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createManualClock } from "../../../src/engine/clock.ts";
import type { Clock, RunContext } from "../../../src/engine/types.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import type { LeaseRenewal, Store } from "../../../src/store/types.ts";
import { RENEW_PART } from "../../../src/engine/run/heartbeat.ts";
import { deferred, MIN, ofType, rows, SEC, setup, T0, tickAt } from "../_helpers.ts";

/** A memory store that records each renew() call's items. */
function renewSpy(): { store: ReturnType<typeof createMemoryStore>; renewals: LeaseRenewal[][] } {
  const store = createMemoryStore();
  const renewals: LeaseRenewal[][] = [];
  const renew = store.renew.bind(store);
  store.renew = (items, now) => {
    renewals.push([...items]);
    return renew(items, now);
  };
  return { store, renewals };
}

describe("lease: heartbeat renewals", () => {
  it("renews every running claim of the node in ONE store.renew per heartbeat: a 15 s fence, stored a grace (5 s) later", async () => {
    const { store, renewals } = renewSpy();
    const s = setup({ store, start: T0 - MIN + 1 });
    for (const name of ["a", "b", "c"]) {
      s.scheduler.job(name, {
        schedule: "* * * * *",
        run: () => new Promise(() => {}),
      });
    }
    await tickAt(s, T0 - MIN + 1);
    await s.clock.set(T0);
    void s.scheduler.tick();
    await s.clock.settle();
    assert.equal(
      (await store.getRun("a", T0))!.leaseUntil,
      T0 + 20 * SEC,
      "a claim's lease is 15 s + 5 s grace, not the 10 min timeout",
    );
    await s.clock.advance(5 * SEC);
    assert.equal(renewals.length, 1);
    assert.deepEqual(renewals[0]!.map((r) => [r.job, r.leaseUntil]), [["a", T0 + 25 * SEC], ["b", T0 + 25 * SEC], [
      "c",
      T0 + 25 * SEC,
    ]]);
    await s.clock.advance(5 * MIN);
    assert.equal(renewals.length, 61, "one write per 5 s beat");
    assert.equal((await store.getRun("c", T0))!.leaseUntil, T0 + 5 * MIN + 25 * SEC);
    assert.equal(ofType(s.events, "abandoned").length, 0);
  });

  it(`renews more than RENEW_PART (${RENEW_PART}) claims in writes of at most RENEW_PART, every claim once per beat`, async () => {
    const { store, renewals } = renewSpy();
    const s = setup({ store, start: T0 - MIN + 1, concurrency: 100 });
    const count = RENEW_PART + 500;
    for (let i = 0; i < count; i++) {
      s.scheduler.job(`job-${String(i).padStart(5, "0")}`, { schedule: "* * * * *", run: () => new Promise(() => {}) });
    }
    await tickAt(s, T0 - MIN + 1);
    await s.clock.set(T0);
    void s.scheduler.tick();
    await s.clock.settle();
    renewals.length = 0;
    await s.clock.advance(5 * SEC);
    // Running and queued claims alike: one beat, two writes.
    assert.deepEqual(renewals.map((items) => items.length), [RENEW_PART, 500]);
    assert.equal(new Set(renewals.flat().map((r) => r.job)).size, count);
    assert.ok(renewals.flat().every((r) => r.leaseUntil === T0 + 25 * SEC));
    assert.equal((await store.getRun(`job-${String(count - 1).padStart(5, "0")}`, T0))!.leaseUntil, T0 + 25 * SEC);
    await s.scheduler.close();
  });

  it("never renews past timeout + leaseGrace, and stops renewing when the run settles", async () => {
    const { store, renewals } = renewSpy();
    const s = setup({ store, start: T0 - MIN + 1 });
    const gate = deferred();
    s.scheduler.job("slow", { schedule: "* * * * *", timeout: "22s", run: () => gate.promise });
    await tickAt(s, T0 - MIN + 1);
    await s.clock.set(T0);
    const tick = s.scheduler.tick();
    await s.clock.advance(20 * SEC);
    // timeout 22 s (+1 ms, so the timeout aborts first) + grace 5 s: the stored lease stops at T0 + 27 s.
    assert.equal((await store.getRun("slow", T0))!.leaseUntil, T0 + 27 * SEC + 1);
    assert.ok(renewals.flat().every((r) => r.leaseUntil <= T0 + 27 * SEC + 1));
    gate.resolve();
    await tick;
    const beats = renewals.length;
    await s.clock.advance(MIN);
    assert.equal(renewals.length, beats, "no heartbeat while nothing runs");
    assert.deepEqual(s.clock.pending().filter((t) => t.at < T0 + MIN), []);
  });

  it("ctx.lease carries the attempt and the live lease end; `held` turns false once the lease is lost", async () => {
    const s = setup({ start: T0 - MIN + 1 });
    let ctx: RunContext | undefined;
    s.scheduler.job("j", {
      schedule: "* * * * *",
      run: (c) => {
        ctx = c;
        return new Promise((_, reject) => c.signal.addEventListener("abort", () => reject(c.signal.reason)));
      },
    });
    await tickAt(s, T0 - MIN + 1);
    await s.clock.set(T0);
    void s.scheduler.tick();
    await s.clock.settle();
    assert.deepEqual([ctx!.lease.attempt, ctx!.lease.until, ctx!.lease.held], [1, T0 + 15 * SEC, true]);
    await s.clock.advance(5 * SEC);
    assert.equal(ctx!.lease.until, T0 + 20 * SEC);
    // Another node reaps the row (as it would after a lease it saw end): the next renewal fails.
    await s.store.update({ job: "j", slot: T0, attempt: 1, node: s.scheduler.node }, { leaseUntil: T0 + 6 * SEC });
    await s.store.reap(T0 + 7 * SEC);
    await s.clock.advance(5 * SEC);
    assert.equal(ctx!.lease.held, false);
    assert.equal(ctx!.signal.aborted, true);
    const lost = ofType(s.events, "lost").filter((e) => "attempt" in e);
    assert.equal(lost.length, 1);
    assert.match((lost[0] as { reason: string }).reason, /lease ended|no longer/);
  });
});

/** The manual clock, with a way to move `now()` without firing timers: what a SIGSTOP does. */
function pausable(start: number): { clock: Clock & ReturnType<typeof createManualClock>; pause(ms: number): void } {
  const base = createManualClock(start);
  let skew = 0;
  const clock = { ...base, now: () => base.now() + skew };
  return { clock, pause: (ms) => void (skew += ms) };
}

describe("lease: a paused node", () => {
  it("on resume, a run whose lease passed is aborted before its later timers fire; the lost outcome is an event", async () => {
    const store = createMemoryStore();
    const { clock, pause } = pausable(T0 - MIN);
    const a = setup({ store, clock, node: "a" });
    const order: string[] = [];
    a.scheduler.job("long", {
      schedule: "* * * * *",
      retries: { attempts: 2 },
      run: (ctx) => {
        clock.setTimeout(() => order.push("handler timer"), 12 * SEC);
        return new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => {
            order.push(`abort: ${(ctx.signal.reason as Error).message}`);
            reject(ctx.signal.reason);
          })
        );
      },
    });
    await clock.set(T0 - MIN + 1);
    await a.scheduler.tick(T0 - MIN + 1);
    await clock.set(T0);
    const ticking = a.scheduler.tick();
    await clock.settle();
    pause(60 * SEC);
    // Meanwhile another node reaps the ended lease and re-runs the slot.
    const b = setup({ store, clock: createManualClock(clock.now()), node: "b" });
    b.scheduler.job("long", { schedule: "* * * * *", retries: { attempts: 2 }, run: () => {} });
    const other = await b.scheduler.tick();
    assert.deepEqual(other.jobs["long"]!.abandoned, [T0]);
    await clock.advance(5 * SEC); // A's first timer after the pause: its heartbeat
    await clock.advance(10 * SEC);
    await ticking;
    assert.match(order[0]!, /^abort: lease ended/);
    assert.deepEqual(order.slice(1), ["handler timer"]);
    const lost = ofType(a.events, "lost").filter((e) => "attempt" in e);
    assert.deepEqual(lost.map((e) => [e.job, e.slot, (e as { attempt: number }).attempt]), [["long", T0, 1]]);
    assert.equal(ofType(a.events, "succeeded").length, 0);
    const [row] = await rows(store, "long");
    assert.deepEqual([row!.status, row!.attempt, row!.node], ["ok", 2, "b"]);
  });
});

describe("claims of unknown outcome (phantom claims)", () => {
  /** A memory store whose claim() commits at once but answers only after `lateMs` on `clock`. */
  function lateClaims(
    clock: Clock,
    lateMs: number,
  ): { store: Store & ReturnType<typeof createMemoryStore>; late: { on: boolean } } {
    const store = createMemoryStore();
    const late = { on: false };
    const claim = store.claim.bind(store);
    store.claim = async (requests) => {
      const results = await claim(requests);
      if (late.on) await new Promise<void>((resolve) => clock.setTimeout(() => resolve(), lateMs));
      return results;
    };
    return { store, late };
  }

  for (const when of ["still due", "superseded"] as const) {
    it(`a claim that committed after its deadline is settled on the next tick (${when}), never abandoned, never blocking`, async () => {
      const clock = createManualClock(T0 - MIN + 1); // the registering tick runs no slot
      const { store, late } = lateClaims(clock, 5 * SEC);
      const s = setup({ store, clock, storeTimeout: "1s" });
      const ran: number[] = [];
      s.scheduler.job("j", { schedule: "* * * * *", overlap: "skip", run: (ctx) => void ran.push(ctx.slot) });
      await s.scheduler.tick(T0 - MIN + 1);
      late.on = true;
      await clock.set(T0);
      const failing = s.scheduler.tick();
      await clock.advance(SEC);
      assert.equal((await failing).ok, false);
      late.on = false;
      assert.equal((await store.getRun("j", T0))!.status, "running", "the claim landed");
      const next = when === "still due" ? T0 + 10 * SEC : T0 + MIN + SEC;
      const report = await tickAt(s, next);
      assert.equal(report.ok, true);
      const all = await rows(store, "j");
      if (when === "still due") {
        assert.deepEqual(ran, [T0]);
        assert.deepEqual(all.map((r) => [r.slot, r.status]), [[T0, "ok"]]);
      } else {
        assert.deepEqual(ran, [T0 + MIN], "the newer slot runs, not skipped behind the phantom row");
        assert.deepEqual(all.map((r) => [r.slot, r.status]), [[T0, "missed"], [T0 + MIN, "ok"]]);
      }
      assert.equal(ofType(s.events, "abandoned").length, 0);
      assert.equal(ofType(s.events, "skipped").length, 0);
    });
  }

  it("a late trigger (its `now` more than a lease behind the clock) adopts a phantom claim with a lease from the clock", async () => {
    const clock = createManualClock(T0 - MIN + 1); // just after a minute: the registering tick runs no slot
    const { store, late } = lateClaims(clock, 5 * SEC);
    const s = setup({ store, clock, storeTimeout: "1s" });
    const gate = deferred();
    s.scheduler.job("j", { schedule: "* * * * *", run: () => gate.promise });
    await s.scheduler.tick(T0 - MIN + 1);
    late.on = true;
    await clock.set(T0);
    const failing = s.scheduler.tick();
    await clock.advance(SEC);
    assert.equal((await failing).ok, false);
    late.on = false;
    await clock.set(T0 + 50 * SEC);
    // The trigger for T0 + 10 s arrives 40 s late: two leases (15 s + 5 s grace) behind the clock.
    const pending = s.scheduler.tick(T0 + 10 * SEC);
    await clock.settle();
    const row = await store.getRun("j", T0);
    assert.equal(row!.status, "running");
    assert.ok(row!.leaseUntil! > clock.now(), `lease ends ${row!.leaseUntil! - clock.now()} ms from the clock`);
    assert.deepEqual(await store.reap(clock.now()), [], "another node cannot reap the adopted run");
    gate.resolve();
    await pending;
    assert.equal((await store.getRun("j", T0))!.status, "ok");
  });
});
