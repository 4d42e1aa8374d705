// scheduler.backfill(): the schedule's own slots in [from, to), in order, each claimed once.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { createMemoryStore } from "../../src/store/memory/mod.ts";
import { HOUR, MIN, rows, setup, T0 } from "./_helpers.ts";
import { gate } from "./run/_gate.ts";

/** An instant from a wall time and a UTC offset in minutes, computed by hand (no zone database). */
const wall = (y: number, mo: number, d: number, h: number, mi: number, offsetMin: number): number =>
  Date.UTC(y, mo - 1, d, h, mi) - offsetMin * MIN;

const iso = (slots: readonly number[]): string[] => slots.map((s) => new Date(s).toISOString());

async function backfillSlots(
  schedule: string,
  timezone: string,
  from: number,
  to: number,
): Promise<{ planned: number[]; ran: number[]; kinds: string[] }> {
  const s = setup({ start: to + HOUR });
  const seen: number[] = [];
  s.scheduler.job("j", { schedule, timezone, run: (ctx) => void seen.push(ctx.slot) });
  let planned: readonly number[] = [];
  const report = await s.scheduler.backfill("j", { from, to, onPlan: (slots) => (planned = slots) });
  assert.deepEqual(report.ran, seen, "the report lists what ran, in order");
  return { planned: [...planned], ran: seen, kinds: (await rows(s.store, "j")).map((r) => r.kind) };
}

