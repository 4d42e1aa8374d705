import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { createManualClock, type ManualClock } from "../../../src/engine/clock.ts";
import type { Store } from "../../../src/store/types.ts";
import { HOUR, MIN, setup, T0, tickAt } from "../_helpers.ts";

const READS = new Set(["read", "overview", "getRun", "runs", "lastOutcomes", "counts", "listDefs", "getDef"]);

/** A memory store that counts calls per method. */
function counting(): { store: ReturnType<typeof createMemoryStore>; calls: Map<string, number> } {
  const store = createMemoryStore();
  const calls = new Map<string, number>();
  for (const key of Object.keys(store) as (keyof Store)[]) {
    const fn = store[key];
    if (typeof fn !== "function") continue;
    (store as unknown as Record<string, unknown>)[key] = (...args: unknown[]) => {
      calls.set(key, (calls.get(key) ?? 0) + 1);
      return (fn as (...a: unknown[]) => unknown).apply(store, args);
    };
  }
  return { store, calls };
}

describe("list()", () => {
  for (const jobs of [1, 1000]) {
    it(`with ${jobs} job(s) and a window: three store reads (listDefs + read + overview), no write`, async () => {
      const { store, calls } = counting();
      const s = setup({ store, start: T0 - MIN + 1 });
      for (let i = 0; i < jobs; i++) s.scheduler.job(`job-${i}`, { schedule: "*/15 * * * *", run: () => {} });
      await tickAt(s, T0 - MIN + 1);
      await tickAt(s, T0 + 1);
      await s.clock.set(T0 + MIN);
      calls.clear();
      const infos = await s.scheduler.list({ window: HOUR });
      assert.equal(infos.length, jobs);
      assert.deepEqual([...calls.entries()].sort(), [["listDefs", 1], ["overview", 1], ["read", 1]]);
      assert.ok([...calls.keys()].every((k) => READS.has(k)));
      const first = infos.find((i) => i.name === "job-0")!;
      assert.deepEqual(first.recent!.map((r) => [r.slot, r.status]), [[T0, "ok"]]);
      assert.deepEqual(first.upcoming, {
        count: 4,
        first: T0 + 15 * MIN,
        last: T0 + HOUR,
        slots: [T0 + 15 * MIN, T0 + 30 * MIN, T0 + 45 * MIN, T0 + HOUR],
      });
      assert.equal(first.lastOutcome?.slot, T0);
    });
  }

  it("a job the store never saw is listed without being written; paging by name; paused jobs have no next slots", async () => {
    const { store, calls } = counting();
    const s = setup({ store });
    for (const name of ["c", "a", "b"]) s.scheduler.job(name, { schedule: "0 * * * *", run: () => {} });
    const all = await s.scheduler.list({ window: HOUR });
    assert.deepEqual(all.map((i) => i.name), ["c", "a", "b"]);
    assert.equal(calls.get("snapshot"), undefined, "list() never inserts job state");
    assert.equal(Object.keys((await store.read(["a"])).jobs).length, 0);
    assert.deepEqual((await s.scheduler.list({ limit: 2 })).map((i) => i.name), ["a", "b"]);
    assert.deepEqual((await s.scheduler.list({ after: "a", limit: 5 })).map((i) => i.name), ["b", "c"]);
    await s.scheduler.pause("b");
    const b = await s.scheduler.get("b");
    assert.deepEqual([b!.paused, b!.next], [true, []]);
    const listed = (await s.scheduler.list({ window: HOUR })).find((i) => i.name === "b")!;
    assert.equal(listed.upcoming!.count, 0);
  });

  it("a page reads the state of its own jobs only, in name order whatever the registration order", async () => {
    const store = createMemoryStore();
    const asked: string[][] = [];
    const { read } = store;
    store.read = (names) => {
      asked.push([...names]);
      return read(names);
    };
    const s = setup({ store, start: T0 });
    // A fixed shuffle of 300 names: registration order is not name order.
    const names = Array.from({ length: 300 }, (_, i) => `j${String((i * 7919) % 300).padStart(3, "0")}`);
    for (const name of names) s.scheduler.job(name, { schedule: "* * * * *", run: () => {} });
    const sorted = [...names].sort();
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      asked.length = 0;
      const page = await s.scheduler.list({
        next: 0,
        limit: 40,
        outcomes: false,
        ...(after === undefined ? {} : { after }),
      });
      if (page.length === 0) break;
      assert.deepEqual(asked, [page.map((j) => j.name)], "one read, of the page's names");
      seen.push(...page.map((j) => j.name));
      after = page.at(-1)!.name;
    }
    assert.deepEqual(seen, sorted);
  });

  it("pages of data jobs read their own name range and rows only, and see another node's define and delete at once", async () => {
    const store = createMemoryStore();
    const a = setup({ store, webhookSecret: "k" });
    const b = setup({ store, webhookSecret: "k", clock: a.clock });
    const hook = { schedule: "*/5 * * * *", target: { url: "https://example.test/hook" } };
    const names = Array.from({ length: 60 }, (_, i) => `d${String((i * 37) % 60).padStart(3, "0")}`);
    for (const name of names) await b.scheduler.define(name, hook);
    // What each store read returned: a page must never read beyond its own jobs.
    const returned: number[] = [];
    const { read, listDefs } = store;
    store.read = async (asked) => {
      const view = await read(asked);
      returned.push(view.defs.length, Object.keys(view.jobs).length);
      return view;
    };
    store.listDefs = async (query) => {
      const defs = await listDefs(query);
      returned.push(defs.length);
      return defs;
    };
    const pages = async (): Promise<string[]> => {
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await a.scheduler.list({ next: 0, limit: 20, ...(after === undefined ? {} : { after }) });
        if (page.length === 0) return seen;
        seen.push(...page.map((j) => j.name));
        after = page.at(-1)!.name;
      }
    };
    // a never ticked: every job it lists, it learned from the pages themselves.
    assert.deepEqual(await pages(), [...names].sort());
    assert.ok(returned.every((n) => n <= 20), `a store read returned ${Math.max(...returned)} rows`);
    await b.scheduler.undefine("d010");
    await b.scheduler.define("d010x", hook);
    const first = (await a.scheduler.list({ limit: 20 })).map((j) => j.name);
    assert.equal(first.includes("d010"), false, "deleted on another node");
    assert.equal(first.includes("d010x"), true, "defined on another node");
    assert.equal((await a.scheduler.get("d020"))?.source, "data");
    await b.scheduler.undefine("d020");
    assert.equal(await a.scheduler.get("d020"), undefined);
    assert.equal((await a.scheduler.list({ after: "d019", limit: 1 }))[0]?.name, "d021");
  });

  it("counting a day of every-second slots gives the event loop turns, and counts every slot", async () => {
    const s = setup();
    for (const name of ["a", "b", "c"]) s.scheduler.job(name, { schedule: "* * * * * *", run: () => {} });
    let turns = 0;
    let on = true;
    const spin = (): void => {
      turns++;
      if (on) setTimeout(spin, 0);
    };
    setTimeout(spin, 0);
    const infos = await s.scheduler.list({ window: 24 * HOUR, limit: 3 });
    on = false;
    assert.deepEqual(infos.map((i) => i.upcoming!.count), [86_400, 86_400, 86_400]);
    // 259 200 slots walked: a host turn every 20 000 of them (13). A zero-delay timer is due
    // after 1 ms and runs at the next loop iteration, so it sees most of them; without the
    // turns it would run once, after the walk.
    assert.ok(turns >= 5, `the event loop turned ${turns} times`);
  });

  it("upcoming slots are cached until the next tick or a definition change", async () => {
    const s = setup();
    let walks = 0;
    const schedule = {
      kind: "cron" as const,
      timezone: "UTC",
      next: (after: number) => Math.floor(after / HOUR) * HOUR + HOUR,
      prev: (before: number) => Math.ceil(before / HOUR) * HOUR - HOUR,
      nextRuns: (after: number, n: number) =>
        Array.from({ length: n }, (_, i) => Math.floor(after / HOUR) * HOUR + (i + 1) * HOUR),
      *between(from: number, to: number) {
        walks++;
        for (let t = Math.floor(from / HOUR) * HOUR + HOUR; t <= to; t += HOUR) yield t;
      },
      toString: () => "hourly",
      toJSON: () => ({ cron: "0 * * * *" }),
    };
    s.scheduler.job("h", { schedule, run: () => {} });
    // Start-up samples each schedule once (the expected-history check); only later walks count.
    await s.scheduler.ready();
    walks = 0;
    await s.scheduler.list({ window: 3 * HOUR });
    await s.clock.advance(MIN);
    const again = await s.scheduler.list({ window: 3 * HOUR });
    assert.equal(walks, 1);
    assert.equal(again[0]!.upcoming!.count, 3);
    await s.scheduler.tick();
    const afterTick = walks; // the tick plans the job's window with between() too
    await s.scheduler.list({ window: 3 * HOUR });
    assert.equal(walks, afterTick + 1, "a tick drops the cache");
  });
});

