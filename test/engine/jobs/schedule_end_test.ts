// Cron schedules that end (a year field) and that hash (H): what the engine does with
// them. The engine gives each job's name to H as its hash key.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fieldHash } from "../../../src/core/cron/mod.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { HOUR, MIN, rows, setup, T0, tally, tickAt } from "../_helpers.ts";

describe("engine: a schedule whose next() returns null", () => {
  it("runs the last slot of a year field once, then ticks and lists with no slots left", async () => {
    const s = setup({ start: T0 - HOUR });
    const ran: number[] = [];
    // T0 is 2030-01-01: the job's only fire is at T0.
    s.scheduler.job("once-in-2030", { schedule: "0 0 0 1 1 * 2030", run: (ctx) => void ran.push(ctx.slot) });
    await tickAt(s, T0 - MIN);
    await tickAt(s, T0);
    const later = await tickAt(s, T0 + 2 * HOUR);
    assert.deepEqual(ran, [T0]);
    assert.deepEqual(later.jobs["once-in-2030"]?.planned ?? [], []);
    assert.deepEqual(tally(await rows(s.store, "once-in-2030")), { ok: 1 });
    const info = await s.scheduler.get("once-in-2030");
    assert.deepEqual(info!.next, []);
    assert.equal(info!.schedule, "0 0 0 1 1 * 2030");
  });

  it("accepts a job whose years have all passed, and never runs it", async () => {
    const s = setup();
    let runs = 0;
    s.scheduler.job("past", { schedule: "0 0 12 * * ? 2020", run: () => void runs++ });
    await tickAt(s, T0 + HOUR);
    await tickAt(s, T0 + 30 * HOUR);
    assert.equal(runs, 0);
    assert.deepEqual((await s.scheduler.get("past"))!.next, []);
  });
});

describe("engine: H hashes the job's name", () => {
  it("two jobs with the same H expression run at the minutes their names hash to", async () => {
    const s = setup();
    const ran = new Map<string, number[]>();
    for (const name of ["alpha", "beta"]) {
      ran.set(name, []);
      s.scheduler.job(name, { schedule: "H * * * *", run: (ctx) => void ran.get(name)!.push(ctx.slot) });
    }
    for (let t = T0 + MIN; t <= T0 + HOUR; t += MIN) await tickAt(s, t);
    for (const name of ["alpha", "beta"]) {
      const minute = fieldHash(name, "minute") % 60;
      assert.deepEqual(ran.get(name), [T0 + (minute === 0 ? 60 : minute) * MIN], name);
      assert.equal((await s.scheduler.get(name))!.schedule, "H * * * *");
    }
  });
});

describe("engine: H in a data-defined job", () => {
  it("another node reading the stored definition computes the same slot", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a", webhookSecret: "k" });
    const b = setup({ store, node: "b", clock: a.clock });
    const info = await a.scheduler.define("hashed-hook", {
      schedule: "H * * * *",
      target: { url: "https://example.test/h" },
    });
    const minute = fieldHash("hashed-hook", "minute") % 60;
    assert.equal(info.next[0], T0 + (minute === 0 ? 60 : minute) * MIN);
    await b.scheduler.tick();
    assert.deepEqual((await b.scheduler.get("hashed-hook"))!.next.slice(0, 1), info.next.slice(0, 1));
  });
});
