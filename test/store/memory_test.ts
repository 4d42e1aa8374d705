import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { createMemoryStore } from "../../src/store/memory/mod.ts";
import { request, storeContract } from "./contract.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

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
