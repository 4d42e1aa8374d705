import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  minuteEnd,
  RUN_AHEAD_MAX_MS,
  runAheadUntil,
  slotsAfter,
  triggerSlot,
} from "../../../src/engine/tick/run_ahead.ts";
import type { Schedule } from "../../../src/core/types.ts";
import { SchedulerError } from "../../../src/core/errors.ts";
import { cron } from "../../../src/core/mod.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { createManualClock } from "../../../src/engine/clock.ts";
import { MIN, ofType, rows, SEC, setup, T0 } from "../_helpers.ts";

const every10s = "*/10 * * * * *";

/** Registers the jobs in the store 1 ms before T0 (a new job never runs slots from before it existed), then moves to T0. */
async function prime(
  s: { clock: ReturnType<typeof createManualClock>; scheduler: { tick(now?: number): Promise<unknown> } },
  at = T0,
): Promise<void> {
  await s.scheduler.tick(T0 - 1);
  await s.clock.set(at);
}

/** Every slot `slotsAfter()` answers, in order. */
function slotsAhead(...args: Parameters<typeof slotsAfter>): number[] {
  const step = slotsAfter(...args);
  const times: number[] = [];
  for (let t = step(); t !== undefined; t = step()) times.push(t);
  return times;
}

/** Slot offsets (s from T0) and statuses of a job's rows, oldest first. */
async function table(store: Parameters<typeof rows>[0], job: string): Promise<string[]> {
  return (await rows(store, job)).map((r) => `${(r.slot - T0) / SEC}:${r.status}`);
}

