import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { resolveJob } from "../../../src/engine/jobs/spec.ts";
import { claimOrder, planTick, slotsToRun, takeRound } from "../../../src/engine/tick/plan_tick.ts";
import type { ResolvedJob } from "../../../src/engine/jobs/spec.ts";
import { ownerOf } from "../../../src/engine/tick/spread.ts";
import { PRESENCE_KEY } from "../../../src/engine/tick/presence.ts";
import { MARKED_SHARE, SHARES_KEY } from "../../../src/engine/tick/share_marks.ts";
import { HELP_DELAY_MS, newestDue } from "../../../src/engine/tick/rounds.ts";
import { slotSince } from "../../../src/engine/tick/tick.ts";
import { startOf } from "../../../src/engine/tick/jitter.ts";
import { createManualClock } from "../../../src/engine/clock.ts";
import type { ClaimRequest, TickSnapshot } from "../../../src/store/types.ts";
import { MIN, setup, T0, tickAt } from "../_helpers.ts";
import { createMemoryStore, type MemoryStore } from "../../../src/store/memory/mod.ts";
import { cron } from "../../../src/core/mod.ts";
import type { Schedule } from "../../../src/core/types.ts";

const job = (name: string, schedule = "* * * * *") => resolveJob(name, { schedule, run: () => {} }, {});

function snapshotOf(names: string[]): TickSnapshot {
  const jobs: TickSnapshot["jobs"] = {};
  for (const name of names) jobs[name] = { name, firstSeen: T0 - 10 * MIN, paused: false };
  return { jobs, watermarks: {}, defs: [], running: [] };
}

describe("planTick() and takeRound()", () => {
  const names = ["a", "b", "c", "d", "e"];
  const jobs = names.map((n) => job(n));
  const input = { node: "n", nodes: [] as string[], offset: 0 };
  const dueOf = (
    list: ResolvedJob[],
    snap: TickSnapshot,
    spread: { node: string; nodes: string[]; offset: number } = input,
  ) => claimOrder(planTick(list, snap, { now: T0 }), snap, T0, spread).due;
  const round = { now: T0, node: "n", batch: "b", leaseUntil: () => T0 + 15_000 };
  const running = (requests: ClaimRequest[]): string[] =>
    requests.filter((r) => r.status === "running").map((r) => r.job);

  it("with room for every job, one round claims them all in job order, one batch", () => {
    const r = takeRound(dueOf(jobs, snapshotOf(names)), 0, { ...round, capacity: 10 });
    assert.deepEqual(running(r.requests), names);
    assert.equal(r.next, 5);
    assert.equal(r.passed, 5);
    assert.ok(r.requests.every((q) => q.batch === "b" && q.node === "n"));
  });

  it("a node that knows no other starts at its offset, and a round takes no more jobs than the capacity", () => {
    const plan = { due: dueOf(jobs, snapshotOf(names), { ...input, offset: 3 }) };
    assert.deepEqual(plan.due.map((d) => d.job.name), ["d", "e", "a", "b", "c"]);
    const first = takeRound(plan.due, 0, { ...round, capacity: 2 });
    assert.deepEqual(running(first.requests), ["d", "e"]);
    assert.equal(slotsToRun(plan.due, first.next), 3);
    const second = takeRound(plan.due, first.next, { ...round, capacity: 2 });
    assert.deepEqual(running(second.requests), ["a", "b"]);
    const none = takeRound(plan.due, 0, { ...round, capacity: 0 });
    assert.deepEqual(none.requests, []);
    assert.equal(none.next, 0);
  });

  it("jobs with only missed slots come first and cost no capacity", () => {
    const paused = snapshotOf(["p", ...names]);
    paused.jobs["p"]!.paused = true;
    const plan = { due: dueOf([...jobs, job("p")], paused, { ...input, offset: 2 }) };
    assert.equal(plan.due[0]!.job.name, "p");
    const r = takeRound(plan.due, 0, { ...round, capacity: 1 });
    assert.deepEqual(
      r.requests.map((q) => `${q.job}:${q.status}`).slice(0, 10).filter((x) => x.startsWith("p")).length,
      10,
    );
    assert.deepEqual(running(r.requests), ["c"]);
  });

  it("a catch-up queue is one run: a job with many due slots takes one unit of capacity", () => {
    const all = resolveJob("q", { schedule: "* * * * *", catchUp: { mode: "all" }, run: () => {} }, {});
    const plan = { due: dueOf([all, job("a")], snapshotOf(["q", "a"])) };
    const r = takeRound(plan.due, 0, { ...round, capacity: 2 });
    // First seen at T0 - 10 min: that slot and the ten after it, up to T0.
    assert.equal(r.requests.filter((q) => q.job === "q").length, 11);
    assert.equal(slotsToRun(plan.due, r.next), 0);
  });

  it("a later round skips a job that is no longer current, and counts its slots as passed", () => {
    const r = takeRound(dueOf(jobs, snapshotOf(names)), 0, { ...round, capacity: 2, current: (j) => j.name !== "a" });
    assert.deepEqual(running(r.requests), ["b", "c"]);
    assert.equal(r.passed, 3);
  });

  it("with other live nodes in the snapshot, this node's rendezvous share comes first", () => {
    const many = Array.from({ length: 400 }, (_, i) => job(`job-${i}`));
    const snap = snapshotOf(many.map((j) => j.name));
    snap.running.push(runningRow("x", "n2"), runningRow("y", "n3"));
    const plan = { due: dueOf(many, snap, { ...input, node: "n1" }) };
    const seeds = ["n1", "n2", "n3"];
    const mine = plan.due.filter((d) => ownerOf(d.job.name, seeds) === "n1").length;
    assert.ok(mine > 80 && mine < 190, `share of n1: ${mine} of 400`);
    assert.ok(plan.due.slice(0, mine).every((d) => ownerOf(d.job.name, seeds) === "n1"));
    assert.equal(new Set(plan.due.map((d) => d.job.name)).size, 400, "every job once");
  });
});

