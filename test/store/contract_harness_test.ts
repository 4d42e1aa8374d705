// `edgecron/store`'s storeContract runs under any harness: here a tiny hand-made one
// collects the cases and runs them on the memory store, and a deliberately broken store
// fails them. Its own assertions must fail when they should.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore, storeContract } from "../../src/store/mod.ts";
import { assert as contractAssert, isDeepEqual } from "../../src/store/contract/assert.ts";
import type { Store } from "../../src/store/types.ts";

/** A minimal harness: collects cases by group, runs them in order, reports failures. */
function collect(makeStore: () => Store): { run(): Promise<{ passed: number; failed: string[] }> } {
  const cases: Array<{ name: string; fn: () => Promise<void> }> = [];
  let group = "";
  storeContract({
    describe: (name, fn) => {
      group = name;
      fn();
    },
    it: (name, fn) => cases.push({ name: `${group} > ${name}`, fn }),
    makeStore,
    name: "harness",
  });
  return {
    async run() {
      const failed: string[] = [];
      for (const c of cases) await c.fn().catch(() => failed.push(c.name));
      return { passed: cases.length - failed.length, failed };
    },
  };
}

describe("storeContract (edgecron/store) with another harness", () => {
  it("runs every case on the memory store, all passing", async () => {
    const { passed, failed } = await collect(() => createMemoryStore()).run();
    assert.deepEqual(failed, []);
    assert.ok(passed >= 39, `${passed} cases`);
  });

  it("fails cases for a store that breaks the contract (claims never lost)", async () => {
    const broken = (): Store => {
      const store = createMemoryStore();
      const claim = store.claim.bind(store);
      return Object.assign(store, {
        claim: async (requests: Parameters<Store["claim"]>[0]) =>
          (await claim(requests)).map((r) => ({ ...r, outcome: r.outcome === "lost" ? "won" as const : r.outcome })),
      });
    };
    const { failed } = await collect(broken).run();
    assert.ok(failed.some((name) => /second claim on it is lost/.test(name)), failed.join("\n"));
  });
});

describe("the contract suite's assertions", () => {
  it("deepEqual compares structure, ignores prototypes, and fails on a difference", () => {
    assert.equal(
      isDeepEqual({ a: [1, { b: null }] }, Object.assign(Object.create(null), { a: [1, { b: null }] })),
      true,
    );
    assert.equal(isDeepEqual({ a: undefined }, {}), false);
    assert.equal(isDeepEqual([1, 2], { 0: 1, 1: 2 }), false);
    assert.equal(isDeepEqual(Number.NaN, Number.NaN), true);
    assert.throws(() => contractAssert.deepEqual([1], [2], "rows"), /rows: expected \[2\], got \[1\]/);
  });

  it("equal, ok, match and rejects throw when they should", async () => {
    assert.throws(() => contractAssert.equal(1, 2), /expected 2, got 1/);
    assert.throws(() => contractAssert.ok(0, "flag"), /flag/);
    assert.throws(() => contractAssert.match("abc", /x/), /to match/);
    await assert.rejects(contractAssert.rejects(Promise.resolve(1)), /expected a rejection/);
    await assert.rejects(contractAssert.rejects(Promise.reject(new Error("x")), () => false), /not the expected one/);
    await contractAssert.rejects(Promise.reject(new Error("x")), () => true);
  });
});
