import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MAX_TIMER_MS, timerDelay } from "../../../src/engine/tick/timer.ts";
import { SchedulerError } from "../../../src/core/errors.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { deferred, MIN, rows, SEC, setup, T0 } from "../_helpers.ts";

describe("timer mode", () => {
  it("timerDelay clamps to 60 s and never goes negative", () => {
    assert.equal(timerDelay(0, 365 * 86_400_000), MAX_TIMER_MS);
    assert.equal(timerDelay(0, undefined), MAX_TIMER_MS);
    assert.equal(timerDelay(1_000, 1_500), 500);
    assert.equal(timerDelay(2_000, 1_500), 0);
  });

  it("an @yearly job never arms a timer longer than 60 s", async () => {
    const s = setup({ start: T0 + 1 });
    s.scheduler.job("yearly", { schedule: "@yearly", run: () => {} });
    s.scheduler.start();
    await s.clock.settle();
    for (let i = 0; i < 5; i++) {
      const timers = s.clock.pending();
      assert.equal(timers.length, 1);
      assert.equal(timers[0]!.at - s.clock.now(), MAX_TIMER_MS);
      await s.clock.advance(MAX_TIMER_MS);
    }
    assert.equal(s.events.filter((e) => e.type === "tick").length, 6);
    await s.scheduler.stop();
    assert.equal(s.clock.pending().length, 0);
  });

  it("wakes at each next slot, 1 s apart for a 6-field cron", async () => {
    const s = setup({ start: T0 + 1 });
    const slots: number[] = [];
    s.scheduler.job("second", { schedule: "* * * * * *", run: (ctx) => void slots.push(ctx.slot) });
    s.scheduler.start();
    await s.clock.advance(1);
    await s.clock.advance(5 * SEC);
    assert.equal(s.clock.pending()[0]!.at, T0 + 6 * SEC);
    await s.scheduler.stop();
    assert.deepEqual(slots, [1, 2, 3, 4, 5].map((i) => T0 + i * SEC));
  });

  it("a long run does not delay another job's slot, and stop() aborts it after the grace", async () => {
    const s = setup({ start: T0 + 1 });
    const fast: number[] = [];
    let aborted: unknown;
    const started = deferred();
    s.scheduler.job("long", {
      schedule: "0 * * * *",
      timeout: "1h",
      run: (ctx) => {
        started.resolve();
        return new Promise((_, reject) =>
          ctx.signal.addEventListener("abort", () => reject(aborted = ctx.signal.reason))
        );
      },
    });
    s.scheduler.job("fast", { schedule: "* * * * *", run: (ctx) => void fast.push(ctx.slot) });
    s.scheduler.start();
    await s.clock.advance(1);
    await s.clock.set(T0 + 3 * MIN);
    assert.deepEqual(fast, [T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN]);
    await s.clock.set(T0 + 3 * MIN + 1);
    assert.equal(aborted, undefined);
    // the hourly job fires at T0 + 1h; it was first seen at T0, so run it then.
    await s.clock.set(T0 + 60 * MIN + 1);
    await started.promise;
    const stopping = s.scheduler.stop({ grace: "2s", deadline: "10s" });
    await s.clock.advance(2 * SEC);
    await stopping;
    assert.equal((aborted as unknown as Error).name, "AbortError");
    const [row] = await s.store.runs("long");
    assert.equal(row!.status, "error");
    assert.match(row!.error ?? "", /scheduler stopped/);
    assert.equal(s.clock.pending().filter((t) => t.at <= s.clock.now() + MIN).length, 0);
  });
});

describe("timer mode, a failed tick", () => {
  it("logs a tick failed by a refusal that is not a store error (once logged nowhere)", async () => {
    const store = createMemoryStore();
    const claim = store.claim.bind(store);
    let refuse = false;
    store.claim = (requests) => {
      if (!refuse) return claim(requests);
      refuse = false;
      return Promise.reject(new SchedulerError("invalid-instant", "claim[0].slot: expected epoch milliseconds"));
    };
    const errors: string[] = [];
    const logger = {
      warn() {},
      error: (message: string, fields?: unknown) => void errors.push(`${message} ${JSON.stringify(fields)}`),
    };
    const s = setup({ start: T0 + 1, store, logger });
    s.scheduler.job("a", { schedule: "* * * * *", run: () => {} });
    s.scheduler.start();
    await s.clock.settle();
    refuse = true;
    await s.clock.set(T0 + MIN);
    await s.clock.settle();
    const lines = errors.filter((l) => l.includes("tick failed"));
    assert.equal(lines.length, 1, errors.join("\n"));
    assert.match(lines[0]!, /invalid-instant: claim\[0\]\.slot/);
    // The next minute runs (the refusal was once), and catch-up records the failed one.
    await s.clock.set(T0 + 2 * MIN);
    assert.deepEqual((await rows(store, "a")).map((r) => [r.slot, r.status]), [
      [T0 + MIN, "missed"],
      [T0 + 2 * MIN, "ok"],
    ]);
    await s.scheduler.stop();
  });
});

