import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { createMemoryStore, MEMORY_SNAPSHOT_PAGE } from "../../src/store/memory/mod.ts";
import { request, storeContract } from "./contract.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MIN = 60_000;

storeContract("memory", async () => createMemoryStore());

const isStoreError = (error: unknown): boolean => error instanceof SchedulerError && error.code === "store-error";

describe("createMemoryStore", () => {
  it("setFailing(true) makes every method but close reject with store-error and write nothing", async () => {
    const store = createMemoryStore();
    await store.init();
    store.setFailing(true);
    const calls: Array<() => Promise<unknown>> = [
      () => store.init(),
      () => store.snapshot(["a"], T0),
      () => store.claim([request("a", T0)]),
      () => store.update({ job: "a", slot: T0, attempt: 1, node: "n" }, { status: "ok" }),
      () => store.reap(T0),
      () => store.reclaim({ job: "a", slot: T0, attempt: 1, node: "n", now: T0, leaseUntil: T0 + 1 }),
      () => store.getRun("a", T0),
      () => store.read(["a"]),
      () => store.renew([{ job: "a", slot: T0, attempt: 1, node: "n", leaseUntil: T0 + 1 }], T0),
      () => store.updateMany([{ key: { job: "a", slot: T0, attempt: 1, node: "n" }, patch: { status: "ok" } }]),
      () => store.overview(["a"], { since: T0 }),
      () => store.runs("a"),
      () => store.lastOutcomes(["a"]),
      () => store.counts(["a"]),
      () => store.setPaused("a", true, T0),
      () => store.listDefs(),
      () => store.getDef("a"),
      () => store.putDef("a", {}, T0),
      () => store.deleteDef("a"),
      () => store.prune(T0),
    ];
    for (const call of calls) await assert.rejects(call(), isStoreError);
    await store.close();
    store.setFailing(false);
    assert.equal(await store.getRun("a", T0), undefined);
    assert.deepEqual(await store.snapshot(["a"], T0 + 1), {
      jobs: { a: { name: "a", firstSeen: T0 + 1, paused: false } },
      watermarks: {},
      defs: [],
      running: [],
    });
  });

  it("snapshot() of more than a page of jobs yields to the event loop between pages, and every page is read", async () => {
    const store = createMemoryStore();
    const page = MEMORY_SNAPSHOT_PAGE;
    const name = (i: number): string => `job-${String(i).padStart(6, "0")}`;
    const names = Array.from({ length: page * 2 + 10 }, (_, i) => name(i));
    // Known before: the last of page 1, the first of page 3; page 2's first is new.
    await store.snapshot([name(page - 1), name(page * 2)], T0);
    await store.claim([request(name(page * 2), T0 + MIN, { batch: "t" })]);
    await store.setPaused(name(page * 2), true, T0 + MIN);
    await store.putDef("zz-hook", { schedule: "* * * * *" }, T0);
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    const snap = await store.snapshot(names, T0 + 2 * MIN);
    assert.equal(timerRan, true, "a timer due during the snapshot ran before it resolved");
    assert.equal(Object.keys(snap.jobs).length, names.length + 1);
    assert.equal(snap.jobs[name(page - 1)]?.firstSeen, T0);
    assert.equal(snap.jobs[name(page)]?.firstSeen, T0 + 2 * MIN);
    assert.deepEqual(snap.jobs[name(page * 2)], {
      name: name(page * 2),
      firstSeen: T0,
      paused: true,
      pause: { note: null, at: T0 + MIN, by: "api" },
    });
    assert.equal(snap.jobs[name(page * 2 + 9)]?.firstSeen, T0 + 2 * MIN);
    assert.equal(snap.jobs["zz-hook"]?.firstSeen, T0);
    assert.deepEqual(snap.watermarks, { [name(page * 2)]: T0 + MIN });
    assert.deepEqual(snap.running.map((r) => r.job), [name(page * 2)]);
    assert.deepEqual(snap.defs.map((d) => d.name), ["zz-hook"]);
  });

  it("the failing option is asked on every call", async () => {
    let down = false;
    const store = createMemoryStore({ failing: () => down });
    assert.deepEqual((await store.claim([request("a", T0)])).map((r) => r.outcome), ["won"]);
    down = true;
    await assert.rejects(store.claim([request("a", T0 + 1)]), isStoreError);
    down = false;
    assert.deepEqual((await store.claim([request("a", T0 + 1, { overlap: "allow" })])).map((r) => r.outcome), ["won"]);
  });

  it("records returned are copies, not live state", async () => {
    const store = createMemoryStore();
    await store.claim([request("a", T0)]);
    const row = await store.getRun("a", T0);
    assert.ok(row);
    row.status = "ok";
    assert.equal((await store.getRun("a", T0))?.status, "running");
    assert.equal("batch" in row, false);
  });

  it("two stores share nothing", async () => {
    const a = createMemoryStore();
    const b = createMemoryStore();
    await a.claim([request("a", T0)]);
    assert.deepEqual((await b.claim([request("a", T0)])).map((r) => r.outcome), ["won"]);
  });
});
