import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { faultyStore } from "../_faulty.ts";
import { deferred, HOUR, MIN, ofType, rows, setup, T0, tally, tickAt } from "../_helpers.ts";

const OUTAGE_END = T0 + MIN + 3 * HOUR;

/** Registers a minutely job, runs T0+1m, then ticks once after a 3 h outage. */
async function afterOutage(mode: "latest" | "all" | "none", now = OUTAGE_END, tolerance = "60s") {
  const s = setup();
  const ran: number[] = [];
  s.scheduler.job("minutely", {
    schedule: "* * * * *",
    catchUp: { mode, tolerance },
    run: (ctx) => void ran.push(ctx.slot),
  });
  await tickAt(s, T0 + 1);
  await tickAt(s, T0 + MIN);
  const report = await tickAt(s, now);
  return { ...s, ran, report: report.jobs["minutely"]!, records: await rows(s.store, "minutely") };
}

describe("tick catch-up after a 3 h outage", () => {
  it("latest runs only the newest slot of the 1 h window and records the other 59 missed", async () => {
    const { ran, report, records } = await afterOutage("latest");
    assert.deepEqual(ran, [T0 + MIN, OUTAGE_END]);
    assert.equal(report.missed.length, 59);
    assert.deepEqual(report.run, [OUTAGE_END]);
    assert.equal(report.outcomes[OUTAGE_END], "ok");
    assert.deepEqual(tally(records), { ok: 2, missed: 59 });
    assert.equal(records[1]!.slot, OUTAGE_END - 59 * MIN);
  });

  it("all runs each of the 60 slots in the window, oldest first", async () => {
    const { ran, report, records } = await afterOutage("all");
    assert.equal(ran.length, 61);
    assert.deepEqual(ran.slice(1), Array.from({ length: 60 }, (_, i) => OUTAGE_END - (59 - i) * MIN));
    assert.equal(report.run.length, 60);
    assert.deepEqual(tally(records), { ok: 61 });
  });

  it("none runs the newest slot only when it is within the tolerance", async () => {
    const onTime = await afterOutage("none", OUTAGE_END + 30_000);
    assert.deepEqual(onTime.report.run, [OUTAGE_END]);
    assert.deepEqual(tally(onTime.records), { ok: 2, missed: 59 });
    const late = await afterOutage("none", OUTAGE_END + 30_000, "10s");
    assert.deepEqual(late.report.run, []);
    assert.deepEqual(tally(late.records), { ok: 1, missed: 60 });
  });

  it("a new job never catches up on slots from before it was first seen", async () => {
    const s = setup({ start: T0 + 3 * HOUR });
    let runs = 0;
    s.scheduler.job("fresh", { schedule: "* * * * *", catchUp: { mode: "all", window: "1d" }, run: () => void runs++ });
    const first = await tickAt(s, T0 + 3 * HOUR + 30_000);
    assert.equal(runs, 0);
    assert.equal(first.jobs["fresh"], undefined);
    await tickAt(s, T0 + 3 * HOUR + MIN);
    assert.equal(runs, 1);
  });
});