describe("timer mode, a slot that comes while a tick runs", () => {
  // A tick slower than the gap to the next slot (a cold start, a slow store, a large
  // minute): the slot that came meanwhile has had no tick. Re-armed for the slot after
  // it, the next tick planned both and recorded this one `missed` (catch-up keeps the
  // newest only): on the packed tarball, 144 of 300 jobs lost their first slot that way.
  for (const claimAhead of [undefined, "1s"] as const) {
    it(`gets a tick as soon as the slow tick ends${claimAhead === undefined ? "" : " (claimAhead)"}`, async () => {
      const store = createMemoryStore();
      let slowAt: number | undefined;
      const slow = new Proxy(store, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (key !== "snapshot" || typeof value !== "function") return value;
          return async (...args: unknown[]) => {
            // The tick at +2 s reads for 3 s of the clock (until +5 s).
            if (slowAt !== undefined && s.clock.now() >= slowAt) {
              slowAt = undefined;
              await new Promise<void>((resolve) => s.clock.setTimeout(resolve, 3 * SEC));
            }
            return value.apply(target, args);
          };
        },
      });
      const s = setup({ start: T0 + 1, store: slow, ...(claimAhead === undefined ? {} : { claimAhead }) });
      const ran: number[] = [];
      s.scheduler.job("j", { schedule: "*/2 * * * * *", run: (ctx) => void ran.push(ctx.slot) });
      s.scheduler.start();
      await s.clock.settle();
      slowAt = T0 + SEC;
      await s.clock.set(T0 + 9 * SEC);
      assert.deepEqual(ran, [2, 4, 6, 8].map((t) => T0 + t * SEC), "every slot ran");
      // (With claimAhead, slot +10 s is claimed by now, waiting for its time.)
      const recorded = (await rows(store, "j")).filter((r) => r.slot <= T0 + 8 * SEC);
      assert.deepEqual(recorded.map((r) => r.status), ["ok", "ok", "ok", "ok"]);
      // A stop now lets a slot claimed ahead run at its time first.
      const stopping = s.scheduler.stop();
      await s.clock.set(T0 + 10 * SEC);
      await stopping;
      assert.deepEqual(ran.slice(4), claimAhead === undefined ? [] : [T0 + 10 * SEC]);
    });
  }
});

describe("timer mode, a large minute on several nodes", () => {
  it("waiting to help with the other nodes' shares never holds the timer past the next slot", async () => {
    // 300 jobs every 2 s on two nodes (more than a node's concurrency of 200): each node
    // claims its share, and may help with the other's 2 s after the slot, which is when
    // the next slot is due. The wait must not hold the timer: the next slot gets its tick.
    const store = createMemoryStore();
    const a = setup({ start: T0 + 1, store, node: "a" });
    const b = setup({ store, node: "b", clock: a.clock });
    const ran = new Set<string>();
    for (const s of [a, b]) {
      for (let i = 0; i < 300; i++) {
        s.scheduler.job(`j${i}`, { schedule: "*/2 * * * * *", run: (ctx) => void ran.add(`${ctx.job}@${ctx.slot}`) });
      }
      s.scheduler.start();
    }
    await a.clock.set(T0 + 11 * SEC);
    const slots = [2, 4, 6, 8, 10].map((i) => T0 + i * SEC);
    for (const slot of slots) {
      assert.equal([...ran].filter((k) => k.endsWith(`@${slot}`)).length, 300, `slot +${(slot - T0) / SEC}s`);
    }
    const statuses = new Set((await rows(store, "j0")).map((r) => r.status));
    assert.deepEqual([...statuses], ["ok"]);
    // Stopping waits for the runs' outcomes, whose writes wait on this clock.
    const stopping = Promise.all([a.scheduler.stop(), b.scheduler.stop()]);
    await a.clock.advance(30 * SEC);
    await stopping;
  });
});

