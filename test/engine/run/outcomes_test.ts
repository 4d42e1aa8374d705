import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { faultyStore } from "../_faulty.ts";
import { MIN, ofType, rows, setup, T0, tickAt } from "../_helpers.ts";

describe("outcome writes: group commit", () => {
  it("outcomes of runs finishing together go to the store as one updateMany, not one update each", async () => {
    const store = faultyStore();
    const s = setup({ store, start: T0 - MIN + 1 });
    for (let i = 0; i < 50; i++) s.scheduler.job(`j${i}`, { schedule: "* * * * *", run: () => {} });
    await tickAt(s, T0 - MIN + 1);
    const report = await tickAt(s, T0);
    assert.equal(Object.values(report.jobs).filter((r) => r.outcomes[T0] === "ok").length, 50);
    assert.ok((store.calls["updateMany"] ?? 0) >= 1);
    assert.ok((store.calls["updateMany"] ?? 0) + (store.calls["update"] ?? 0) <= 3, JSON.stringify(store.calls));
    for (let i = 0; i < 50; i++) assert.equal((await rows(store, `j${i}`))[0]!.status, "ok");
  });

  it("a failed batch falls back to per-write retries: every outcome recorded once, nothing re-run", async () => {
    const store = faultyStore();
    const s = setup({ store, start: T0 - MIN + 1 });
    const ran: string[] = [];
    for (let i = 0; i < 20; i++) {
      s.scheduler.job(`j${i}`, {
        schedule: "* * * * *",
        retries: { attempts: 3 },
        run: (ctx) => void ran.push(`${ctx.job}@${ctx.attempt}`),
      });
    }
    await tickAt(s, T0 - MIN + 1);
    store.failNext("updateMany", 5);
    store.failNext("update", 3);
    const ticking = s.scheduler.tick(T0);
    await s.clock.set(T0);
    for (let i = 0; i < 10; i++) await s.clock.advance(1_000);
    await ticking;
    assert.equal(ran.length, 20, "each job ran once");
    for (let i = 0; i < 20; i++) {
      const [row] = await rows(store, `j${i}`);
      assert.deepEqual([row!.status, row!.attempt], ["ok", 1]);
    }
    assert.equal(ofType(s.events, "lost").length, 0);
  });
});