describe("backfill", () => {
  it("runs every slot of [from, to) once, oldest first, as kind backfill; to is exclusive", async () => {
    const s = setup({ start: T0 + HOUR });
    const h = gate(s.clock);
    s.scheduler.job("j", { schedule: "0 * * * *", run: h.run });
    const done = s.scheduler.backfill("j", { from: T0 - 3 * HOUR, to: new Date(T0) });
    for (const k of [3, 2, 1]) {
      await h.until(() => h.state.started.length === 4 - k, `slot -${k}h starts`);
      await h.release(T0 - k * HOUR);
    }
    const report = await done;
    assert.deepEqual(h.state.started, [T0 - 3 * HOUR, T0 - 2 * HOUR, T0 - HOUR]);
    assert.equal(h.state.peak, 1);
    assert.deepEqual([report.planned, report.ran.length, report.skipped, report.stopped], [3, 3, [], false]);
    assert.deepEqual(Object.values(report.outcomes), ["ok", "ok", "ok"]);
    assert.deepEqual((await rows(s.store, "j")).map((r) => [r.slot, r.kind, r.status]), [
      [T0 - 3 * HOUR, "backfill", "ok"],
      [T0 - 2 * HOUR, "backfill", "ok"],
      [T0 - HOUR, "backfill", "ok"],
    ]);
  });

  it("skips slots that already have a row, unless rerun, which runs them as a new attempt", async () => {
    const s = setup({ start: T0 + HOUR });
    let calls = 0;
    s.scheduler.job("j", { schedule: "0 * * * *", run: () => void calls++ });
    await s.scheduler.backfill("j", { from: T0 - 2 * HOUR, to: T0 });
    const again = await s.scheduler.backfill("j", { from: T0 - 2 * HOUR, to: T0 + 1 });
    assert.deepEqual(again.skipped, [{ slot: T0 - 2 * HOUR, reason: "exists" }, { slot: T0 - HOUR, reason: "exists" }]);
    assert.deepEqual(again.ran, [T0]);
    const rerun = await s.scheduler.backfill("j", { from: T0 - 2 * HOUR, to: T0, rerun: true });
    assert.deepEqual(rerun.ran, [T0 - 2 * HOUR, T0 - HOUR]);
    assert.equal(calls, 5);
    assert.deepEqual((await rows(s.store, "j")).map((r) => r.attempt), [2, 2, 1]);
  });

  it("two nodes backfilling the same range run each slot once, one at a time", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a", start: T0 + HOUR });
    const b = setup({ store, node: "b", clock: a.clock });
    const h = gate(a.clock);
    for (const s of [a, b]) s.scheduler.job("j", { schedule: "0 * * * *", run: h.run });
    const range = { from: T0 - 4 * HOUR, to: T0 };
    const both = Promise.all([a.scheduler.backfill("j", range), b.scheduler.backfill("j", range)]);
    for (let k = 4; k >= 1; k--) {
      await h.until(() => h.state.started.length === 5 - k, `slot -${k}h starts`);
      await h.release(T0 - k * HOUR);
      // A node waiting on the other's run looks again each heartbeat.
      await a.clock.advance(5_000);
    }
    const [ra, rb] = await both;
    assert.deepEqual(h.state.started, [4, 3, 2, 1].map((k) => T0 - k * HOUR));
    assert.equal(h.state.peak, 1);
    assert.equal(ra.skipped.length + rb.skipped.length >= 1, true, "the second node found slots taken");
    assert.deepEqual((await rows(store, "j")).map((r) => [r.status, r.attempt]), [["ok", 1], ["ok", 1], ["ok", 1], [
      "ok",
      1,
    ]]);
  });

  it("a slot whose turn comes beside a live run waits for it (bufferAll), or is skipped with overlap skip", async () => {
    const s = setup({ start: T0 - MIN });
    const h = gate(s.clock);
    s.scheduler.job("j", { schedule: "0 * * * *", run: h.run });
    await s.scheduler.tick();
    await s.clock.set(T0);
    const tick = s.scheduler.tick();
    await h.until(() => h.state.started.length === 1, "the live run starts");
    const skipped = await s.scheduler.backfill("j", { from: T0 - 2 * HOUR, to: T0 - HOUR + 1, overlap: "skip" });
    assert.deepEqual(skipped.skipped, [{ slot: T0 - 2 * HOUR, reason: "overlap" }, {
      slot: T0 - HOUR,
      reason: "overlap",
    }]);
    const waiting = s.scheduler.backfill("j", { from: T0 - 3 * HOUR, to: T0 - 2 * HOUR });
    await s.clock.settle();
    assert.deepEqual(h.state.started, [T0], "the backfill waits for the live run");
    await h.release(T0);
    await h.until(() => h.state.started.length === 2, "then it runs");
    await h.release(T0 - 3 * HOUR);
    assert.deepEqual((await waiting).ran, [T0 - 3 * HOUR]);
    await tick;
    assert.equal(h.state.peak, 1);
  });

  it("a signal stops it after the current slot", async () => {
    const s = setup({ start: T0 });
    const h = gate(s.clock);
    s.scheduler.job("j", { schedule: "0 * * * *", run: h.run });
    const controller = new AbortController();
    const done = s.scheduler.backfill("j", { from: T0 - 5 * HOUR, to: T0, signal: controller.signal });
    await h.until(() => h.state.started.length === 1, "the first slot starts");
    controller.abort();
    await h.release(T0 - 5 * HOUR);
    const report = await done;
    assert.deepEqual([report.stopped, report.ran, report.planned], [true, [T0 - 5 * HOUR], 5]);
    assert.equal((await rows(s.store, "j")).length, 1, "no slot after the stop was recorded");
  });

  it("yields to the event loop between slots: timers and I/O run while it does", async () => {
    // On a store that answers in the same turn, all slots ran as one chain of microtasks:
    // a timer set before it fired only after the last slot (7 s for 3 000 slots on libSQL).
    const s = setup({ start: T0 });
    let ran = 0;
    s.scheduler.job("j", { schedule: "* * * * *", run: () => void ran++ });
    const seen: number[] = [];
    const done = s.scheduler.backfill("j", { from: T0 - 200 * MIN, to: T0 });
    await new Promise<void>((resolve) => setTimeout(resolve, 0)).then(() => seen.push(ran));
    const report = await done;
    assert.equal(report.ran.length, 200);
    // Before, the timer ran only once all 200 had run. (How soon it runs is the host's timer
    // granularity: after 1-3 slots on Node, 14 on Bun, whose 0 ms timer is due a millisecond on.)
    assert.ok(seen[0]! < 200, `a timer ran only after ${seen[0]} of 200 slots`);
  });

  it("ends when its job is deleted or redefined, after the slot it is on (it went on delivering)", async () => {
    for (const change of ["undefine", "redefine"] as const) {
      const hook = { schedule: "0 * * * *", target: { url: "https://example.test/hook" } };
      const calls: string[] = [];
      const ref: { s?: ReturnType<typeof setup> } = {};
      const fetch = async (input: RequestInfo | URL): Promise<Response> => {
        calls.push(String(input));
        if (calls.length === 2) {
          if (change === "undefine") await ref.s!.scheduler.undefine("hook");
          else await ref.s!.scheduler.define("hook", { ...hook, target: { url: "https://example.test/other" } });
        }
        return new Response("ok");
      };
      const s = ref.s = setup({ start: T0, webhookSecret: "k", fetch: fetch as typeof globalThis.fetch });
      await s.scheduler.define("hook", hook);
      const report = await s.scheduler.backfill("hook", { from: T0 - 6 * HOUR, to: T0 });
      assert.deepEqual([report.stopped, report.ran, report.planned], [true, [T0 - 6 * HOUR, T0 - 5 * HOUR], 6], change);
      assert.deepEqual(calls, ["https://example.test/hook", "https://example.test/hook"], change);
    }
  });

  /**
   * Node "a" backfills a data job (six hourly slots) while node "b", on the same store,
   * does `onSecond` during a's second delivery.
   */
  const hourlyHook = { schedule: "0 * * * *", target: { url: "https://example.test/hook" } };
  const backfillBeside = async (onSecond: (b: ReturnType<typeof setup>) => Promise<unknown>) => {
    const store = createMemoryStore();
    const calls: string[] = [];
    const ref: { b?: ReturnType<typeof setup> } = {};
    const fetch = async (input: RequestInfo | URL): Promise<Response> => {
      calls.push(String(input));
      if (calls.length === 2) await onSecond(ref.b!);
      return new Response("ok");
    };
    const a = setup({ start: T0, store, node: "a", webhookSecret: "k", fetch: fetch as typeof globalThis.fetch });
    ref.b = setup({ clock: a.clock, store, node: "b", webhookSecret: "k" });
    await a.scheduler.define("hook", hourlyHook);
    const report = await a.scheduler.backfill("hook", { from: T0 - 6 * HOUR, to: T0 });
    return { store, calls, report };
  };

  it("ends when another node deletes its job, though this node has not ticked since", async () => {
    // This node's registry learned of the delete at its next tick only: 1 724 of 2 000
    // deliveries went out after another node's undefine().
    const { report, calls } = await backfillBeside((b) => b.scheduler.undefine("hook"));
    assert.deepEqual([report.stopped, report.ran.length, calls.length], [true, 2, 2]);
  });

  it("ends when another node deletes its job and creates it again with the very same spec", async () => {
    // Taken for a PUT of the same definition, the old backfill went on under the new job:
    // its deliveries after the re-create, its rows in the new job's history, and the new
    // job's first live slot `skipped` behind it.
    const { report, calls, store } = await backfillBeside(async (b) => {
      await b.scheduler.undefine("hook");
      await b.clock.advance(1_000);
      await b.scheduler.define("hook", hourlyHook);
    });
    assert.deepEqual([report.stopped, report.ran.length, calls.length], [true, 2, 2]);
    // Of the old backfill only the slot in flight at the delete is left, with its outcome.
    const left = (await store.runs("hook", { limit: 100 })).filter((r) => r.kind === "backfill");
    assert.deepEqual(left.map((r) => [r.slot, r.status]), [[report.ran[1], "ok"]]);
  });

  it("a PUT of the very same definition (a deploy that syncs every job) does not end the backfill", async () => {
    const hook = { schedule: "0 * * * *", target: { url: "https://example.test/hook" } };
    const calls: string[] = [];
    const ref: { s?: ReturnType<typeof setup> } = {};
    const fetch = async (input: RequestInfo | URL): Promise<Response> => {
      calls.push(String(input));
      if (calls.length === 2) await ref.s!.scheduler.define("hook", hook); // a new version, the same spec
      return new Response("ok");
    };
    const s = ref.s = setup({ start: T0, webhookSecret: "k", fetch: fetch as typeof globalThis.fetch });
    await s.scheduler.define("hook", hook);
    const report = await s.scheduler.backfill("hook", { from: T0 - 6 * HOUR, to: T0 });
    assert.deepEqual([report.stopped, report.ran.length, calls.length], [false, 6, 6]);
  });

  it("refuses a reversed range, bad instants, too many slots and unknown jobs before running anything", async () => {
    const s = setup({ start: T0 });
    s.scheduler.job("j", { schedule: "* * * * *", run: () => {} });
    const refuses = async (promise: Promise<unknown>, code: string, text: RegExp): Promise<void> => {
      await assert.rejects(
        promise,
        (e: unknown) => e instanceof SchedulerError && e.code === code && text.test(e.message),
      );
    };
    // A misspelt option was ignored, and the backfill ran without it.
    await refuses(
      s.scheduler.backfill("j", { from: T0 - HOUR, to: T0, rerunn: true } as never),
      "invalid-spec",
      /^invalid-spec: backfill\.rerunn: unknown option \(it takes from, to, rerun, overlap, signal, onPlan\); did you mean "rerun"\?$/,
    );
    // The one check every option list shares: an option set to undefined is absent (it was refused here alone).
    await refuses(
      s.scheduler.backfill("j", { from: T0, to: T0, rerunn: undefined } as never),
      "invalid-spec",
      /^invalid-spec: to: must be after from/,
    );
    await refuses(
      s.scheduler.backfill("j", { from: T0, to: T0 }),
      "invalid-spec",
      /^invalid-spec: to: must be after from/,
    );
    await refuses(
      s.scheduler.backfill("j", { from: T0, to: T0 + 2 * MIN }),
      "invalid-spec",
      /^invalid-spec: to: must not be in the future/,
    );
    await refuses(s.scheduler.backfill("j", { from: "yesterday", to: T0 }), "invalid-instant", /from: .*"yesterday"/);
    await refuses(
      s.scheduler.backfill("j", { from: T0 - 10_001 * MIN, to: T0 }),
      "invalid-spec",
      /more than 10000 slots of "j"/,
    );
    await refuses(
      s.scheduler.backfill("j", { from: T0 - MIN, to: T0, overlap: "cancelOther" as never }),
      "invalid-spec",
      /overlap: .*"cancelOther"/,
    );
    await refuses(s.scheduler.backfill("nope", { from: T0 - MIN, to: T0 }), "unknown-job", /"nope"/);
    // Exactly at the cap is fine.
    const report = await s.scheduler.backfill("j", {
      from: T0 - 10_000 * MIN,
      to: T0,
      overlap: "allow",
      signal: AbortSignal.abort(),
    });
    assert.deepEqual([report.planned, report.stopped, report.ran], [10_000, true, []]);
    assert.deepEqual(await rows(s.store, "j"), []);
  });

  it("refuses a paused job with conflict, running nothing (it waited for resume without end or word); resumed, it runs", async () => {
    const s = setup({ start: T0 + 10 * HOUR });
    const ran: number[] = [];
    s.scheduler.job("bf", { schedule: "0 * * * *", run: (ctx) => void ran.push(ctx.slot) });
    await s.scheduler.tick();
    await s.scheduler.pause("bf");
    let planned = false;
    await assert.rejects(
      s.scheduler.backfill("bf", { from: T0 + 3 * HOUR, to: T0 + 5 * HOUR, onPlan: () => void (planned = true) }),
      (e: unknown) =>
        e instanceof SchedulerError && e.code === "conflict" && e.path === "name" &&
        e.message === 'conflict: backfill: job "bf" is paused; resume it, then backfill',
    );
    assert.equal(planned, false);
    assert.deepEqual((await rows(s.store, "bf")).filter((r) => r.kind === "backfill"), []);
    await s.scheduler.resume("bf");
    const report = await s.scheduler.backfill("bf", { from: T0 + 3 * HOUR, to: T0 + 5 * HOUR });
    assert.deepEqual(report.ran, [T0 + 3 * HOUR, T0 + 4 * HOUR]);
  });

  it("takes a range from the first instant a Date holds, and names only what it was given", async () => {
    // It refused `from: -8.64e15` naming "-8640000000000001", a value nobody sent: the
    // range was asked of the schedule as (from - 1, to - 1].
    const FIRST = -8.64e15;
    const s = setup({ start: T0 });
    s.scheduler.job("cron", { schedule: "* * * * *", run: () => {} });
    s.scheduler.job("once", { schedule: { at: FIRST }, run: () => {} });
    const none = await s.scheduler.backfill("cron", { from: FIRST, to: FIRST + HOUR, signal: AbortSignal.abort() });
    assert.equal(none.planned, 0);
    const once = await s.scheduler.backfill("once", { from: FIRST, to: FIRST + 1, signal: AbortSignal.abort() });
    assert.equal(once.planned, 1, "the slot at the first instant is in [from, to)");
    await assert.rejects(
      s.scheduler.backfill("cron", { from: FIRST - 1, to: T0 }),
      (e: unknown) => e instanceof SchedulerError && e.message.includes('"-8640000000000001"'),
    );
  });
});