describe("timer mode, a node gone silent", () => {
  it("its share of a 2 s schedule still runs at every slot, taken over by the other node", async () => {
    const store = createMemoryStore();
    const a = setup({ start: T0 + 1, store, node: "a" });
    // b's store calls stop answering at 5 s: it is alive to its presence entry, silent to the store.
    let silent = false;
    const hanging = new Proxy(store, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => silent ? new Promise(() => {}) : value.apply(target, args);
      },
    });
    const b = setup({ store: hanging, node: "b", clock: a.clock });
    const ran = new Map<number, Set<string>>();
    for (const s of [a, b]) {
      for (let i = 0; i < 300; i++) {
        s.scheduler.job(`j${i}`, {
          schedule: "*/2 * * * * *",
          run: (ctx) => void (ran.get(ctx.slot) ?? ran.set(ctx.slot, new Set()).get(ctx.slot)!).add(s.scheduler.node),
        });
      }
      s.scheduler.start();
    }
    await a.clock.set(T0 + 5 * SEC);
    silent = true;
    const counts = new Map<number, number>();
    for (let t = 6; t <= 20; t += 2) {
      await a.clock.set(T0 + t * SEC + 500);
    }
    for (let i = 0; i < 300; i++) {
      for (const row of await store.runs(`j${i}`, { limit: 100 })) {
        if (row.status === "ok") counts.set(row.slot, (counts.get(row.slot) ?? 0) + 1);
      }
    }
    for (const t of [6, 8, 10, 12, 14, 16, 18]) {
      assert.equal(counts.get(T0 + t * SEC), 300, `slot +${t}s`);
      assert.deepEqual([...ran.get(T0 + t * SEC)!], ["a"], `slot +${t}s`);
    }
  });
});

