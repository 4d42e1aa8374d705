// tick(now) from a platform trigger or a caller: a `now` ahead of the scheduler's clock is
// ticked at the clock (no slot runs before its time), and a `now` behind the last tick
// decides its own window only and leaves `lastTick` where it was.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MIN, ofType, rows, SEC, setup, T0, tickAt } from "./_helpers.ts";

describe("tick(now) against the clock", () => {
  it("a now ahead of the clock runs nothing early and records nothing missed; the slot runs once when due", async () => {
    // It ran 00:10 at 00:00:30, recorded 00:01-00:09 `missed`, and the ticks at 00:01 and
    // 00:02 then had nothing left to plan: the job was blocked until the clock reached 00:10.
    const s = setup({ start: T0 + 30 * SEC });
    const ran: number[] = [];
    s.scheduler.job("minutely", { schedule: "* * * * *", run: (ctx) => void ran.push(ctx.slot) });
    await s.scheduler.tick(); // registers at 00:00:30: no slot
    const ahead = await s.scheduler.tick(T0 + 10 * MIN);
    assert.equal(ahead.now, T0 + 30 * SEC, "ticked at the clock");
    assert.deepEqual(ran, []);
    assert.deepEqual(await rows(s.store, "minutely"), []);
    assert.equal((await s.scheduler.health()).lastTick, T0 + 30 * SEC);
    assert.ok(
      s.logger.lines.includes(
        "warn tick at 2030-01-01T00:10:00.000Z is ahead of the clock (2030-01-01T00:00:30.000Z): ticked at the clock",
      ),
      s.logger.lines.join("\n"),
    );
    await tickAt(s, T0 + MIN);
    await tickAt(s, T0 + MIN + 30 * SEC);
    await tickAt(s, T0 + 2 * MIN);
    assert.deepEqual(ran, [T0 + MIN, T0 + 2 * MIN]);
    assert.deepEqual((await rows(s.store, "minutely")).map((r) => [r.slot, r.status]), [
      [T0 + MIN, "ok"],
      [T0 + 2 * MIN, "ok"],
    ]);
    assert.deepEqual(ofType(s.events, "missed"), []);
  });

  it("a late trigger runs a catchUp none slot only when the clock finds it at most tolerance late", async () => {
    // Lateness was measured at the trigger's own time: a Cron Trigger delivered five minutes
    // late ran a `none` job's slot five minutes late, past its one-minute tolerance.
    const s = setup({ start: T0 + 15 * MIN });
    const ran: number[] = [];
    s.scheduler.job("strict", {
      schedule: "*/5 * * * *",
      catchUp: { mode: "none", tolerance: "1m" },
      run: (ctx) => void ran.push(ctx.slot),
    });
    await s.scheduler.tick(T0 + 10 * MIN);
    assert.deepEqual(ran, []);
    assert.deepEqual((await rows(s.store, "strict")).map((r) => [r.slot, r.status]), [[T0 + 10 * MIN, "missed"]]);
    await tickAt(s, T0 + 15 * MIN + 30 * SEC);
    assert.deepEqual(ran, [T0 + 15 * MIN], "30 s late: inside the tolerance");
  });

  it("a now behind the last tick (a late or repeated delivery, a time of 0) leaves lastTick and re-runs nothing", async () => {
    const s = setup({ start: T0 + 30 * SEC });
    const ran: number[] = [];
    s.scheduler.job("minutely", { schedule: "* * * * *", run: (ctx) => void ran.push(ctx.slot) });
    await s.scheduler.tick();
    await tickAt(s, T0 + MIN);
    for (const late of [T0 + MIN, T0, 0]) {
      const report = await s.scheduler.tick(late);
      assert.deepEqual([report.ok, report.now, Object.keys(report.jobs)], [true, late, []], `tick(${late})`);
      assert.equal((await s.scheduler.health()).lastTick, T0 + MIN, `tick(${late}) left lastTick`);
    }
    assert.ok(
      s.logger.lines.includes(
        "info tick at 1970-01-01T00:00:00.000Z is older than the last tick (2030-01-01T00:01:00.000Z): lastTick kept",
      ),
      s.logger.lines.join("\n"),
    );
    await tickAt(s, T0 + 2 * MIN);
    assert.deepEqual(ran, [T0 + MIN, T0 + 2 * MIN]);
    assert.deepEqual((await rows(s.store, "minutely")).map((r) => [r.slot, r.status]), [
      [T0 + MIN, "ok"],
      [T0 + 2 * MIN, "ok"],
    ]);
    assert.equal((await s.scheduler.health()).lastTick, T0 + 2 * MIN);
  });
});