describe("backfill across daylight saving, against slots worked out by hand", () => {
  it("Australia/Lord_Howe (30-minute shift): 02:15 in the spring gap fires at 02:45", async () => {
    // DST from 2026-10-04 02:00 (+10:30 → +11:00).
    const std = 630;
    const dst = 660;
    const expected = [
      wall(2026, 10, 2, 2, 15, std),
      wall(2026, 10, 3, 2, 15, std),
      wall(2026, 10, 4, 2, 45, dst), // 02:15 does not exist: later by the 30-minute gap
      wall(2026, 10, 5, 2, 15, dst),
      wall(2026, 10, 6, 2, 15, dst),
    ];
    const { planned, ran, kinds } = await backfillSlots(
      "15 2 * * *",
      "Australia/Lord_Howe",
      wall(2026, 10, 2, 0, 0, std),
      wall(2026, 10, 7, 0, 0, dst),
    );
    assert.deepEqual(iso(planned), iso(expected));
    assert.deepEqual(iso(ran), iso(expected));
    assert.deepEqual(new Set(kinds), new Set(["backfill"]));
  });

  it("Australia/Lord_Howe: 01:45, repeated when clocks go back 30 minutes, fires once at its first occurrence", async () => {
    // DST ends 2026-04-05 02:00 (+11:00 → +10:30): 01:30-02:00 happens twice.
    const expected = [
      wall(2026, 4, 3, 1, 45, 660),
      wall(2026, 4, 4, 1, 45, 660),
      wall(2026, 4, 5, 1, 45, 660), // the first 01:45
      wall(2026, 4, 6, 1, 45, 630),
      wall(2026, 4, 7, 1, 45, 630),
    ];
    const { ran } = await backfillSlots(
      "45 1 * * *",
      "Australia/Lord_Howe",
      wall(2026, 4, 3, 0, 0, 660),
      wall(2026, 4, 8, 0, 0, 630),
    );
    assert.deepEqual(iso(ran), iso(expected));
  });

  it("America/New_York 30 1 * * *: once on the fall-back day, at EDT; every day around spring-forward", async () => {
    const fall = [
      wall(2026, 10, 30, 1, 30, -240),
      wall(2026, 10, 31, 1, 30, -240),
      wall(2026, 11, 1, 1, 30, -240), // 01:30 happens twice; the first (EDT) fires
      wall(2026, 11, 2, 1, 30, -300),
      wall(2026, 11, 3, 1, 30, -300),
    ];
    const autumn = await backfillSlots(
      "30 1 * * *",
      "America/New_York",
      wall(2026, 10, 30, 0, 0, -240),
      wall(2026, 11, 4, 0, 0, -300),
    );
    assert.deepEqual(iso(autumn.ran), iso(fall));
    const springSlots = [
      wall(2026, 3, 6, 1, 30, -300),
      wall(2026, 3, 7, 1, 30, -300),
      wall(2026, 3, 8, 1, 30, -300), // before the 02:00 jump, still EST
      wall(2026, 3, 9, 1, 30, -240),
      wall(2026, 3, 10, 1, 30, -240),
    ];
    const spring = await backfillSlots(
      "30 1 * * *",
      "America/New_York",
      wall(2026, 3, 6, 0, 0, -300),
      wall(2026, 3, 11, 0, 0, -240),
    );
    assert.deepEqual(iso(spring.ran), iso(springSlots));
  });
});