describe("stop()", () => {
  it("resolves at the deadline when a handler ignores its abort, leaving the row running for another node", async () => {
    const s = setup({ start: T0 + 1 });
    let signal: AbortSignal | undefined;
    s.scheduler.job("stubborn", {
      schedule: "* * * * *",
      run: (ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      },
    });
    s.scheduler.start();
    await s.clock.set(T0 + MIN);
    assert.ok(signal !== undefined);
    let resolved = false;
    const stopping = s.scheduler.stop({ grace: "1s", deadline: "3s" }).then(() => (resolved = true));
    await s.clock.advance(SEC);
    assert.equal(signal.aborted, true);
    assert.equal(resolved, false);
    await s.clock.advance(2 * SEC);
    await stopping;
    assert.equal(resolved, true);
    const [row] = await s.store.runs("stubborn");
    assert.equal(row!.status, "running");
    assert.equal(s.clock.pending().some((t) => t.at <= s.clock.now() + MIN), false);
  });

  it("refuses a grace or deadline that is not a duration, naming it, before anything stops", async () => {
    const s = setup({ start: T0 + 1 });
    s.scheduler.job("x", { schedule: "* * * * *", run: () => {} });
    s.scheduler.start();
    await s.clock.settle();
    for (const [options, pattern] of [[{ grace: "soon" }, /grace: /], [{ deadline: -1 }, /deadline: /]] as const) {
      await assert.rejects(
        s.scheduler.stop(options as never),
        (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && pattern.test(e.message),
      );
      assert.equal((await s.scheduler.health()).running, true, "still running after a refused stop()");
    }
    await s.scheduler.stop();
    assert.equal((await s.scheduler.health()).running, false);
  });

  it("a start() while it waits for a long run resumes the node: nothing aborted, released or given up", async () => {
    // The stop went on after the start: the next slot's claim was released unrun (the
    // queue still stopping), the long run aborted at the grace, its lease given up.
    const s = setup({ start: T0 + 1 });
    let signal: AbortSignal | undefined;
    let finish = () => {};
    const slots: number[] = [];
    s.scheduler.job("long", {
      schedule: "0 * * * *",
      run: (ctx) => {
        signal = ctx.signal;
        return new Promise<void>((resolve) => finish = resolve);
      },
    });
    s.scheduler.job("a", { schedule: "* * * * *", run: (ctx) => void slots.push(ctx.slot) });
    s.scheduler.start();
    await s.clock.set(T0 + 60 * MIN);
    assert.ok(signal !== undefined);
    let stopped = false;
    const stopping = s.scheduler.stop({ grace: "30s", deadline: "5m" }).then(() => (stopped = true));
    await s.clock.advance(SEC);
    s.scheduler.start();
    await s.clock.settle();
    assert.equal(stopped, true, "the start ended the stop");
    await s.clock.set(T0 + 63 * MIN);
    assert.equal(signal.aborted, false, "the long run kept its signal");
    const since = (slot: number) => slot >= T0 + 60 * MIN;
    assert.deepEqual(slots.filter(since), [T0 + 60 * MIN, T0 + 61 * MIN, T0 + 62 * MIN, T0 + 63 * MIN]);
    const recorded = (await rows(s.store, "a")).filter((r) => since(r.slot));
    assert.deepEqual(recorded.map((r) => r.status), ["ok", "ok", "ok", "ok"]);
    // Its lease is still renewed: another node's tick past the first lease does not reap it.
    const [running] = await rows(s.store, "long");
    assert.equal(running?.status, "running");
    assert.ok((running?.leaseUntil ?? 0) > s.clock.now(), "lease renewed");
    finish();
    await s.scheduler.stop();
    assert.equal((await rows(s.store, "long"))[0]?.status, "ok");
    await stopping;
  });

  it("stop(), start(), stop() at once: the second stop's grace holds, not the first stop's tail", async () => {
    // The first stop, ended by the start, went on to give up every held claim (its check
    // saw the timer the second stop had just halted): the long run was aborted at once.
    const s = setup({ start: T0 + 1 });
    let abortedAt: number | undefined;
    let finish = () => {};
    s.scheduler.job("long", {
      schedule: "0 * * * *",
      run: (ctx) => {
        ctx.signal.addEventListener("abort", () => abortedAt = s.clock.now());
        return new Promise<void>((resolve) => finish = resolve);
      },
    });
    s.scheduler.start();
    await s.clock.set(T0 + 60 * MIN);
    const first = s.scheduler.stop({ grace: "30s", deadline: "5m" });
    await s.clock.advance(SEC);
    s.scheduler.start();
    const second = s.scheduler.stop({ grace: "20s", deadline: "5m" });
    await s.clock.advance(10 * SEC);
    assert.equal(abortedAt, undefined, "aborted before the second stop's grace");
    await first;
    await s.clock.advance(15 * SEC);
    assert.equal(abortedAt, T0 + 60 * MIN + 21 * SEC, "aborted at the second stop's grace");
    finish(); // it settles after its abort: recorded as it ended
    await s.clock.advance(SEC);
    await second;
    assert.equal((await rows(s.store, "long"))[0]?.status, "ok");
  });

  it("a tick() while it waits for runs claims nothing; the slot is left to the next tick", async () => {
    // The tick claimed the slot, its queue could not start it while stopping and had been
    // dropped already: the tick never resolved, the row stayed `running` (re-leased as this
    // node's own), and every later slot of the job was `skipped` behind it.
    const s = setup({ start: T0 + 1 });
    let finish = () => {};
    const slots: number[] = [];
    s.scheduler.job("long", { schedule: "0 * * * *", run: () => new Promise<void>((resolve) => finish = resolve) });
    s.scheduler.job("b", { schedule: "* * * * *", run: (ctx) => void slots.push(ctx.slot) });
    s.scheduler.start();
    await s.clock.set(T0 + 60 * MIN);
    const stopping = s.scheduler.stop({ grace: "30s", deadline: "5m" });
    await s.clock.set(T0 + 61 * MIN);
    const report = await s.scheduler.tick(); // a platform trigger (POST /tick) during the stop
    assert.deepEqual(report.jobs["b"]?.won ?? [], []);
    assert.equal(await s.store.getRun("b", T0 + 61 * MIN), undefined);
    finish();
    await s.clock.advance(SEC);
    await stopping;
    await s.clock.set(T0 + 62 * MIN);
    await s.scheduler.tick();
    const recorded = (await rows(s.store, "b")).filter((r) => r.slot > T0 + 60 * MIN);
    assert.deepEqual(recorded.map((r) => [r.slot, r.status]), [[T0 + 61 * MIN, "missed"], [T0 + 62 * MIN, "ok"]]);
  });

  it("resolves at once when nothing runs, and the scheduler can start again", async () => {
    const s = setup({ start: T0 + 1 });
    const slots: number[] = [];
    s.scheduler.job("x", { schedule: "* * * * *", run: (ctx) => void slots.push(ctx.slot) });
    s.scheduler.start();
    await s.clock.settle();
    await s.scheduler.stop();
    await s.clock.set(T0 + 3 * MIN);
    assert.deepEqual(slots, []);
    s.scheduler.start();
    await s.clock.set(T0 + 4 * MIN);
    // Restart ticks at once: latest catch-up runs 00:03, records 00:01-00:02 missed, then 00:04 on time.
    assert.deepEqual(slots, [T0 + 3 * MIN, T0 + 4 * MIN]);
    await s.scheduler.stop();
  });
});
