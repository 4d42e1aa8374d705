// Overlap policies through the store: bufferOne, bufferAll and cancelOther, on one node
// and across two, with a manual clock and handlers released by hand.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { MIN, ofType, rows, SEC, setup, T0 } from "../_helpers.ts";
import { faultyStore } from "../_faulty.ts";
import { gate, register } from "./_gate.ts";

const statuses = async (store: Parameters<typeof rows>[0], job: string): Promise<[number, string, string | null][]> =>
  (await rows(store, job)).map((r) => [(r.slot - T0) / MIN, r.status, r.error]);

describe("overlap policies", () => {
  it("bufferOne: one slot waits for the live run on another node and runs after it; the next is skipped 'overlap'", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a", start: T0 - MIN + 1 });
    const b = setup({ store, node: "b", clock: a.clock });
    const h = gate(a.clock);
    for (const s of [a, b]) s.scheduler.job("j", { schedule: "* * * * *", overlap: "bufferOne", run: h.run });
    await register(a);
    const t0 = a.scheduler.tick();
    await a.clock.settle();
    await a.clock.set(T0 + MIN);
    const t1 = b.scheduler.tick();
    await b.clock.settle();
    await a.clock.set(T0 + 2 * MIN);
    const t2 = a.scheduler.tick();
    await a.clock.settle();
    await a.clock.settle();
    assert.deepEqual(h.state.started, [T0]);
    assert.deepEqual(ofType(b.events, "buffered").map((e) => e.slot), [T0 + MIN]);
    await h.release(T0);
    assert.deepEqual(h.state.started, [T0, T0 + MIN], "the buffered slot starts once the live run settled");
    await h.release(T0 + MIN);
    await Promise.all([t0, t1, t2]);
    assert.deepEqual(await statuses(store, "j"), [[0, "ok", null], [1, "ok", null], [2, "skipped", "overlap"]]);
    assert.equal(h.state.peak, 1);
  });

  it("bufferAll: every slot due meanwhile runs in slot order, one at a time, up to bufferLimit; the excess is skipped", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a", start: T0 - MIN + 1 });
    const b = setup({ store, node: "b", clock: a.clock });
    const h = gate(a.clock);
    for (const s of [a, b]) {
      s.scheduler.job("j", { schedule: "* * * * *", overlap: "bufferAll", bufferLimit: 2, run: h.run });
    }
    await register(a);
    const ticks = [a.scheduler.tick()];
    await a.clock.settle();
    for (let k = 1; k <= 3; k++) {
      await a.clock.set(T0 + k * MIN);
      ticks.push((k % 2 === 0 ? a : b).scheduler.tick());
      await a.clock.settle();
    }
    await a.clock.settle();
    for (const slot of [T0, T0 + MIN, T0 + 2 * MIN]) {
      assert.equal(h.state.started.at(-1), slot);
      await h.release(slot);
    }
    await Promise.all(ticks);
    assert.deepEqual(h.state.started, [T0, T0 + MIN, T0 + 2 * MIN]);
    assert.deepEqual(await statuses(store, "j"), [[0, "ok", null], [1, "ok", null], [2, "ok", null], [
      3,
      "skipped",
      "overlap: buffer full",
    ]]);
    assert.equal(h.state.peak, 1);
  });

  it("bufferAll: slots buffered behind a dead node's run start from another node's tick once its lease ended, in order", async () => {
    const store = createMemoryStore();
    const b = setup({ store, node: "b", start: T0 - MIN });
    const h = gate(b.clock);
    b.scheduler.job("j", { schedule: "* * * * *", overlap: "bufferAll", run: h.run });
    // A run on a node that then died: its lease is never renewed.
    await store.claim([{
      job: "j",
      slot: T0,
      kind: "scheduled",
      status: "running",
      overlap: "bufferAll",
      node: "dead",
      batch: "x",
      now: T0,
      leaseUntil: T0 + MIN + 30 * SEC,
    }]);
    await store.snapshot(["j"], T0);
    await b.clock.set(T0 + MIN);
    const t1 = b.scheduler.tick();
    await b.clock.settle();
    await b.clock.settle();
    assert.deepEqual(h.state.started, []);
    await b.clock.set(T0 + 2 * MIN);
    const t2 = b.scheduler.tick();
    await b.clock.settle();
    await b.clock.settle();
    assert.deepEqual(h.state.started, [T0 + MIN]);
    await h.release(T0 + MIN);
    assert.deepEqual(h.state.started, [T0 + MIN, T0 + 2 * MIN]);
    await h.release(T0 + 2 * MIN);
    await Promise.all([t1, t2]);
    assert.deepEqual(await statuses(store, "j"), [
      [0, "abandoned", "lease expired before the run finished (its node stopped or stalled)"],
      [1, "ok", null],
      [2, "ok", null],
    ]);
  });

  it("cancelOther: a slot on another node aborts the live run (reason superseded), which ends cancelled; the new one runs after it", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a", start: T0 - MIN + 1 });
    const b = setup({ store, node: "b", clock: a.clock });
    const h = gate(a.clock);
    for (const s of [a, b]) s.scheduler.job("j", { schedule: "* * * * *", overlap: "cancelOther", run: h.run });
    await register(a);
    const t0 = a.scheduler.tick();
    await a.clock.settle();
    await a.clock.set(T0 + MIN);
    const t1 = b.scheduler.tick();
    await b.clock.settle();
    await a.clock.settle();
    assert.deepEqual(h.state.started, [T0], "the new slot waits while the old run is live");
    // A learns at its next heartbeat (a third of the 15 s lease).
    await a.clock.advance(5 * SEC);
    assert.deepEqual(h.state.reasons, ["superseded"]);
    assert.deepEqual(h.state.started, [T0, T0 + MIN]);
    await h.release(T0 + MIN);
    await Promise.all([t0, t1]);
    assert.deepEqual(await statuses(store, "j"), [[0, "cancelled", "superseded"], [1, "ok", null]]);
    assert.equal(h.state.peak, 1);
    assert.deepEqual(ofType(a.events, "cancelled").map((e) => [e.slot, e.reason]), [[T0, "superseded"]]);
  });

  it("cancelOther on the node that holds the live run aborts it at once (no heartbeat wait)", async () => {
    const s = setup({ start: T0 - MIN + 1 });
    const h = gate(s.clock);
    s.scheduler.job("j", { schedule: "* * * * *", overlap: "cancelOther", run: h.run });
    await register(s);
    const ticks = [s.scheduler.tick()];
    await s.clock.settle();
    await s.clock.set(T0 + MIN);
    ticks.push(s.scheduler.tick());
    await s.clock.settle();
    await s.clock.settle();
    assert.deepEqual(h.state.reasons, ["superseded"]);
    assert.deepEqual(h.state.started, [T0, T0 + MIN]);
    await h.release(T0 + MIN);
    await Promise.all(ticks);
    assert.deepEqual(await statuses(s.store, "j"), [[0, "cancelled", "superseded"], [1, "ok", null]]);
  });

  it("cancelOther with a handler that ignores its signal: the new run starts only once the old lease ended (the abort grace)", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a", start: T0 - MIN + 1 });
    const b = setup({ store, node: "b", clock: a.clock });
    const h = gate(a.clock, { ignoreAbort: true });
    for (const s of [a, b]) s.scheduler.job("j", { schedule: "* * * * *", overlap: "cancelOther", run: h.run });
    await register(a);
    const t0 = a.scheduler.tick();
    await a.clock.settle();
    await a.clock.set(T0 + MIN);
    const t1 = b.scheduler.tick();
    await b.clock.settle();
    await a.clock.advance(5 * SEC);
    assert.deepEqual(h.state.reasons, ["superseded"]);
    const oldLeaseEnd = (await store.getRun("j", T0))?.leaseUntil ?? 0;
    // The stored end is the fence + leaseGrace (15 s + 5 s) from the last renewal before the cancel.
    assert.ok(oldLeaseEnd <= T0 + MIN + 20 * SEC, "a cancelling row is never renewed");
    assert.deepEqual(h.state.started, [T0]);
    await a.clock.set(oldLeaseEnd + SEC);
    const t2 = b.scheduler.tick();
    await b.clock.settle();
    await a.clock.settle();
    assert.deepEqual(h.state.started, [T0, T0 + MIN]);
    assert.ok(h.state.startedAt[1]! > oldLeaseEnd, "never beside the old run while its lease lasts");
    await h.release(T0 + MIN);
    await h.release(T0);
    await Promise.all([t0, t1, t2]);
    const [old, next] = await rows(store, "j");
    assert.deepEqual([old?.status, old?.error], ["cancelled", "superseded"]);
    assert.equal(next?.status, "ok");
    // The old run's late result is not recorded over the cancellation.
    assert.ok(ofType(a.events, "lost").some((e) => e.slot === T0));
  });

  it("skip and allow keep their meaning; bufferLimit outside 1-10000 and an unknown policy are refused naming the field", () => {
    const s = setup();
    assert.throws(
      () => s.scheduler.job("j", { schedule: "* * * * *", overlap: "queue" as never, run: () => {} }),
      /jobs\.j\.overlap/,
    );
    assert.throws(
      () => s.scheduler.job("k", { schedule: "* * * * *", overlap: "bufferAll", bufferLimit: 0, run: () => {} }),
      /jobs\.k\.bufferLimit: expected a whole number 1-10000, got "0"/,
    );
  });

  it("a store failure while starting a buffered slot loses nothing: it stays buffered and the next tick starts it once", async () => {
    const store = faultyStore();
    const s = setup({ store, start: T0 - MIN + 1 });
    const h = gate(s.clock);
    s.scheduler.job("j", { schedule: "* * * * *", overlap: "bufferOne", run: h.run });
    await register(s);
    const t0 = s.scheduler.tick();
    await s.clock.settle();
    await s.clock.set(T0 + MIN);
    const t1 = s.scheduler.tick();
    await s.clock.settle();
    store.failNext("promote");
    await h.release(T0);
    await t0;
    assert.deepEqual(h.state.started, [T0]);
    assert.equal((await store.getRun("j", T0 + MIN))?.status, "buffered");
    assert.ok(s.logger.lines.some((l) => l.includes("starting a buffered slot failed")));
    await s.clock.set(T0 + MIN + 30 * SEC);
    const t2 = s.scheduler.tick();
    await s.clock.settle();
    assert.deepEqual(h.state.started, [T0, T0 + MIN]);
    await h.release(T0 + MIN);
    await Promise.all([t1, t2]);
    assert.deepEqual(await statuses(store, "j"), [[0, "ok", null], [1, "ok", null]]);
  });

  it("cancelOther: a run waiting out a retry backoff is cancelled when the backoff ends, not retried", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a", start: T0 - MIN + 1 });
    const b = setup({ store, node: "b", clock: a.clock });
    const calls: string[] = [];
    for (const s of [a, b]) {
      s.scheduler.job("j", {
        schedule: "* * * * *",
        overlap: "cancelOther",
        retries: { attempts: 3, backoff: "2m" },
        run: (ctx) => {
          calls.push(`${(ctx.slot - T0) / MIN}/${ctx.attempt}`);
          if (calls.length === 1) throw new Error("flaky");
        },
      });
    }
    await register(a);
    const t0 = a.scheduler.tick();
    await a.clock.settle();
    assert.equal((await store.getRun("j", T0))?.attempt, 2, "waiting to retry");
    await a.clock.set(T0 + MIN);
    const t1 = b.scheduler.tick();
    await a.clock.settle();
    assert.equal((await store.getRun("j", T0))?.status, "cancelling");
    await a.clock.set(T0 + 2 * MIN + 1);
    await t0;
    const old = await store.getRun("j", T0);
    assert.deepEqual([old?.status, old?.error], ["cancelled", "superseded"]);
    await a.clock.set(T0 + 2 * MIN + 30 * SEC);
    await b.scheduler.tick();
    await t1;
    assert.deepEqual(
      calls,
      ["0/1", "1/1", "2/1"],
      "the old slot was not retried; the superseding one ran, then the next",
    );
    assert.equal((await store.getRun("j", T0 + MIN))?.status, "ok");
  });
});