function runningRow(job: string, node: string): TickSnapshot["running"][number] {
  return {
    job,
    slot: T0 - MIN,
    kind: "scheduled",
    status: "running",
    attempt: 1,
    node,
    claimedAt: T0 - MIN,
    startedAt: T0 - MIN,
    finishedAt: null,
    leaseUntil: T0 + 10_000,
    error: null,
  };
}

describe("concurrency", () => {
  it("tick() from a platform trigger runs every due job in rounds when they exceed the node's capacity", async () => {
    const s = setup({ start: T0 - MIN + 1, concurrency: 2 });
    let live = 0;
    let peak = 0;
    for (const name of ["a", "b", "c", "d", "e"]) {
      s.scheduler.job(name, {
        schedule: "* * * * *",
        run: async () => {
          peak = Math.max(peak, ++live);
          await Promise.resolve();
          live--;
        },
      });
    }
    await tickAt(s, T0 - MIN + 1);
    const report = await tickAt(s, T0);
    assert.deepEqual(Object.keys(report.jobs).sort(), ["a", "b", "c", "d", "e"]);
    assert.ok(Object.values(report.jobs).every((r) => r.outcomes[T0] === "ok"));
    assert.equal(report.deferred, undefined);
    assert.ok(peak <= 2, `at most 2 runs in flight, saw ${peak}`);
  });

  it("a node alone claims a minute larger than its capacity at once, one snapshot, and runs it at most `concurrency` at a time", async () => {
    const store = createMemoryStore();
    const calls = countCalls(store);
    const s = setup({ start: T0 - MIN + 1, concurrency: 2, store });
    let live = 0;
    let peak = 0;
    const order: string[] = [];
    for (const name of ["a", "b", "c", "d", "e"]) {
      s.scheduler.job(name, {
        schedule: "* * * * *",
        run: async (ctx) => {
          order.push(`${ctx.job}@${ctx.slot}`);
          peak = Math.max(peak, ++live);
          await Promise.resolve();
          live--;
        },
      });
    }
    await tickAt(s, T0 - MIN + 1); // registers; nothing due
    calls.snapshot = 0;
    calls.presence = 0;
    calls.requests.length = 0;
    const report = await tickAt(s, T0);
    assert.ok(Object.values(report.jobs).every((r) => r.outcomes[T0] === "ok"));
    assert.equal(report.deferred, undefined);
    assert.equal(calls.snapshot, 1, "one snapshot per tick");
    assert.deepEqual(calls.requests, [5], "capacity bounds runs, not claims: one batch");
    assert.equal(
      calls.presence,
      4,
      "the check 2 s after the registering tick's write, then a minute larger than the capacity reads who else ticks it (and reads back its own entry), and again after its snapshot",
    );
    assert.ok(peak <= 2, `at most 2 runs in flight, saw ${peak}`);
    assert.equal(order.length, 5, "each slot ran once");
  });

  it("a minute within the capacity reads no presence: an ordinary tick costs what it did", async () => {
    const store = createMemoryStore();
    const calls = countCalls(store);
    const s = setup({ start: T0 - MIN, concurrency: 5, store });
    for (const name of ["a", "b", "c", "d", "e"]) s.scheduler.job(name, { schedule: "* * * * *", run: () => {} });
    await tickAt(s, T0 - MIN);
    assert.equal(calls.presence, 2, "the node's first tick notes it (a read, and a read-back of its write)");
    await tickAt(s, T0);
    await tickAt(s, T0 + MIN);
    assert.equal(calls.presence, 2, "no presence read in ordinary minutes");
    assert.equal(calls.snapshot, 3);
  });

  it("a node that notes itself while another's large tick reads its snapshot gets its share in that minute, not after", async () => {
    // Booting together, n3's presence entry was overwritten: at its next large minute n3
    // notes itself again at its tick's start, while n1 is reading its snapshot.
    const store = createMemoryStore();
    const clock = createManualClock(T0 - MIN + 1); // the registering tick runs no slot
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ n1: T0 - MIN, n2: T0 - MIN }));
    const { snapshot } = store;
    let arrives = false;
    store.snapshot = async (list, now) => {
      if (arrives) {
        const seen = JSON.parse((await store.getSetting(PRESENCE_KEY))!);
        await store.putSetting(PRESENCE_KEY, JSON.stringify({ ...seen, n3: now }));
      }
      return snapshot(list, now);
    };
    const { a, names, ran } = twoNodes(clock, store);
    await a.scheduler.tick(T0 - MIN + 1); // registers without a slot
    arrives = true;
    await clock.set(T0);
    const tick = a.scheduler.tick(T0);
    await clock.advance(HELP_DELAY_MS - 1);
    const of3 = names.filter((n) => ownerOf(n, ["n1", "n2", "n3"]) === "n3");
    const mine = names.filter((n) => ownerOf(n, ["n1", "n2", "n3"]) === "n1");
    assert.ok(of3.some((n) => ownerOf(n, ["n1", "n2"]) === "n1"), "some of n3's jobs were n1's before n3 came");
    assert.deepEqual(
      ran.map((r) => r.split("@")[0]).sort(),
      [...mine].sort(),
      "n1 ran its own share only during the head start",
    );
    await clock.advance(1);
    await tick;
    assert.equal(ran.length, 40, "then it helps with n2's and n3's shares, which no one claimed: every slot ran once");
    assert.equal(new Set(ran).size, 40);
  });

  it("helping with another node's share claims only what that node left: none when it took it all, all when it is gone", async () => {
    const store = createMemoryStore();
    const calls = countCalls(store);
    const clock = createManualClock(T0 - MIN + 1); // the registering tick runs no slot
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ n1: T0 - MIN, n2: T0 - MIN }));
    const { a, b, names, ran } = twoNodes(clock, store);
    await a.scheduler.tick(T0 - MIN + 1); // registers without a slot (a slot at registration runs)
    await b.scheduler.tick(T0 - MIN + 1);
    const mine = names.filter((n) => ownerOf(n, ["n1", "n2"]) === "n1").length;
    assert.ok(mine > 5 && mine < 35, `share of n1: ${mine}`);

    // n1 is gone this minute: n2 claims its own share, then all of n1's.
    await clock.set(T0);
    calls.requests.length = 0;
    const alone = b.scheduler.tick(T0);
    await clock.advance(HELP_DELAY_MS - 1);
    assert.equal(ran.length, 40 - mine, "n2 leaves n1's share to n1 for its head start");
    await clock.advance(1);
    await alone;
    assert.equal(calls.requests.reduce((x, y) => x + y, 0), 40, "40 claims, none lost");
    assert.equal(ran.length, 40);

    // Both tick the next minute at once: each claims its own share, and helping finds
    // the other's share taken instead of claiming it blind (which would lose 40 claims).
    await clock.set(T0 + MIN);
    calls.requests.length = 0;
    const both = Promise.all([a.scheduler.tick(T0 + MIN), b.scheduler.tick(T0 + MIN)]);
    await clock.advance(HELP_DELAY_MS);
    const [ra, rb] = await both;
    const lost = [ra, rb].reduce((n, r) => n + Object.values(r.jobs).reduce((m, j) => m + j.lost.length, 0), 0);
    const won = [ra, rb].map((r) => Object.values(r.jobs).reduce((m, j) => m + j.won.length, 0));
    assert.equal(won[0]! + won[1]!, 40);
    assert.ok(won[0]! >= mine - 5 && won[1]! >= 40 - mine - 5, `each node ran about its share: ${won}`);
    assert.ok(lost <= 10, `at most two rounds of claims lost where the nodes met, got ${lost}`);
    assert.equal(ran.filter((r) => r.endsWith(`@${T0 + MIN}`)).length, 40, "every slot ran once");

    // n2 begins a minute's tick 3 s late (a loaded machine): n1 gets those 3 s on top of its head start.
    const slot = T0 + 2 * MIN;
    await clock.set(slot + 3_000);
    const late = b.scheduler.tick(slot);
    await clock.advance(HELP_DELAY_MS - 1);
    assert.equal(ran.filter((r) => r.endsWith(`@${slot}`)).length, 40 - mine, "still n1's head start");
    await clock.advance(1);
    await late;
    assert.equal(ran.filter((r) => r.endsWith(`@${slot}`)).length, 40, "then n2 helps with all of it");
  });

  it("with other nodes ticking, a node reads and plans its own share only, and still runs a gone node's share", async () => {
    const store = createMemoryStore();
    const clock = createManualClock(T0 - MIN + 1); // the registering tick runs no slot
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ n1: T0 - MIN, n2: T0 - MIN }));
    const asked: number[] = [];
    const read: string[][] = [];
    const { snapshot } = store;
    const view = store.read;
    store.snapshot = (list, now) => {
      asked.push(list.length);
      return snapshot(list, now);
    };
    store.read = (list) => {
      read.push([...list]);
      return view(list);
    };
    const b = setup({ clock, store, node: "n2", concurrency: 5 });
    const names = Array.from({ length: 40 }, (_, i) => `job-${i}`);
    const ran: string[] = [];
    for (const name of names) {
      b.scheduler.job(name, { schedule: "* * * * *", run: (ctx) => void ran.push(`${ctx.job}@${ctx.slot}`) });
    }
    await b.scheduler.tick(T0 - MIN + 1); // registers every job (a whole snapshot: nothing planned before)
    assert.deepEqual(asked, [40]);
    asked.length = 0;
    read.length = 0;
    const mine = names.filter((n) => ownerOf(n, ["n1", "n2"]) === "n2").length;

    // n1 is gone: n2 snapshots its own share, and reads n1's jobs only when it helps.
    await clock.set(T0);
    const tick = b.scheduler.tick(T0);
    await clock.advance(HELP_DELAY_MS - 1);
    assert.deepEqual(asked, [mine], "one snapshot, of n2's share only");
    assert.equal(ran.length, mine, "n1's share waits for its head start");
    assert.equal(read.length, 0, "nor is it read before then");
    await clock.advance(1);
    await tick;
    assert.equal(ran.filter((r) => r.endsWith(`@${T0}`)).length, 40, "then every slot ran, once");
    assert.equal(new Set(ran).size, ran.length);
    assert.deepEqual(read.flat().sort(), names.filter((n) => ownerOf(n, ["n1", "n2"]) === "n1").sort());

    // A tick with nothing due since the last plan reads none of n1's jobs.
    read.length = 0;
    asked.length = 0;
    await clock.set(T0 + 30_000);
    await b.scheduler.tick(T0 + 30_000);
    assert.deepEqual(asked, [mine]);
    assert.deepEqual(read, [], "no slot of n1's jobs since the last plan: nothing to read");
  });

  it("the others' schedules are stepped when helping, not on the way to this node's own claims", async () => {
    const store = createMemoryStore();
    const clock = createManualClock(T0 - MIN + 1); // the registering tick runs no slot
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ n1: T0 - MIN, n2: T0 - MIN }));
    const b = setup({ clock, store, node: "n2", concurrency: 5 });
    const names = Array.from({ length: 40 }, (_, i) => `job-${i}`);
    const theirs = new Set(names.filter((n) => ownerOf(n, ["n1", "n2"]) === "n1"));
    // Steps of the schedules of n1's jobs (n1 is gone), counted from the tick at T0 on.
    let stepped = 0;
    let counting = false;
    const ran: string[] = [];
    for (const name of names) {
      const base = cron("* * * * *");
      const counted: Schedule = Object.assign(Object.create(base) as Schedule, {
        next: (after: number) => {
          if (counting && theirs.has(name)) stepped++;
          return base.next(after);
        },
      });
      b.scheduler.job(name, { schedule: counted, run: (ctx) => void ran.push(`${ctx.job}@${ctx.slot}`) });
    }
    await b.scheduler.tick(T0 - MIN + 1);
    await clock.set(T0);
    counting = true;
    const tick = b.scheduler.tick(T0);
    await clock.advance(HELP_DELAY_MS - 1);
    assert.ok(ran.length > 0, "n2's own share ran");
    assert.ok(stepped <= 1, `at most one of n1's ${theirs.size} schedules stepped before helping (${stepped})`);
    await clock.advance(1);
    await tick;
    assert.ok(stepped >= theirs.size, "each was stepped when n2 helped");
    assert.equal(ran.filter((r) => r.endsWith(`@${T0}`)).length, 40, "and every slot ran, once");
    assert.equal(new Set(ran).size, ran.length);
  });

  it("helping probes the others' newest slots and reads the state only of jobs their owners left", async () => {
    const store = createMemoryStore();
    const clock = createManualClock(T0 - MIN);
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ n1: T0 - MIN, n2: T0 - MIN }));
    const read: string[] = [];
    const probed: string[] = [];
    const { read: view, recorded } = store;
    store.read = (list) => {
      read.push(...list);
      return view(list);
    };
    store.recorded = (slots) => {
      probed.push(...slots.map((s) => `${s.job}@${s.slot}`));
      return recorded!(slots);
    };
    const { a, b, names, ran } = twoNodes(clock, store);
    const slots = (slot: number) => names.map((n) => `${n}@${slot}`).sort();
    // The nodes' first tick (a whole snapshot each: the others' share is planned, not read),
    // then a minute where each read its own share only (the others' jobs are read to help).
    for (const slot of [T0, T0 + MIN]) {
      await clock.set(slot);
      const both = Promise.all([a.scheduler.tick(slot), b.scheduler.tick(slot)]);
      await clock.advance(HELP_DELAY_MS);
      await both;
      assert.deepEqual(ran.filter((r) => r.endsWith(`@${slot}`)).sort(), slots(slot), "every slot ran once");
      assert.deepEqual(probed.sort(), slots(slot), "each node probed the other's share, one slot per job");
      assert.deepEqual(read, [], "and read no job's state: their owners had claimed them all");
      probed.length = 0;
    }
    assert.equal(
      await store.getSetting(SHARES_KEY),
      undefined,
      `no share of 20 jobs is noted (${MARKED_SHARE} or more are)`,
    );
  });

  it("a store without recorded() has the others' jobs read instead, and every slot still runs once", async () => {
    const store = createMemoryStore();
    const clock = createManualClock(T0 - MIN);
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ n1: T0 - MIN, n2: T0 - MIN }));
    delete (store as { recorded?: unknown }).recorded;
    const read: string[] = [];
    const view = store.read;
    store.read = (list) => {
      read.push(...list);
      return view(list);
    };
    const { a, b, names, ran } = twoNodes(clock, store);
    for (const slot of [T0, T0 + MIN]) {
      await clock.set(slot);
      const both = Promise.all([a.scheduler.tick(slot), b.scheduler.tick(slot)]);
      await clock.advance(HELP_DELAY_MS);
      await both;
      assert.deepEqual(ran.filter((r) => r.endsWith(`@${slot}`)).sort(), names.map((n) => `${n}@${slot}`).sort());
      assert.deepEqual([...new Set(read)].sort(), [...names].sort(), "each node read the other's share");
      read.length = 0;
    }
  });

  it("helping skips a share its owner noted claimed for the same tick, and probes one whose mark is stale, foreign or lost", async () => {
    const store = createMemoryStore();
    const clock = createManualClock(T0 - MIN);
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ n1: T0 - MIN, n2: T0 - MIN }));
    const probed: string[] = [];
    const read: string[] = [];
    const { recorded, read: view } = store;
    store.recorded = (slots) => {
      probed.push(...slots.map((s) => s.job));
      return recorded!(slots);
    };
    store.read = (list) => {
      read.push(...list);
      return view(list);
    };
    // The scheduler holds the store's methods as they are when it is made: these switch.
    let forged: ((at: number, digest: string) => [number, string]) | undefined;
    let unreadable = false;
    const { putSetting: put, getSetting: get } = store;
    store.putSetting = (key, value) => {
      if (key !== SHARES_KEY || forged === undefined) return put(key, value);
      const all = JSON.parse(value) as Record<string, [number, string]>;
      if (all["n1"] !== undefined) all["n1"] = forged(...all["n1"]);
      return put(key, JSON.stringify(all));
    };
    store.getSetting = (key) => key === SHARES_KEY && unreadable ? Promise.resolve("{not json") : get(key);
    // Shares of MARKED_SHARE jobs or more are noted.
    const { a, b, names, ran } = twoNodes(clock, store, 2 * MARKED_SHARE + 200, 100);
    const share = (node: string) => names.filter((n) => ownerOf(n, ["n1", "n2"]) === node).sort();
    assert.ok(share("n1").length >= MARKED_SHARE && share("n2").length >= MARKED_SHARE);
    const minute = async (slot: number, before?: () => Promise<void>) => {
      await clock.set(slot);
      const both = Promise.all([a.scheduler.tick(slot), b.scheduler.tick(slot)]);
      await before?.();
      await clock.advance(HELP_DELAY_MS);
      await both;
      assert.deepEqual(ran.filter((r) => r.endsWith(`@${slot}`)).sort(), names.map((n) => `${n}@${slot}`).sort());
      const out = { probed: [...probed].sort(), read: [...read] };
      probed.length = 0;
      read.length = 0;
      return out;
    };
    await minute(T0); // the first tick plans every job (no shares yet)
    const marks = () =>
      store.getSetting(SHARES_KEY).then((text) => JSON.parse(text!) as Record<string, [number, string]>);

    // Both noted their shares claimed for T0 + 1 min: neither probed nor read the other's.
    assert.deepEqual(await minute(T0 + MIN), { probed: [], read: [] });
    const noted = await marks();
    assert.deepEqual(Object.keys(noted).sort(), ["n1", "n2"]);
    assert.ok(Object.values(noted).every(([at]) => at === T0 + MIN), "each mark names the tick it covers");

    // n1's mark names another share (n1 runs another deploy, say): n2 probes n1's share.
    forged = (at, digest) => [at, `${digest}x`];
    assert.deepEqual((await minute(T0 + 2 * MIN)).probed, share("n1"));
    // n1's mark is of another tick: probed again.
    forged = (at, digest) => [at - MIN, digest];
    assert.deepEqual((await minute(T0 + 3 * MIN)).probed, share("n1"));
    // The setting is unreadable: every share is probed, and every slot still runs once.
    forged = undefined;
    unreadable = true;
    assert.deepEqual((await minute(T0 + 4 * MIN)).probed, names.slice().sort());
    unreadable = false;
    assert.deepEqual(await minute(T0 + 5 * MIN), { probed: [], read: [] }, "marks read again: nothing probed");
    assert.equal(new Set(ran).size, ran.length, "no slot ran twice");
  });

  it("a share with fewer than MARKED_SHARE jobs due is not noted, however large (a write would cost more than the probe)", async () => {
    const store = createMemoryStore();
    const clock = createManualClock(T0 - MIN);
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ n1: T0 - MIN, n2: T0 - MIN }));
    const nodes = [
      setup({ clock, store, node: "n1", concurrency: 5 }),
      setup({ clock, store, node: "n2", concurrency: 5 }),
    ];
    const ran: string[] = [];
    for (const { scheduler } of nodes) {
      for (let i = 0; i < 2 * MARKED_SHARE + 200; i++) {
        // 40 jobs due every minute; the rest once a year, on 1 January at 00:00 (not in these minutes).
        scheduler.job(`job-${i}`, {
          schedule: i < 40 ? "* * * * *" : "0 0 1 1 *",
          run: (ctx) => void ran.push(`${ctx.job}@${ctx.slot}`),
        });
      }
    }
    for (const slot of [T0 + MIN, T0 + 2 * MIN]) {
      await clock.set(slot);
      const both = Promise.all(nodes.map(({ scheduler }) => scheduler.tick(slot)));
      await clock.advance(HELP_DELAY_MS);
      await both;
      assert.equal(ran.filter((r) => r.endsWith(`@${slot}`)).length, 40, "every due slot ran once");
    }
    assert.equal(await store.getSetting(SHARES_KEY), undefined);
  });

  it("a node whose claim of its share failed notes nothing, and the others help with that share", async () => {
    const store = createMemoryStore();
    const clock = createManualClock(T0 - MIN);
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ n1: T0 - MIN, n2: T0 - MIN }));
    const claim = store.claim;
    let failing = false;
    store.claim = (requests) =>
      failing && requests.some((r) => r.node === "n1") ? Promise.reject(new Error("locked")) : claim(requests);
    const { a, b, names, ran } = twoNodes(clock, store, 2 * MARKED_SHARE + 200, 100);
    for (const slot of [T0, T0 + MIN]) {
      await clock.set(slot);
      const both = Promise.all([a.scheduler.tick(slot), b.scheduler.tick(slot)]);
      await clock.advance(HELP_DELAY_MS);
      await both;
    }
    // n1's claims fail this minute (n2's go through): n1 must not note its share claimed.
    const slot = T0 + 2 * MIN;
    failing = true;
    await clock.set(slot);
    const ra = a.scheduler.tick(slot);
    const rb = b.scheduler.tick(slot);
    assert.equal((await ra).ok, false, "n1's tick failed");
    failing = false;
    await clock.advance(HELP_DELAY_MS);
    await rb;
    const marks = JSON.parse((await store.getSetting(SHARES_KEY))!) as Record<string, [number, string]>;
    assert.equal(marks["n1"]![0], T0 + MIN, "n1's mark still names the minute before");
    assert.equal(marks["n2"]![0], slot);
    assert.deepEqual(
      ran.filter((r) => r.endsWith(`@${slot}`)).sort(),
      names.map((n) => `${n}@${slot}`).sort(),
      "n2 ran n1's share too",
    );
  });

  it("refuses a concurrency that is not a positive integer", () => {
    assert.throws(() => setup({ concurrency: 0 }), /concurrency/);
    assert.throws(() => setup({ concurrency: 1.5 }), /concurrency/);
  });
});