describe("the first tick of a job the store has never seen", () => {
  it("tick(M) at an exact minute M runs a * * * * * job once, with slot M", async () => {
    const s = setup({ store: createMemoryStore(), start: T0 });
    const ran: number[] = [];
    s.scheduler.job("minutely", { schedule: "* * * * *", run: (ctx) => void ran.push(ctx.slot) });
    const report = await s.scheduler.tick(T0);
    assert.deepEqual(ran, [T0]);
    assert.deepEqual(report.jobs["minutely"]!.run, [T0]);
    assert.deepEqual(tally(await rows(s.store, "minutely")), { ok: 1 });
    await s.scheduler.tick(T0);
    assert.deepEqual(ran, [T0], "a repeated delivery of the same trigger runs nothing more");
    await tickAt(s, T0 + MIN);
    assert.deepEqual(ran, [T0, T0 + MIN]);
  });

  it("timer mode started at 12:00:30 does not run 12:00:00, and runs 12:01:00", async () => {
    const noon = Date.UTC(2030, 0, 1, 12, 0, 0);
    const s = setup({ start: noon + 30_000 });
    const ran: number[] = [];
    s.scheduler.job("minutely", { schedule: "* * * * *", run: (ctx) => void ran.push(ctx.slot) });
    s.scheduler.start();
    await s.clock.advance(1);
    assert.deepEqual(ran, []);
    await s.clock.set(noon + MIN);
    await s.scheduler.stop();
    assert.deepEqual(ran, [noon + MIN]);
    assert.deepEqual(tally(await rows(s.store, "minutely")), { ok: 1 });
  });

  it("a catch-up window shorter than the time since registration still cuts the first window", async () => {
    const s = setup({ start: T0 });
    const ran: number[] = [];
    s.scheduler.job("q", {
      schedule: "* * * * *",
      catchUp: { mode: "all", window: "2m" },
      run: (ctx) => void ran.push(ctx.slot),
    });
    await s.store.snapshot(["q"], T0); // the store sees the job at T0 (another node registered it)
    await tickAt(s, T0 + 5 * MIN);
    assert.deepEqual(ran, [T0 + 4 * MIN, T0 + 5 * MIN]);
  });
});

describe("tick overlap", () => {
  async function overlapping(overlap: "skip" | "allow") {
    const s = setup();
    const gate = deferred();
    let running = 0;
    let peak = 0;
    s.scheduler.job("slow", {
      schedule: "* * * * *",
      overlap,
      run: async () => {
        running++;
        peak = Math.max(peak, running);
        await gate.promise;
        running--;
      },
    });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + MIN);
    const first = s.scheduler.tick();
    await s.clock.settle();
    await s.clock.set(T0 + 2 * MIN);
    const second = await Promise.race([s.scheduler.tick(), s.clock.settle().then(() => undefined)]);
    gate.resolve();
    await first;
    return { ...s, peak, second, records: await rows(s.store, "slow") };
  }

  it("skip records the next slot skipped while the previous run is live", async () => {
    const { peak, second, records, events } = await overlapping("skip");
    assert.equal(peak, 1);
    assert.deepEqual(second?.jobs["slow"]?.skipped, [T0 + 2 * MIN]);
    assert.deepEqual(records.map((r) => r.status), ["ok", "skipped"]);
    assert.deepEqual(ofType(events, "skipped").map((e) => e.slot), [T0 + 2 * MIN]);
  });

  it("allow runs the next slot concurrently", async () => {
    const { peak, records } = await overlapping("allow");
    assert.equal(peak, 2);
    assert.deepEqual(records.map((r) => r.status), ["ok", "ok"]);
  });
});

describe("tick across schedulers", () => {
  it("two schedulers on one store never both run a slot", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a" });
    const b = setup({ store, node: "b", clock: a.clock });
    const ran: string[] = [];
    for (const s of [a, b]) {
      s.scheduler.job("shared", {
        schedule: "*/5 * * * *",
        run: (ctx) => void ran.push(`${ctx.slot}`),
      });
    }
    await Promise.all([tickAt(a, T0 + 1), tickAt(b, T0 + 1)]);
    for (let i = 1; i <= 12; i++) {
      const now = T0 + i * 5 * MIN;
      await a.clock.set(now);
      const [ra, rb] = await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
      const won = [...(ra.jobs["shared"]?.won ?? []), ...(rb.jobs["shared"]?.won ?? [])];
      const lost = [...(ra.jobs["shared"]?.lost ?? []), ...(rb.jobs["shared"]?.lost ?? [])];
      assert.deepEqual(won, [now]);
      assert.deepEqual(lost, [now]);
    }
    assert.equal(ran.length, 12);
    assert.equal(new Set(ran).size, 12);
    assert.deepEqual(tally(await rows(store, "shared")), { ok: 12 });
  });

  it("every slots are identical on two schedulers created at different times", async () => {
    const a = setup({ start: T0 + 1 });
    const b = setup({ start: T0 + 123_457 });
    a.scheduler.job("grid", { schedule: { every: "7m" }, run: () => {} });
    await a.clock.advance(123_457);
    b.scheduler.job("grid", { schedule: { every: "7m" }, run: () => {} });
    const [ia, ib] = [await a.scheduler.get("grid", { next: 10 }), await b.scheduler.get("grid", { next: 10 })];
    assert.equal(ia!.next.length, 10);
    assert.deepEqual(ia!.next, ib!.next);
    for (const slot of ia!.next) assert.equal(slot % (7 * MIN), 0);
  });
});

