// Timer mode's idle minutes: a wake of the 60 s clamp with nothing due reads no job's state
// (the snapshot names no job) and plans nothing, yet still syncs definitions, reaps ended
// leases and keeps the node's presence; the next slot runs as it would have. And a job
// added while the timer waits out the clamp re-arms it for the job's first slot.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryStore, type MemoryStore } from "../../../src/store/memory/mod.ts";
import { libsqlStore } from "../../../src/store/libsql/mod.ts";
import { PRESENCE_KEY } from "../../../src/engine/tick/presence.ts";
import { MIN, rows, SEC, setup, T0 } from "../_helpers.ts";

/** Records the names of every `snapshot()` and the keys of every `getSetting()` on `store`. */
function spied(store: MemoryStore): { snapshots: { at: number; names: number }[]; settings: number[] } {
  const seen = { snapshots: [] as { at: number; names: number }[], settings: [] as number[] };
  const snapshot = store.snapshot.bind(store);
  const getSetting = store.getSetting.bind(store);
  store.snapshot = (names, now) => {
    seen.snapshots.push({ at: now, names: names.length });
    return snapshot(names, now);
  };
  store.getSetting = (key) => {
    if (key === PRESENCE_KEY) seen.settings.push(Date.now());
    return getSetting(key);
  };
  return seen;
}

const hourly = (n: number) => Array.from({ length: n }, (_, i) => `job-${String(i).padStart(3, "0")}`);