/** Counts `snapshot()` calls and the size of each `claim()` batch of a memory store. */
/** Nodes n1 and n2 (concurrency 5) on `store`, each with the same 40 minutely jobs; `ran` lists `job@slot` per run. */
function twoNodes(clock: ReturnType<typeof createManualClock>, store: MemoryStore, count = 40, concurrency = 5) {
  const a = setup({ clock, store, node: "n1", concurrency });
  const b = setup({ clock, store, node: "n2", concurrency });
  const names = Array.from({ length: count }, (_, i) => `job-${i}`);
  const ran: string[] = [];
  for (const s of [a, b]) {
    for (const name of names) {
      s.scheduler.job(name, { schedule: "* * * * *", run: (ctx) => void ran.push(`${ctx.job}@${ctx.slot}`) });
    }
  }
  return { a, b, names, ran };
}

function countCalls(store: MemoryStore): { snapshot: number; requests: number[]; presence: number } {
  const calls = { snapshot: 0, requests: [] as number[], presence: 0 };
  const { snapshot, claim, getSetting } = store;
  store.getSetting = (key) => {
    calls.presence++;
    return getSetting(key);
  };
  store.snapshot = (names, now) => {
    calls.snapshot++;
    return snapshot(names, now);
  };
  store.claim = (requests) => {
    calls.requests.push(requests.length);
    return claim(requests);
  };
  return calls;
}

