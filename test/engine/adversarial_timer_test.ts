// Adversarial: timer mode against itself — start() twice, stop() racing start(),
// timer wakes overlapping manual ticks, and clocks that jump.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createManualClock } from "../../src/engine/clock.ts";
import { createMemoryStore } from "../../src/store/memory/mod.ts";
import type { Store } from "../../src/store/types.ts";
import { deferred, HOUR, MIN, ofType, rows, SEC, setup, T0, tally, tickAt } from "./_helpers.ts";

/** A memory store whose snapshot() waits on `gate` while one is set. */
function gatedStore(): { store: Store & { setFailing(f: boolean): void }; hold(): () => void } {
  const inner = createMemoryStore();
  let gate: Promise<void> | undefined;
  const store = {
    ...inner,
    async snapshot(names: readonly string[], now: number) {
      if (gate !== undefined) await gate;
      return inner.snapshot(names, now);
    },
  };
  return {
    store,
    hold() {
      const d = deferred();
      gate = d.promise;
      return () => {
        gate = undefined;
        d.resolve();
      };
    },
  };
}

describe("adversarial: timer mode", () => {
  it("start() twice arms one timer chain", async () => {
    const s = setup({ start: T0 + 1 });
    const slots: number[] = [];
    s.scheduler.job("x", { schedule: "* * * * *", run: (ctx) => void slots.push(ctx.slot) });
    s.scheduler.start();
    s.scheduler.start();
    await s.clock.set(T0 + 3 * MIN);
    assert.equal(s.clock.pending().length, 1);
    assert.equal(ofType(s.events, "tick").length, 4);
    assert.deepEqual(slots, [T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN]);
    await s.scheduler.stop();
    assert.equal(s.clock.pending().length, 0);
  });

  it("stop() then start() while a wake is still planning leaves one timer chain, not two", async () => {
    const { store, hold } = gatedStore();
    const s = setup({ store: store as ReturnType<typeof createMemoryStore> });
    s.scheduler.job("x", { schedule: "* * * * *", run: () => {} });
    const release = hold();
    s.scheduler.start(); // its first tick waits in snapshot()
    await s.clock.settle();
    const stopping = s.scheduler.stop();
    s.scheduler.start();
    release();
    await stopping;
    await s.clock.settle();
    assert.equal(s.clock.pending().length, 1, "one armed timer");
    await s.clock.set(T0 + 5 * MIN);
    assert.equal(s.clock.pending().length, 1, "still one armed timer");
    // One tick at start, the one left over from before stop(), a wake just after the lease of
    // the claim the stop released (to reap it), then one per minute.
    assert.ok(ofType(s.events, "tick").length <= 8, `${ofType(s.events, "tick").length} ticks`);
    await s.scheduler.stop();
    assert.equal(s.clock.pending().length, 0);
  });

  it("timer wakes and manual ticks overlapping in time run each slot once", async () => {
    const s = setup({ start: T0 + 1 });
    const slots: number[] = [];
    const gate = deferred();
    s.scheduler.job("slow", {
      schedule: "* * * * * *",
      overlap: "allow",
      catchUp: { mode: "all" },
      run: async (ctx) => {
        slots.push(ctx.slot);
        await gate.promise;
      },
    });
    s.scheduler.start();
    for (let i = 1; i <= 30; i++) {
      const manual = s.scheduler.tick(); // same instant as the timer wake, racing it
      await s.clock.advance(SEC);
      void manual;
    }
    gate.resolve();
    await s.scheduler.stop();
    assert.equal(slots.length, new Set(slots).size, "no slot ran twice");
    assert.deepEqual(slots.sort((a, b) => a - b), Array.from({ length: 30 }, (_, i) => T0 + (i + 1) * SEC));
    assert.deepEqual(tally(await rows(s.store, "slow")), { ok: 30 });
  });

  it("stop() during a tick's claims waits for them and arms nothing afterwards", async () => {
    const { store, hold } = gatedStore();
    const s = setup({ store: store as ReturnType<typeof createMemoryStore>, start: T0 + 1 });
    const slots: number[] = [];
    s.scheduler.job("x", { schedule: "* * * * *", run: (ctx) => void slots.push(ctx.slot) });
    s.scheduler.start();
    await s.clock.settle();
    const release = hold();
    await s.clock.set(T0 + MIN);
    let stopped = false;
    const stopping = s.scheduler.stop().then(() => (stopped = true));
    await s.clock.settle();
    assert.equal(stopped, false);
    release();
    await stopping;
    assert.deepEqual(slots, [T0 + MIN]);
    assert.equal(s.clock.pending().length, 0);
    await s.clock.set(T0 + 5 * MIN);
    assert.deepEqual(slots, [T0 + MIN]);
  });
});

