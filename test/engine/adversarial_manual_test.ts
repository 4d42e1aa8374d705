// Adversarial: manual runs, pause/resume and data-defined jobs racing scheduled ticks.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../src/store/memory/mod.ts";
import { deferred, MIN, rows, SEC, setup, T0, tally, tickAt } from "./_helpers.ts";

/** Every row's slot, and whether each slot in `expected` has exactly one row. */
async function accounted(store: ReturnType<typeof createMemoryStore>, job: string, expected: number[]): Promise<void> {
  const all = await rows(store, job);
  assert.deepEqual(all.map((r) => r.slot), expected);
  assert.equal(all.filter((r) => r.status === "running").length, 0);
}

describe("adversarial: manual runs", () => {
  it("run(due) records the older unrecorded slots of the window missed, so none is lost", async () => {
    const s = setup();
    const ran: number[] = [];
    s.scheduler.job("m", { schedule: "* * * * *", run: (ctx) => void ran.push(ctx.slot) });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + 5 * MIN + 30 * SEC);
    const result = await s.scheduler.run("m", { mode: "due" });
    assert.deepEqual(result, { ok: true, job: "m", slot: T0 + 5 * MIN, outcome: "ok" });
    await tickAt(s, T0 + 6 * MIN);
    assert.deepEqual(ran, [T0 + 5 * MIN, T0 + 6 * MIN]);
    await accounted(s.store, "m", [1, 2, 3, 4, 5, 6].map((i) => T0 + i * MIN));
    assert.deepEqual(tally(await rows(s.store, "m")), { missed: 4, ok: 2 });
  });

  it("run(due) on one node racing a tick on another runs the slot once and accounts every slot", async () => {
    for (const first of ["manual", "tick"] as const) {
      const store = createMemoryStore();
      const a = setup({ store, node: "a" });
      const b = setup({ store, node: "b", clock: a.clock });
      const ran: string[] = [];
      for (const s of [a, b]) {
        s.scheduler.job("m", {
          schedule: "* * * * *",
          run: (ctx) => void ran.push(`${s.scheduler.node}:${ctx.slot}`),
        });
      }
      await tickAt(a, T0 + 1);
      await a.clock.set(T0 + 3 * MIN + SEC);
      const calls = [() => a.scheduler.run("m", { mode: "due" }), () => b.scheduler.tick()];
      if (first === "tick") calls.reverse();
      await Promise.all(calls.map((call) => call()));
      await tickAt(b, T0 + 4 * MIN);
      assert.equal(ran.filter((r) => r.endsWith(`:${T0 + 3 * MIN}`)).length, 1, first);
      await accounted(store, "m", [1, 2, 3, 4].map((i) => T0 + i * MIN));
    }
  });

  it("run(force) at a slot's exact instant racing that slot's tick on another node: one run, the slot accounted", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a" });
    const b = setup({ store, node: "b", clock: a.clock });
    let live = 0;
    let peak = 0;
    const slots: number[] = [];
    const gate = deferred();
    for (const s of [a, b]) {
      s.scheduler.job("m", {
        schedule: "* * * * *",
        run: async (ctx) => {
          slots.push(ctx.slot);
          peak = Math.max(peak, ++live);
          await gate.promise;
          live--;
        },
      });
    }
    await tickAt(a, T0 + 1);
    await a.clock.set(T0 + MIN);
    const both = Promise.all([a.scheduler.run("m", { mode: "force" }), b.scheduler.tick()]);
    await a.clock.settle();
    gate.resolve();
    await both;
    await tickAt(b, T0 + 2 * MIN);
    assert.equal(peak, 1);
    assert.deepEqual(slots, [T0 + MIN, T0 + 2 * MIN]);
    assert.equal((await rows(store, "m")).filter((r) => r.status === "running").length, 0);
  });
});

