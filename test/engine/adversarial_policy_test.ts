// Adversarial: catch-up, overlap, timeouts and retries pulling against each other.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../src/store/memory/mod.ts";
import { faultyStore } from "./_faulty.ts";
import { MIN, ofType, rows, SEC, setup, T0, tally, tickAt } from "./_helpers.ts";

/** A handler that honours its signal, tracking how many run at once. */
function tracked(ms: number, clock: { setTimeout(fn: () => void, ms: number): unknown }) {
  const state = { live: 0, peak: 0, calls: [] as string[] };
  const run = (ctx: { slot: number; attempt: number; signal: AbortSignal }): Promise<void> => {
    state.calls.push(`${ctx.slot}/${ctx.attempt}`);
    state.peak = Math.max(state.peak, ++state.live);
    return new Promise<void>((resolve, reject) => {
      clock.setTimeout(resolve, ms);
      ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason));
    }).finally(() => state.live--);
  };
  return { state, run };
}

describe("adversarial: catch-up all", () => {
  it("with overlap skip and retries longer than the queue's stagger, runs never overlap and every queued slot still runs", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a" });
    const b = setup({ store, node: "b", clock: a.clock });
    const h = tracked(60 * SEC, a.clock); // always times out
    for (const s of [a, b]) {
      s.scheduler.job("q", {
        schedule: "* * * * *",
        timeout: "10s",
        catchUp: { mode: "all" },
        retries: { attempts: 2, backoff: "30s" },
        run: h.run,
      });
    }
    await tickAt(a, T0 + 1);
    await a.clock.set(T0 + 3 * MIN);
    const ticks = [a.scheduler.tick()];
    for (let i = 1; i <= 12; i++) {
      await a.clock.advance(15 * SEC);
      ticks.push(b.scheduler.tick());
    }
    await a.clock.advance(10 * MIN);
    await Promise.all(ticks);
    assert.equal(h.state.peak, 1, h.state.calls.join(" "));
    assert.equal(new Set(h.state.calls).size, h.state.calls.length);
    const all = await rows(store, "q");
    assert.equal(all.filter((r) => r.status === "running").length, 0);
    assert.deepEqual(all.slice(0, 3).map((r) => r.slot), [T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN]);
    // The queued 00:02 outlived its staggered lease and was reaped; its node re-claims it when it gets there.
    assert.deepEqual(all.slice(0, 3).map((r) => r.status), ["timeout", "timeout", "timeout"]);
    assert.ok(h.state.calls.includes(`${T0 + 2 * MIN}/2`), h.state.calls.join(" "));
  });

  it("with overlap allow, every slot of the outage runs once, some at the same time", async () => {
    const s = setup();
    const h = tracked(90 * SEC, s.clock);
    s.scheduler.job("q", {
      schedule: "* * * * *",
      timeout: "2m",
      overlap: "allow",
      catchUp: { mode: "all" },
      run: h.run,
    });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + 3 * MIN);
    const first = s.scheduler.tick();
    await s.clock.advance(MIN);
    const second = s.scheduler.tick();
    await s.clock.advance(10 * MIN);
    await Promise.all([first, second]);
    assert.deepEqual([...h.state.calls].sort(), [1, 2, 3, 4].map((i) => `${T0 + i * MIN}/1`));
    assert.equal(h.state.peak, 2);
    assert.deepEqual(tally(await rows(s.store, "q")), { ok: 4 });
  });
});

describe("adversarial: timeouts and retries against the next slot", () => {
  it("a handler settling after its timeout changes nothing: the row stays timeout, no success is reported", async () => {
    const s = setup();
    let finish: (() => void) | undefined;
    s.scheduler.job("late", {
      schedule: "* * * * *",
      timeout: "10s",
      run: () => new Promise<void>((resolve) => (finish = resolve)),
    });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + MIN);
    const pending = s.scheduler.tick();
    await s.clock.advance(10 * SEC);
    await pending;
    finish!();
    await s.clock.advance(MIN);
    assert.equal((await s.store.getRun("late", T0 + MIN))!.status, "timeout");
    assert.equal(ofType(s.events, "succeeded").length, 0);
  });

  for (const overlap of ["skip", "allow"] as const) {
    it(`a retry whose backoff crosses the next slot (overlap ${overlap}) runs once; the next slot is ${overlap === "skip" ? "skipped" : "run beside it"}`, async () => {
      const s = setup();
      const calls: string[] = [];
      s.scheduler.job("r", {
        schedule: "* * * * *",
        overlap,
        retries: { attempts: 2, backoff: "90s" },
        run: (ctx) => {
          calls.push(`${ctx.slot - T0}/${ctx.attempt}`);
          if (ctx.slot === T0 + MIN && ctx.attempt === 1) throw new Error("first try fails");
        },
      });
      await tickAt(s, T0 + 1);
      await s.clock.set(T0 + MIN);
      const first = s.scheduler.tick();
      await s.clock.set(T0 + 2 * MIN);
      await s.scheduler.tick();
      await s.clock.advance(MIN);
      await first;
      const statuses = (await rows(s.store, "r")).map((r) => `${r.slot - T0}:${r.status}/${r.attempt}`);
      if (overlap === "skip") {
        assert.deepEqual(calls, [`${MIN}/1`, `${MIN}/2`]);
        assert.deepEqual(statuses, [`${MIN}:ok/2`, `${2 * MIN}:skipped/1`]);
      } else {
        assert.deepEqual(calls, [`${MIN}/1`, `${2 * MIN}/1`, `${MIN}/2`]);
        assert.deepEqual(statuses, [`${MIN}:ok/2`, `${2 * MIN}:ok/1`]);
      }
    });
  }

  it("a retry whose lease could not be extended is reaped and retried by another node, never run by both", async () => {
    const store = faultyStore();
    const a = setup({ store, node: "a", start: T0 - MIN + 1 });
    const b = setup({ store, node: "b", clock: a.clock });
    const calls: string[] = [];
    for (const s of [a, b]) {
      s.scheduler.job("r", {
        schedule: "0 * * * *",
        timeout: "10s",
        retries: { attempts: 3, backoff: "5s" },
        run: (ctx) => {
          calls.push(`${s.scheduler.node}/${ctx.attempt}`);
          if (ctx.attempt < 3) throw new Error(`try ${ctx.attempt}`);
        },
      });
    }
    await tickAt(a, T0 - MIN + 1);
    await a.clock.set(T0);
    store.failNext("update"); // the write that moves the row to attempt 2 and extends its lease
    await a.scheduler.tick();
    await a.clock.advance(20 * SEC);
    const reaping = b.scheduler.tick(); // lease (10 s + 5 s grace) ended: b reaps attempt 1 and runs attempt 2
    await a.clock.advance(MIN);
    await reaping;
    assert.deepEqual(calls, ["a/1", "b/2", "b/3"]);
    const row = await store.getRun("r", T0);
    assert.deepEqual([row!.status, row!.attempt, row!.node], ["ok", 3, "b"]);
  });
});