describe("concurrency in timer mode", () => {
  it("a node at its capacity claims the minute at once and starts the queued slots in claim order as its runs end", async () => {
    const store = createMemoryStore();
    const calls = countCalls(store);
    const s = setup({ start: T0 - MIN + 1, concurrency: 2, store });
    const gates = new Map<string, () => void>();
    const ran: string[] = [];
    for (const name of ["a", "b", "c", "d"]) {
      s.scheduler.job(name, {
        schedule: "* * * * *",
        run: (ctx) => {
          ran.push(`${name}@${ctx.slot}`);
          return new Promise<void>((resolve) => gates.set(name, resolve));
        },
      });
    }
    s.scheduler.start();
    await s.clock.settle();
    calls.snapshot = 0;
    calls.requests.length = 0;
    await s.clock.set(T0);
    assert.equal(ran.length, 2, "two runs in flight at most");
    assert.deepEqual(calls.requests, [4], "the whole minute claimed in one batch");
    // The queued claims outlive their first lease: the heartbeat renews them while they wait.
    await s.clock.advance(60_000 - 1_000);
    assert.equal(ran.length, 2, "still two in flight");
    const waiting = ["a", "b", "c", "d"].filter((n) => !ran.some((r) => r.startsWith(`${n}@`)));
    for (const name of waiting) {
      const rows = await store.runs(name, { limit: 5 });
      assert.equal(rows[0]!.status, "running");
      assert.ok(rows[0]!.leaseUntil! > s.clock.now(), "a queued claim's lease is renewed while it waits");
    }
    const firstName = ran[0]!.split("@")[0]!;
    gates.get(firstName)!();
    await s.clock.advance(10);
    assert.equal(ran.length, 3, "the first queued slot starts when a run ends");
    for (const resolve of [...gates.values()]) resolve();
    await s.clock.advance(10);
    // A node alone starts its list at a random place; the claim order is that rotation.
    const names = ["a", "b", "c", "d"];
    const started = ran.map((r) => r.split("@")[0]!);
    assert.ok(
      started.every((n, i) => i === 0 || names.indexOf(n) === (names.indexOf(started[i - 1]!) + 1) % 4),
      `queued slots start in claim order: ${started}`,
    );
    for (const resolve of [...gates.values()]) resolve();
    await s.clock.advance(10);
    assert.equal(calls.snapshot, 1, "one snapshot for the minute");
    const queuedName = started[2]!;
    const c = await store.runs(queuedName, { limit: 5 });
    assert.equal(c[0]!.status, "ok");
    assert.equal(c[0]!.startedAt, T0 + 59_000, "the row records when the queued slot started, not when it was claimed");
    await s.scheduler.stop();
  });
});