describe("run-ahead", () => {
  it("minuteEnd() is the next minute boundary, also from a minute boundary", () => {
    assert.equal(minuteEnd(T0), T0 + MIN);
    assert.equal(minuteEnd(T0 + 59_999), T0 + MIN);
    assert.equal(minuteEnd(T0 + MIN), T0 + 2 * MIN);
  });

  it("runAheadUntil() ends at the trigger's next fire, or at the minute's end for a form it cannot read", () => {
    assert.equal(runAheadUntil("* * * * *", T0 + 5 * SEC), T0 + MIN);
    assert.equal(runAheadUntil("*/5 * * * *", T0 + 5 * SEC), T0 + 5 * MIN);
    assert.equal(runAheadUntil("not a cron", T0 + 5 * SEC), T0 + MIN);
    assert.equal(runAheadUntil(undefined, T0 + 5 * SEC), T0 + MIN);
  });

  it("triggerSlot() is the trigger's latest fire when it is under a minute ago (Deno.cron hands no time), else the clock", () => {
    assert.equal(triggerSlot("* * * * *", T0 + 40), T0);
    assert.equal(triggerSlot("* * * * *", T0), T0);
    assert.equal(triggerSlot("*/5 * * * *", T0 + 2 * MIN), T0 + 2 * MIN, "no fire within the last minute");
    assert.equal(triggerSlot("not a cron", T0 + 40), T0 + 40);
    assert.equal(triggerSlot(undefined, T0 + 40), T0 + 40);
  });

  it("slotsAfter() answers the distinct sub-minute slots strictly inside the window", () => {
    const schedules = [cron(every10s), cron("*/15 * * * * *"), cron("* * * * *")];
    assert.deepEqual(
      slotsAhead(schedules, T0, T0 + MIN).map((t) => (t - T0) / SEC),
      [10, 15, 20, 30, 40, 45, 50],
    );
    assert.deepEqual(slotsAhead([cron("* * * * *"), cron("0 * * * * *")], T0, T0 + MIN), []);
  });

  it("a once-a-minute trigger runs every 10 s slot once, and the next trigger neither repeats nor skips", async () => {
    const s = setup({ start: T0 - 1 });
    const seen: number[] = [];
    s.scheduler.job("ten", { schedule: every10s, run: (ctx) => void seen.push((ctx.slot - T0) / SEC) });
    await prime(s);
    const first = s.scheduler.tick(T0, { until: minuteEnd(T0) });
    await s.clock.advance(59_999);
    await first;
    // The boundary slot (60 s) belongs to the next trigger, not to this run-ahead.
    assert.deepEqual(seen, [0, 10, 20, 30, 40, 50]);
    await s.clock.advance(1);
    const second = s.scheduler.tick(T0 + MIN, { until: minuteEnd(T0 + MIN) });
    await s.clock.advance(MIN - 1);
    await second;
    assert.deepEqual(seen, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110]);
    assert.deepEqual(await table(s.store, "ten"), seen.map((t) => `${t}:ok`));
  });

  it("the very first trigger (a job the store has never seen) runs its own slot, then every slot ahead", async () => {
    const s = setup({ start: T0 });
    const seen: number[] = [];
    s.scheduler.job("ten", { schedule: every10s, run: (ctx) => void seen.push((ctx.slot - T0) / SEC) });
    const first = s.scheduler.tick(T0, { until: minuteEnd(T0) });
    await s.clock.advance(59_999);
    await first;
    assert.deepEqual(seen, [0, 10, 20, 30, 40, 50]);
    assert.deepEqual(await table(s.store, "ten"), seen.map((t) => `${t}:ok`));
  });

  it("a first trigger delivered late runs its own slot by the catch-up policy, never a slot from before it", async () => {
    const s = setup({ start: T0 + 25 * SEC });
    const seen: number[] = [];
    s.scheduler.job("ten", {
      schedule: every10s,
      catchUp: { mode: "all" },
      run: (ctx) => void seen.push((ctx.slot - T0) / SEC),
    });
    // scheduledTime T0, delivered 25 s late: the job exists from T0, so 0, 10 and 20 are due now.
    const first = s.scheduler.tick(T0, { until: minuteEnd(T0) });
    await s.clock.advance(MIN - 25 * SEC - 1);
    await first;
    assert.deepEqual(seen, [0, 10, 20, 30, 40, 50]);
  });

  it("claims each slot only when it is due", async () => {
    const s = setup({ start: T0 - 1 });
    s.scheduler.job("ten", { schedule: every10s, run: () => {} });
    await prime(s);
    const done = s.scheduler.tick(T0, { until: minuteEnd(T0) });
    await s.clock.advance(25 * SEC);
    assert.deepEqual(await table(s.store, "ten"), ["0:ok", "10:ok", "20:ok"]);
    await s.clock.advance(35 * SEC);
    await done;
  });

  it("two triggers racing on one store run each slot exactly once", async () => {
    const store = createMemoryStore();
    const clock = createManualClock(T0 - 1);
    const calls = new Map<number, number>();
    const make = (node: string) => {
      const s = setup({ store, clock, node });
      s.scheduler.job("ten", {
        schedule: every10s,
        run: (ctx) => void calls.set(ctx.slot, (calls.get(ctx.slot) ?? 0) + 1),
      });
      return s;
    };
    const a = make("a");
    const b = make("b");
    await prime({ clock, scheduler: a.scheduler });
    // Both receive the same scheduled event, and b a repeated delivery of it.
    const runs = [
      a.scheduler.tick(T0, { until: minuteEnd(T0) }),
      b.scheduler.tick(T0, { until: minuteEnd(T0) }),
      b.scheduler.tick(T0, { until: minuteEnd(T0) }),
    ];
    await clock.advance(MIN - 1);
    await Promise.all(runs);
    assert.deepEqual([...calls.entries()].map(([slot, n]) => [(slot - T0) / SEC, n]), [
      [0, 1],
      [10, 1],
      [20, 1],
      [30, 1],
      [40, 1],
      [50, 1],
    ]);
    assert.deepEqual(await table(store, "ten"), ["0:ok", "10:ok", "20:ok", "30:ok", "40:ok", "50:ok"]);
  });

  it("stop() ends the run-ahead; the next trigger records the unclaimed slots by the catch-up policy", async () => {
    const s = setup({ start: T0 - 1 });
    s.scheduler.job("ten", { schedule: every10s, run: () => {} });
    await prime(s);
    const first = s.scheduler.tick(T0, { until: minuteEnd(T0) });
    await s.clock.advance(25 * SEC);
    await s.scheduler.stop({ grace: 0, deadline: "1s" });
    await first;
    await s.clock.set(T0 + MIN);
    await s.scheduler.tick(T0 + MIN);
    // catch-up "latest": the newest due slot runs, the older unclaimed ones are missed.
    assert.deepEqual(await table(s.store, "ten"), [
      "0:ok",
      "10:ok",
      "20:ok",
      "30:missed",
      "40:missed",
      "50:missed",
      "60:ok",
    ]);
  });

  it("is off with runAhead: false", async () => {
    const s = setup({ start: T0 - 1, runAhead: false });
    s.scheduler.job("ten", { schedule: every10s, run: () => {} });
    await prime(s);
    await s.scheduler.tick(T0, { until: minuteEnd(T0) });
    assert.deepEqual(await table(s.store, "ten"), ["0:ok"]);
  });

  it("holds nothing when every slot falls on the minute", async () => {
    const s = setup({ start: T0 - 1 });
    s.scheduler.job("minutely", { schedule: "* * * * *", run: () => {} });
    s.scheduler.job("second-zero", { schedule: "0 * * * * *", run: () => {} });
    // Resolves without the clock moving: no timer was armed.
    await prime(s);
    await s.scheduler.tick(T0, { until: minuteEnd(T0) });
    assert.equal(s.clock.now(), T0);
    assert.equal((await rows(s.store, "minutely")).length, 1);
  });

  it("a late delivery runs the slots already due at once, then the rest on time", async () => {
    const s = setup({ start: T0 - 1 });
    const started: number[] = [];
    s.scheduler.job("ten", {
      schedule: every10s,
      catchUp: { mode: "all" },
      run: () => void started.push((s.clock.now() - T0) / SEC),
    });
    await prime(s, T0 + 25 * SEC);
    const done = s.scheduler.tick(T0, { until: minuteEnd(T0) });
    await s.clock.advance(35 * SEC - 1);
    await done;
    assert.deepEqual(started, [25, 25, 25, 30, 40, 50]);
    assert.deepEqual(await table(s.store, "ten"), ["0:ok", "10:ok", "20:ok", "30:ok", "40:ok", "50:ok"]);
  });

  it("a delivery later than its whole window decides that window's slots only; later minutes are their triggers'", async () => {
    // Its catch-up tick ran at the clock: 10 minutes late, it ran the current minute's slot
    // before its own trigger and recorded the 9 minutes between `missed`; their triggers,
    // still coming, then ran nothing.
    const s = setup({ start: T0 - 1 });
    s.scheduler.job("minutely", { schedule: "* * * * *", run: () => {} });
    s.scheduler.job("ten", { schedule: every10s, run: () => {} });
    await prime(s, T0 + 10 * MIN);
    await s.scheduler.tick(T0, { until: minuteEnd(T0) });
    assert.deepEqual(await table(s.store, "minutely"), ["0:ok"]);
    await s.scheduler.tick(T0 + MIN, { until: minuteEnd(T0 + MIN) });
    assert.deepEqual(await table(s.store, "minutely"), ["0:ok", "60:ok"]);
    // The 10 s job's slots of a window long past: the newest runs, the rest `missed` (catch-up "latest").
    assert.deepEqual((await table(s.store, "ten")).slice(0, 6), [
      "0:ok",
      "10:missed",
      "20:missed",
      "30:missed",
      "40:missed",
      "50:ok",
    ]);
  });

  it("a handler slower than the slot spacing does not delay the next claim", async () => {
    const s = setup({ start: T0 - 1 });
    const started: number[] = [];
    s.scheduler.job("slow", {
      schedule: every10s,
      overlap: "allow",
      run: (_ctx) => {
        started.push((s.clock.now() - T0) / SEC);
        return new Promise<void>((resolve) => void s.clock.setTimeout(resolve, 25 * SEC));
      },
    });
    await prime(s);
    const done = s.scheduler.tick(T0, { until: minuteEnd(T0) });
    await s.clock.advance(90 * SEC);
    await done;
    assert.deepEqual(started, [0, 10, 20, 30, 40, 50]);
  });
});