describe("adversarial: pause and resume racing ticks", () => {
  it("pause/resume flipping between two nodes' ticks never runs a slot twice and leaves every slot one row", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a" });
    const b = setup({ store, node: "b", clock: a.clock });
    const ran: number[] = [];
    for (const s of [a, b]) s.scheduler.job("p", { schedule: "* * * * *", run: (ctx) => void ran.push(ctx.slot) });
    await tickAt(a, T0 + 1);
    for (let i = 1; i <= 10; i++) {
      await a.clock.set(T0 + i * MIN);
      const flip = i % 3 === 0 ? a.scheduler.resume("p") : i % 2 === 0 ? b.scheduler.pause("p") : Promise.resolve();
      await Promise.all([flip, a.scheduler.tick(), b.scheduler.tick()]);
    }
    assert.equal(new Set(ran).size, ran.length);
    await accounted(store, "p", Array.from({ length: 10 }, (_, i) => T0 + (i + 1) * MIN));
  });
});

describe("adversarial: data-defined jobs changing under a run", () => {
  function slowFetch() {
    const gate = deferred();
    const calls: string[] = [];
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      calls.push(new Request(input, init).headers.get("edgecron-slot") ?? "?");
      await gate.promise;
      return new Response("ok");
    };
    return { gate, calls, fetch: fetch as typeof globalThis.fetch };
  }
  const hook = (schedule: string) => ({ schedule, target: { url: "https://example.test/hook" } });

  it("redefined with a new schedule while running: the run is recorded, later slots follow the new schedule", async () => {
    const f = slowFetch();
    const s = setup({ start: T0 + 1, fetch: f.fetch, webhookSecret: "k" });
    await s.scheduler.define("hook", hook("* * * * *"));
    await s.clock.set(T0 + MIN);
    const running = s.scheduler.tick();
    await s.clock.settle();
    await s.scheduler.define("hook", hook("*/5 * * * *"));
    f.gate.resolve();
    assert.equal((await running).jobs["hook"]!.outcomes[T0 + MIN], "ok");
    for (let i = 2; i <= 10; i++) await tickAt(s, T0 + i * MIN);
    await accounted(s.store, "hook", [T0 + MIN, T0 + 5 * MIN, T0 + 10 * MIN]);
    assert.equal(f.calls.length, 3);
  });

  it("deleted while running: the run is recorded and nothing else is planned", async () => {
    const f = slowFetch();
    const s = setup({ start: T0 + 1, fetch: f.fetch, webhookSecret: "k" });
    await s.scheduler.define("hook", hook("* * * * *"));
    await s.clock.set(T0 + MIN);
    const running = s.scheduler.tick();
    await s.clock.settle();
    assert.equal(await s.scheduler.undefine("hook"), true);
    f.gate.resolve();
    assert.equal((await running).jobs["hook"]!.outcomes[T0 + MIN], "ok");
    for (let i = 2; i <= 4; i++) await tickAt(s, T0 + i * MIN);
    await accounted(s.store, "hook", [T0 + MIN]);
  });

  it("a code job and another node's data job of the same name never both run a slot", async () => {
    const store = createMemoryStore();
    const f = slowFetch();
    f.gate.resolve();
    const a = setup({ store, node: "a", start: T0 + 1 });
    const b = setup({ store, node: "b", clock: a.clock, fetch: f.fetch, webhookSecret: "k" });
    const ran: number[] = [];
    a.scheduler.job("x", { schedule: "* * * * *", run: (ctx) => void ran.push(ctx.slot) });
    await b.scheduler.define("x", hook("* * * * *"));
    for (let i = 1; i <= 6; i++) {
      await a.clock.set(T0 + i * MIN);
      await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
    }
    assert.equal(ran.length + f.calls.length, 6);
    assert.ok(a.logger.lines.some((l) => l.includes("both code- and data-defined")));
    await accounted(store, "x", Array.from({ length: 6 }, (_, i) => T0 + (i + 1) * MIN));
  });
});