describe("adversarial: clock jumps", () => {
  it("a clock going backwards never re-runs or pre-runs a slot", async () => {
    const s = setup();
    const slots: number[] = [];
    s.scheduler.job("x", { schedule: "* * * * *", run: (ctx) => void slots.push(ctx.slot) });
    await tickAt(s, T0 + 1);
    await tickAt(s, T0 + 10 * MIN);
    for (const back of [T0 + 9 * MIN, T0 + 5 * MIN, T0 - HOUR, T0 + 10 * MIN]) await s.scheduler.tick(back);
    await tickAt(s, T0 + 11 * MIN);
    assert.deepEqual(slots, [T0 + 10 * MIN, T0 + 11 * MIN]);
    assert.deepEqual(tally(await rows(s.store, "x")), { missed: 9, ok: 2 });
  });

  it("every: 1s after a day of downtime plans one window, and the next tick carries on from it", async () => {
    const s = setup();
    const slots: number[] = [];
    s.scheduler.job("sec", {
      schedule: { every: "1s" },
      catchUp: { mode: "latest", window: "1h" },
      run: (ctx) => void slots.push(ctx.slot),
    });
    await tickAt(s, T0 + 1);
    const report = await tickAt(s, T0 + 24 * HOUR);
    assert.deepEqual(slots, [T0 + 24 * HOUR]);
    assert.equal(report.jobs["sec"]!.missed.length, 3599);
    await tickAt(s, T0 + 24 * HOUR + 2 * SEC);
    assert.deepEqual(slots, [T0 + 24 * HOUR, T0 + 24 * HOUR + 2 * SEC]);
    const counts = (await s.store.counts(["sec"]))["sec"]!;
    assert.deepEqual([counts.missed, counts.ok, counts.running], [3600, 2, 0]);
  });

  it("latest over more than 10 000 slots in the window records the newest 10 000 and logs how many it could not", async () => {
    const s = setup();
    s.scheduler.job("sec", { schedule: { every: "1s" }, catchUp: { mode: "latest", window: "1d" }, run: () => {} });
    await tickAt(s, T0 + 1);
    const report = await tickAt(s, T0 + 6 * HOUR);
    assert.deepEqual(report.jobs["sec"]!.run, [T0 + 6 * HOUR]);
    assert.equal(report.jobs["sec"]!.missed.length, 9_999);
    assert.equal(report.jobs["sec"]!.missed[0], T0 + 6 * HOUR - 9_999 * SEC);
    assert.ok(
      s.logger.lines.includes(`warn job "sec": ${6 * 3600 - 10_000} slots too far behind to plan were not recorded`),
      s.logger.lines.join("\n"),
    );
  });

  it("catchUp all over more than 10 000 slots runs them oldest first over several ticks, none twice, none lost", async () => {
    const s = setup();
    const slots: number[] = [];
    s.scheduler.job("sec", {
      schedule: { every: "1s" },
      timeout: "1s",
      overlap: "allow",
      catchUp: { mode: "all", window: "4h" },
      run: (ctx) => void slots.push(ctx.slot),
    });
    await tickAt(s, T0 + 1);
    const first = await tickAt(s, T0 + 3 * HOUR);
    assert.equal(first.jobs["sec"]!.run.length, 10_000);
    for (let i = 1; i <= 2; i++) await s.scheduler.tick();
    assert.equal(slots.length, 3 * HOUR / SEC);
    assert.equal(new Set(slots).size, slots.length);
    assert.equal(slots.at(-1), T0 + 3 * HOUR);
  });
});

describe("adversarial timer: two nodes stopped and started at random", () => {
  // A small generator, so a failing seed replays.
  const random = (seed: number) => () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;

  for (const seed of [1, 2, 3, 4]) {
    it(`every slot runs once, at its time, while one node always runs (seed ${seed})`, async () => {
      const r = random(seed);
      const clock = createManualClock(T0 + 1);
      const store = createMemoryStore();
      const runs = new Map<string, { node: string; at: number }[]>();
      const node = (name: "A" | "B") => {
        const s = setup({ clock, store, node: name, claimAhead: "5s" });
        const ran = (job: string, slot: number) => {
          const key = `${job} ${new Date(slot).toISOString()}`;
          runs.set(key, [...runs.get(key) ?? [], { node: name, at: clock.now() }]);
        };
        for (const job of ["a", "b", "c"]) {
          s.scheduler.job(job, { schedule: "*/10 * * * * *", run: (ctx) => ran(job, ctx.slot) });
        }
        // Outlives a stop's grace: a start() made while the stop waits for it must not lose the next slots.
        s.scheduler.job("slow", {
          schedule: "*/30 * * * * *",
          overlap: "allow",
          run: (ctx) => {
            ran("slow", ctx.slot);
            return new Promise<void>((resolve) => clock.setTimeout(resolve, 12 * SEC));
          },
        });
        return s.scheduler;
      };
      const nodes = { A: node("A"), B: node("B") };
      const up = { A: true, B: true };
      nodes.A.start();
      nodes.B.start();
      const stops: Promise<void>[] = [];
      const end = T0 + 6 * MIN;
      while (clock.now() < end) {
        await clock.advance(1 + Math.floor(r() * 7 * SEC));
        const [who, other] = r() < 0.5 ? ["A", "B"] as const : ["B", "A"] as const;
        const x = r();
        if (x < 0.3 && up[other]) {
          // A grace at least the lead: what a node claimed ahead still starts.
          stops.push(nodes[who].stop({ grace: `${5 + Math.floor(r() * 8)}s` }));
          up[who] = false;
        } else if (x < 0.6) {
          nodes[who].start();
          up[who] = true;
        }
      }
      stops.push(nodes.A.stop(), nodes.B.stop());
      await clock.advance(40 * SEC);
      await Promise.all(stops);
      for (const [job, every] of [["a", 10], ["b", 10], ["c", 10], ["slow", 30]] as const) {
        const recorded = await rows(store, job);
        const bySlot = new Map(recorded.map((row) => [row.slot, row]));
        for (let slot = T0 + MIN; slot <= end; slot += every * SEC) {
          const key = `${job} ${new Date(slot).toISOString()}`;
          assert.equal(bySlot.get(slot)?.status, "ok", `${key}: ${bySlot.get(slot)?.status ?? "no row"}`);
          const started = runs.get(key) ?? [];
          assert.equal(started.length, 1, `${key} ran ${started.length} times`);
          assert.ok(started[0]!.at >= slot && started[0]!.at <= slot + 5 * SEC, `${key} started late`);
          assert.equal(started[0]!.node, bySlot.get(slot)?.node, key);
        }
      }
    });
  }
});