describe("tick with a failing store", () => {
  it("runs no slot, emits store-error, reports unhealthy, and catches up once the store is back", async () => {
    const s = setup();
    const ran: number[] = [];
    s.scheduler.job("minutely", { schedule: "* * * * *", run: (ctx) => void ran.push(ctx.slot) });
    await tickAt(s, T0 + 1);
    s.store.setFailing(true);
    for (let i = 1; i <= 5; i++) {
      const report = await tickAt(s, T0 + i * MIN);
      assert.equal(report.ok, false);
      assert.match(report.error ?? "", /store-error/);
    }
    assert.deepEqual(ran, []);
    assert.equal(ofType(s.events, "store-error").length, 5);
    const sick = await s.scheduler.health();
    assert.equal(sick.ok, false);
    assert.equal(sick.store, "error");

    s.store.setFailing(false);
    const report = await tickAt(s, T0 + 5 * MIN + 10_000);
    assert.equal(report.ok, true);
    assert.deepEqual(ran, [T0 + 5 * MIN]);
    assert.deepEqual(report.jobs["minutely"]!.missed, [T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN, T0 + 4 * MIN]);
    assert.equal((await s.scheduler.health()).ok, true);
  });

  it("a failed write keeps health false through successful reads; health() tries one write, at most 2 s", async () => {
    const store = faultyStore();
    // The scheduler holds the store's methods from its start: a write that hangs is switched on here.
    const put = store.putSetting;
    let hang = false;
    let hung = 0;
    store.putSetting = (key, value) => hang ? new Promise<void>(() => void hung++) : put(key, value);
    const s = setup({ store });
    s.scheduler.job("minutely", { schedule: "* * * * *", run: () => {} });
    await tickAt(s, T0 + 1);
    store.failNext("claim");
    assert.equal((await tickAt(s, T0 + MIN)).ok, false);
    await s.scheduler.list(); // reads answer
    store.failNext("putSetting");
    const sick = await s.scheduler.health();
    assert.deepEqual([sick.ok, sick.store], [false, "error"], "the probe write failed too");
    assert.match(sick.lastError ?? "", /putSetting failed/);
    // A write that does not answer: health() answers after 2 s with the store as it stands.
    hang = true;
    const before = hung;
    const pending = s.scheduler.health();
    const others = [s.scheduler.health(), s.scheduler.health()];
    await s.clock.advance(1_999);
    let answered = false;
    void pending.then(() => (answered = true));
    await s.clock.settle();
    assert.equal(answered, false);
    await s.clock.advance(1);
    assert.equal((await pending).ok, false);
    assert.deepEqual((await Promise.all(others)).map((h) => h.ok), [false, false]);
    assert.equal(hung - before, 1, "three health() calls at once send one probe write");
    hang = false;
    // The hung write ends at the store's deadline (`storeTimeout`, 30 s); the next probe heals.
    await s.clock.advance(30_000);
    const healed = await s.scheduler.health();
    assert.deepEqual([healed.ok, healed.lastError], [true, undefined]);
    assert.equal(await store.getSetting("edgecron.health-probe"), String(s.clock.now()));
  });
});
