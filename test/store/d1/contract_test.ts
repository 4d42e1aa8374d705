// The store contract suite on the REAL local D1 (workerd through Miniflare), plus the
// D1 specifics: one batch per claim call, bad bindings refused.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../../src/core/errors.ts";
import { type D1DatabaseLike, d1Store } from "../../../src/store/d1/mod.ts";
import { request, storeContract } from "../contract.ts";
import { type LocalD1, localD1 } from "./_miniflare.ts";

declare const Deno: unknown;
declare const Bun: unknown;
// Miniflare drives workerd from Node; on Deno and Bun this file only registers a skip.
const onNode = typeof Deno === "undefined" && typeof Bun === "undefined";

let d1: LocalD1;
if (onNode) {
  before(async () => {
    d1 = await localD1();
  });
  after(() => d1.dispose());
  storeContract("d1 (miniflare)", async () => {
    await d1.empty();
    return d1Store(d1.db);
  });
} else {
  describe.skip("Store contract: d1 (Miniflare runs on Node only)", () => {});
}

describe("d1Store", () => {
  it("refuses something that is not a D1 binding, naming it", () => {
    assert.throws(() => d1Store({} as never), (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && /D1/.test(e.message));
  });
});

if (onNode) {
  describe("d1Store round trips", () => {
    /** The binding, recording how many statements each batch carried. */
    const counting = (): { db: D1DatabaseLike; batches: number[] } => {
      const batches: number[] = [];
      const db: D1DatabaseLike = {
        prepare: (sql) => d1.db.prepare(sql),
        batch: (statements) => {
          batches.push(statements.length);
          return d1.db.batch(statements);
        },
      };
      return { db, batches };
    };

    it("a tick's 100 claims are ONE db.batch of one statement; snapshot, renew and updateMany one batch each", async () => {
      await d1.empty();
      const { db, batches } = counting();
      const store = d1Store(db);
      await store.init();
      batches.length = 0;
      const T0 = Date.UTC(2026, 0, 1);
      const results = await store.claim(Array.from({ length: 100 }, (_, i) => request(`j${i}`, T0, { batch: "tick-1" })));
      assert.equal(results.filter((r) => r.outcome === "won").length, 100);
      await store.snapshot(["j0"], T0);
      await store.renew(results.map((r) => ({ job: r.job, slot: r.slot, attempt: 1, node: "node-a", leaseUntil: T0 + 1 })), T0);
      await store.updateMany(results.map((r) => ({ key: { job: r.job, slot: r.slot, attempt: 1, node: "node-a" }, patch: { status: "ok" } })));
      assert.deepEqual(batches, [1, 4, 1, 100]);
      await store.close();
      await assert.rejects(store.getRun("j0", T0), /closed/);
    });
  });
}