describe("summaries()", () => {
  it("gives each job's next slot again after the clock reaches it or steps back, and after the job list changes", async () => {
    const manual = createManualClock(T0 + 1);
    let now = T0 + 1;
    // A clock that may step back (the manual clock only moves forward).
    const clock = { now: () => now, setTimeout: manual.setTimeout, clearTimeout: manual.clearTimeout };
    const s = setup({ clock: clock as ManualClock });
    s.scheduler.job("b", { schedule: "0 * * * *", run: () => {} });
    s.scheduler.job("c", { schedule: "*/15 * * * *", run: () => {} });
    const next = async (): Promise<Record<string, number | undefined>> =>
      Object.fromEntries((await s.scheduler.summaries({ limit: 10 })).map((j) => [j.name, j.next]));
    assert.deepEqual(await next(), { b: T0 + HOUR, c: T0 + 15 * MIN });
    assert.deepEqual(await next(), { b: T0 + HOUR, c: T0 + 15 * MIN }, "the same, read again");
    now = T0 + 15 * MIN;
    assert.deepEqual(await next(), { b: T0 + HOUR, c: T0 + 30 * MIN }, "c's slot came: its next one");
    now = T0 + 1;
    assert.deepEqual(await next(), { b: T0 + HOUR, c: T0 + 15 * MIN }, "the clock stepped back");
    // A job before the others by name moves them along the sorted list.
    s.scheduler.job("a", { schedule: "*/5 * * * *", run: () => {} });
    assert.deepEqual(await next(), { a: T0 + 5 * MIN, b: T0 + HOUR, c: T0 + 15 * MIN });
  });
});