describe("run-ahead after a late trigger", () => {
  it("the catch-up tick does not wait for an unrelated long handler: all 60 per-second slots run", async () => {
    const s = setup({ start: T0 - 1 });
    s.scheduler.job("second", { schedule: "* * * * * *", run: () => {} });
    s.scheduler.job("minute", {
      schedule: "* * * * *",
      run: () => new Promise<void>((resolve) => void s.clock.setTimeout(resolve, 50 * SEC)),
    });
    await prime(s, T0 + 1_500);
    const done = s.scheduler.tick(T0, { until: minuteEnd(T0) });
    await s.clock.advance(MIN - 1_500 - 1);
    await done;
    const statuses = (await rows(s.store, "second")).map((r) => r.status);
    assert.equal(statuses.length, 60);
    assert.deepEqual(
      statuses.filter((x) => x !== "ok"),
      [],
      `60 slots, ${statuses.filter((x) => x === "ok").length} ok`,
    );
    assert.equal((await s.store.getRun("minute", T0))!.status, "ok");
  });

  it("a yearly trigger's run-ahead ends a day later, and tick() refuses an until further off, naming it", async () => {
    // runAheadUntil("0 0 1 1 *") was the next new year: the invocation was held all year.
    const now = Date.UTC(2026, 5, 1, 0, 0, 30);
    assert.equal(runAheadUntil("0 0 1 1 *", now), now + RUN_AHEAD_MAX_MS);
    assert.equal(runAheadUntil("0 0 * * *", now), Date.UTC(2026, 5, 2), "a daily trigger: its next fire");
    const s = setup({ start: T0 });
    s.scheduler.job("ten", { schedule: every10s, run: () => {} });
    await assert.rejects(s.scheduler.tick(T0, { until: T0 + RUN_AHEAD_MAX_MS + 1 }), (e: unknown) => {
      assert.ok(e instanceof SchedulerError && e.code === "invalid-spec", String(e));
      assert.equal(
        e.message,
        "invalid-spec: until: at most a day after now (2030-01-01T00:00:00.000Z): run-ahead holds the call until then, " +
          "got 2030-01-02T00:00:00.001Z",
      );
      return true;
    });
    assert.deepEqual(await rows(s.store, "ten"), [], "nothing claimed");
  });

  it("run-ahead steps one slot at a time: a day of a per-second job is not listed up front", async () => {
    // The whole window was listed first: a per-second job until a yearly trigger's next
    // fire is 18 million slots, past a Worker's 128 MB, before the first one ran.
    let fires = 0;
    const counted = (schedule: Schedule): Schedule => ({
      ...schedule,
      next: (after) => (fires++, schedule.next(after)),
      prev: (before) => schedule.prev(before),
      between: function* (from, to) {
        for (const t of schedule.between(from, to)) yield (fires++, t);
      },
      toJSON: () => schedule.toJSON(),
    });
    const s = setup({ start: T0 });
    const seen: number[] = [];
    s.scheduler.job("sec", { schedule: counted(cron("* * * * * *")), run: (ctx) => void seen.push(ctx.slot) });
    const held = s.scheduler.tick(T0, { until: T0 + RUN_AHEAD_MAX_MS });
    await s.clock.advance(3 * SEC);
    assert.deepEqual(seen, [T0, T0 + SEC, T0 + 2 * SEC, T0 + 3 * SEC]);
    await s.scheduler.stop();
    await held;
    // About 1 000 are the start-up history estimate's sample (once); the window holds 86 400.
    assert.ok(fires < 5_000, `${fires} fire times computed for 4 slots run`);
  });

  it("slotsAfter() answers the distinct slots in order and drops the schedules done with the window", () => {
    let minuteCalls = 0;
    const minute = cron("* * * * *");
    const spy: Schedule = { ...minute, next: (t) => (minuteCalls++, minute.next(t)), toJSON: () => minute.toJSON() };
    const step = slotsAfter([cron(every10s), cron("*/15 * * * * *"), spy, spy], T0, T0 + MIN);
    const got: number[] = [];
    for (let t = step(); t !== undefined; t = step()) got.push((t - T0) / SEC);
    assert.deepEqual(got, [10, 15, 20, 30, 40, 45, 50]);
    assert.equal(minuteCalls, 2, "a minute schedule is asked once, not once per slot");
    assert.equal(step(), undefined);
  });

  it("a trigger for a time still to come runs nothing early: it ticks at the clock, and runs ahead as long as asked, each slot at its time", async () => {
    // It ran the 00:10 slot at 00:00 and recorded the nine minutes before it `missed`, and
    // later ticks found nothing to plan until the clock reached 00:10. Held to its `until`
    // after that, a trigger a year ahead held its call for a day.
    const s = setup({ start: T0 });
    const ran: [slot: number, at: number][] = [];
    s.scheduler.job("minutely", { schedule: "* * * * *", run: (ctx) => void ran.push([ctx.slot, s.clock.now()]) });
    const ticking = s.scheduler.tick(T0 + 10 * MIN, { until: T0 + 13 * MIN });
    await s.clock.advance(3 * MIN - 1);
    assert.deepEqual(ran.map(([slot]) => slot), [T0, T0 + MIN, T0 + 2 * MIN]);
    await s.clock.advance(1);
    const report = await ticking;
    assert.equal(report.now, T0, "the tick was at the clock");
    assert.equal(s.clock.now(), T0 + 3 * MIN, "held three minutes, as asked");
    assert.equal(ran.length, 3);
    for (const [slot, at] of ran) assert.equal(at, slot, "each slot ran at its time");
    assert.deepEqual(ofType(s.events, "missed"), []);
    assert.ok(s.logger.lines.some((l) => l.startsWith("warn tick at 2030-01-01T00:10:00.000Z is ahead of the clock")));
    // A year ahead: no longer than its own minute.
    const year = s.scheduler.tick(T0 + 365 * 24 * 60 * MIN, { until: T0 + 365 * 24 * 60 * MIN + MIN });
    await s.clock.advance(MIN);
    await year;
    assert.equal(s.clock.now(), T0 + 4 * MIN);
    assert.deepEqual(ran.map(([slot]) => slot).slice(3), [T0 + 3 * MIN], "its own minute from the clock");
  });

  it("slotsAfter() drops a schedule whose next() does not move forward", () => {
    const stuck: Schedule = { ...cron("* * * * *"), next: (t) => t, toJSON: () => ({ cron: "* * * * *" }) };
    const step = slotsAfter([stuck, cron(every10s)], T0, T0 + MIN);
    const got: number[] = [];
    for (let t = step(); t !== undefined && got.length < 100; t = step()) got.push((t - T0) / SEC);
    assert.deepEqual(got, [10, 20, 30, 40, 50]);
  });
});