describe("timer mode, idle minutes", () => {
  it("reads no job's state and plans nothing until a slot is due, then runs every job of it", async () => {
    const store = createMemoryStore();
    const seen = spied(store);
    // More jobs than capacity: the node notes its presence, as on a fleet ticking large minutes.
    const s = setup({ store, start: T0 + 1, concurrency: 50 });
    const ran: number[] = [];
    for (const name of hourly(120)) {
      s.scheduler.job(name, {
        schedule: "0 * * * *",
        run: (ctx) => void ran.push(ctx.slot),
      });
    }
    s.scheduler.start();
    await s.clock.settle();
    assert.deepEqual(seen.snapshots.map((c) => c.names), [120], "the first tick reads every job");
    const presenceReads = seen.settings.length;

    await s.clock.set(T0 + 59 * MIN + 30 * SEC);
    const idle = seen.snapshots.slice(1);
    assert.ok(idle.length >= 58, `a wake every minute (got ${idle.length})`);
    assert.deepEqual(idle.filter((c) => c.names > 0), [], "an idle minute names no job");
    // Presence: a refresh (read, write, read back) every third idle minute, where every
    // minute read it and every other rewrote it (about 118 reads).
    const idleReads = seen.settings.length - presenceReads;
    assert.ok(idleReads >= 20 && idleReads <= 45, `presence read ${idleReads} times in 59 idle minutes`);
    assert.equal(ran.length, 0);

    await s.clock.set(T0 + 60 * MIN + 30 * SEC);
    await s.scheduler.stop();
    assert.equal(ran.length, 120, "every job ran at the hour");
    assert.ok(ran.every((slot) => slot === T0 + 60 * MIN));
    const due = seen.snapshots.find((c) => c.at === T0 + 60 * MIN);
    assert.ok(due !== undefined && due.names > 0, "the slot's tick read the jobs");
    for (const name of hourly(120)) assert.deepEqual((await rows(store, name)).map((r) => r.status), ["ok"]);
  });

  it("on a libSQL file too: idle minutes name no job, and the hour runs every job once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgecron-quiet-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const store = libsqlStore({ url: `file:${join(dir, "quiet.db")}` }) as unknown as MemoryStore;
    const seen = spied(store);
    const s = setup({ store, start: T0 + 40 * MIN + 1, concurrency: 20 });
    for (const name of hourly(60)) s.scheduler.job(name, { schedule: "0 * * * *", run: () => {} });
    // The file's schema first: the steps below jump the manual clock past storeTimeout while
    // init is still writing it, and a tick on a store whose init failed plans nothing.
    await s.scheduler.ready();
    s.scheduler.start();
    // A tick on a file takes more host turns than the manual clock settles after a timer:
    // step a minute at a time, each once the timer is armed again for a later minute.
    const armed = async () => {
      const rearmed = () => s.clock.pending().some((t) => t.at > s.clock.now() + 20 * SEC);
      for (let i = 0; i < 500 && !rearmed(); i++) await s.clock.settle();
    };
    for (let m = 41; m <= 61; m++) {
      await armed();
      await s.clock.set(T0 + m * MIN + 30 * SEC);
    }
    await armed();
    await s.scheduler.stop();
    assert.equal(seen.snapshots[0]!.names, 60);
    const idle = seen.snapshots.filter((c) => c.at > T0 + 40 * MIN + 1 && c.at < T0 + 60 * MIN);
    // (The clock may step past the first minute before the start tick re-arms: 18 or 19 wakes.)
    assert.ok(idle.length >= 18, `a wake each idle minute: ${seen.snapshots.map((c) => (c.at - T0) / SEC).join(" ")}`);
    assert.deepEqual(idle.filter((c) => c.names > 0), [], "none names a job");
    assert.ok(seen.snapshots.some((c) => c.at === T0 + 60 * MIN && c.names === 60), "the hour's tick read every job");
    for (const name of hourly(60)) {
      assert.deepEqual((await rows(store, name)).map((r) => [r.slot, r.status]), [[T0 + 60 * MIN, "ok"]]);
    }
    await store.close();
  });

  it("reaps another node's ended lease in an idle minute, reading that job's paused state", async () => {
    const store = createMemoryStore();
    const seen = spied(store);
    const s = setup({ store, start: T0 + 1 });
    s.scheduler.job("paused", { schedule: "0 * * * *", retries: { attempts: 3 }, run: () => {} });
    s.scheduler.job("live", { schedule: "0 * * * *", retries: { attempts: 3 }, run: () => {} });
    s.scheduler.start();
    await s.clock.settle();
    await s.scheduler.pause("paused");
    // A node that died holding both jobs' slot of T0 (a backfill, say): leases end at T0 + 2 min.
    const claim = (job: string) => ({
      job,
      slot: T0,
      kind: "scheduled" as const,
      status: "running" as const,
      overlap: "skip" as const,
      node: "dead",
      batch: `dead-${job}`,
      now: T0,
      leaseUntil: T0 + 2 * MIN,
    });
    assert.deepEqual((await store.claim([claim("paused"), claim("live")])).map((r) => r.outcome), ["won", "won"]);
    await s.clock.set(T0 + 4 * MIN);
    await s.scheduler.stop();
    assert.ok(seen.snapshots.slice(1).every((c) => c.names === 0), "every tick after the first was quiet");
    // The paused job's slot is recorded abandoned and not retried; the other job's is retried here.
    assert.deepEqual((await rows(store, "paused")).map((r) => [r.status, r.attempt]), [["abandoned", 1]]);
    assert.deepEqual((await rows(store, "live")).map((r) => [r.status, r.attempt, r.node]), [[
      "ok",
      2,
      s.scheduler.node,
    ]]);
  });

  it("a job defined by another node in an idle minute runs at its first slot", async () => {
    const store = createMemoryStore();
    const calls: string[] = [];
    const fetch = ((input: RequestInfo | URL) => {
      calls.push(String(input instanceof Request ? input.url : input));
      return Promise.resolve(new Response("ok"));
    }) as typeof globalThis.fetch;
    const a = setup({ store, node: "a", start: T0 + 1, fetch, webhookSecret: "k" });
    a.scheduler.job("yearly", { schedule: "@yearly", run: () => {} });
    a.scheduler.start();
    await a.clock.settle();
    // Defined after a's wake at 4:00 (a's timer, armed then, next wakes at 5:00 and a
    // millisecond, the clamp): that wake finds the definition, and the 5:00 slot with it.
    await a.clock.set(T0 + 4 * MIN + 30 * SEC);
    const b = setup({ store, node: "b", clock: a.clock, webhookSecret: "k" });
    await b.scheduler.define("hook", { schedule: "*/5 * * * *", target: { url: "https://example.test/hook" } });
    await a.clock.set(T0 + 10 * MIN + 30 * SEC);
    await a.scheduler.stop();
    const recorded = await rows(store, "hook");
    assert.deepEqual(recorded.map((r) => [r.slot, r.status, r.node]), [
      [T0 + 5 * MIN, "ok", "a"],
      [T0 + 10 * MIN, "ok", "a"],
    ]);
    assert.ok(recorded[0]!.startedAt! < T0 + 5 * MIN + SEC, "the 5:00 slot ran at the wake after it");
    assert.equal(calls.length, 2);
  });

  it("a job added to a running scheduler runs from its first slot", async () => {
    const s = setup({ start: T0 + 1 });
    s.scheduler.job("yearly", { schedule: "@yearly", run: () => {} });
    s.scheduler.start();
    await s.clock.set(T0 + 2 * MIN + 30 * SEC);
    const ran: number[] = [];
    s.scheduler.job("added", { schedule: "*/3 * * * *", run: (ctx) => void ran.push(ctx.slot) });
    // Many jobs added in one turn re-arm the timer once.
    for (let i = 0; i < 50; i++) s.scheduler.job(`more-${i}`, { schedule: "@yearly", run: () => {} });
    await s.clock.settle();
    assert.equal(s.clock.pending().length, 1, "one timer armed");
    assert.equal(s.clock.pending()[0]!.at, T0 + 3 * MIN, "armed again for the new job's first slot");
    await s.clock.set(T0 + 9 * MIN + 30 * SEC);
    await s.scheduler.stop();
    // Before, the timer kept its clamp wake (3:00 and a millisecond): that tick noted the
    // job first seen after its 3:00 slot, which never ran.
    assert.deepEqual(ran, [T0 + 3 * MIN, T0 + 6 * MIN, T0 + 9 * MIN]);
  });

  it("a schedule that throws keeps every wake an ordinary tick (its failure is logged each time)", async () => {
    const s = setup({ start: T0 + 1 });
    let calls = 0;
    s.scheduler.job("yearly", { schedule: "@yearly", run: () => {} });
    s.scheduler.job("broken", {
      schedule: {
        kind: "cron",
        timezone: "UTC",
        next: () => {
          calls++;
          throw new Error("broken schedule");
        },
        nextRuns: () => [],
        prev: () => null,
        between: () => {
          throw new Error("broken schedule");
        },
        toJSON: () => ({ cron: "* * * * *" }),
      },
      run: () => {},
    });
    s.scheduler.start();
    await s.clock.set(T0 + 5 * MIN + 30 * SEC);
    await s.scheduler.stop();
    const logged = s.logger.lines.filter((l) => l.includes("its schedule failed")).length;
    assert.ok(logged >= 5, `logged ${logged} times`);
    assert.ok(calls > 0);
  });
});