describe("slotSince()", () => {
  it("is true only for an enabled job whose slot (its start, when jittered) falls in (from, now]", () => {
    const hourly = job("h", "0 * * * *");
    assert.equal(slotSince(hourly, T0, T0 + 59 * MIN), false, "no slot after the one at `from`");
    assert.equal(slotSince(hourly, T0, T0 + 60 * MIN), true);
    assert.equal(slotSince(hourly, T0 - 1, T0), true, "the slot at `now` counts");
    assert.equal(slotSince({ ...hourly, enabled: false }, T0, T0 + 60 * MIN), false);
    const jittered = resolveJob("j", { schedule: "0 * * * *", jitter: "30s", run: () => {} }, {});
    const start = startOf(jittered, T0 + 60 * MIN);
    assert.ok(start > T0 + 60 * MIN, "the jitter of this name is not zero");
    assert.equal(slotSince(jittered, T0 + 59 * MIN, start - 1), false, "the slot is due at its start, not before");
    assert.equal(slotSince(jittered, T0 + 59 * MIN, start), true);
    const throwing = {
      ...hourly,
      schedule: {
        ...hourly.schedule,
        next: () => {
          throw new Error("bad");
        },
      },
    };
    assert.equal(slotSince(throwing as ResolvedJob, T0, T0 + 1), true, "a schedule that throws is read, not skipped");
  });
});

describe("newestDue()", () => {
  it("is the newest slot whose start (jittered or not) is not after `now`; undefined when the schedule throws", () => {
    const hourly = job("h", "0 * * * *");
    assert.equal(newestDue(hourly, T0), T0, "a slot at `now` is due");
    assert.equal(newestDue(hourly, T0 + 59 * MIN), T0);
    assert.equal(newestDue(hourly, T0 - 1), T0 - 60 * MIN);
    const jittered = resolveJob("j", { schedule: "0 * * * *", jitter: "30s", run: () => {} }, {});
    const slot = T0 + 60 * MIN;
    const start = startOf(jittered, slot);
    assert.ok(start > slot, "the jitter of this name is not zero");
    assert.equal(newestDue(jittered, start - 1), T0, "before its start the slot is not due: the one before is");
    assert.equal(newestDue(jittered, start), slot);
    const throwing = {
      ...hourly,
      schedule: {
        ...hourly.schedule,
        prev: () => {
          throw new Error("bad");
        },
      },
    };
    assert.equal(newestDue(throwing as ResolvedJob, T0), undefined);
  });
});

describe("helping in timer mode when slots come every second", () => {
  it("a gone node's share of every-second jobs runs in its own second, not once its presence ends", async () => {
    // Help waited HELP_DELAY_MS (2 s) after the slot, and each next second's tick cleared
    // the plan before that: a killed node's share got no row at all until its presence
    // entry ended (5 minutes). Adversarial review, 5 December.
    const store = createMemoryStore();
    const clock = createManualClock(T0 - MIN + 1);
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ n1: T0 - MIN, n2: T0 - MIN }));
    const b = setup({ clock, store, node: "n2", concurrency: 5 });
    const names = Array.from({ length: 40 }, (_, i) => `job-${i}`);
    const ran: string[] = [];
    for (const name of names) {
      b.scheduler.job(name, { schedule: "* * * * * *", run: (ctx) => void ran.push(`${ctx.job}@${ctx.slot}`) });
    }
    await b.scheduler.tick(T0 - MIN + 1); // registers every job
    const theirs = names.filter((n) => ownerOf(n, ["n1", "n2"]) === "n1");
    assert.ok(theirs.length > 5 && theirs.length < 35, `share of the gone node: ${theirs.length}`);
    await clock.set(T0 - 100);
    b.scheduler.start();
    for (let i = 0; i < 100; i++) await clock.advance(100);
    await b.scheduler.stop();
    for (let slot = T0 + 2_000; slot <= T0 + 8_000; slot += 1_000) {
      const at = ran.filter((r) => r.endsWith(`@${slot}`)).map((r) => r.split("@")[0]!);
      assert.deepEqual(
        theirs.filter((n) => !at.includes(n)),
        [],
        `every job of the gone node's share ran at ${slot - T0} ms`,
      );
      assert.equal(at.length, 40, `each of the 40 jobs once at ${slot - T0} ms`);
    }
  });
});
