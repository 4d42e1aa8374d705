// The store contract suite on the REAL local D1, run inside workerd through Miniflare,
// plus the D1 specifics: one batch per claim call, busy retries, bad bindings refused.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../../src/core/errors.ts";
import { type D1DatabaseLike, d1Store } from "../../../src/store/d1/mod.ts";
import { SCHEMA_VERSION } from "../../../src/store/sql/schema.ts";
import { request } from "../contract.ts";
import { contractWorker, type LocalD1, localD1 } from "./_miniflare.ts";

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
  // The contract cases run INSIDE workerd, on the worker's own D1 binding (Miniflare's
  // Node-side proxy is only used by the D1 specifics below).
  const suite = await contractWorker();
  after(() => suite.dispose());
  describe("Store contract: d1 (inside workerd, Miniflare)", () => {
    for (const name of suite.cases) {
      it(name, async () => {
        const result = await suite.run(name);
        assert.ok(result.ok, result.error);
      });
    }
  });
} else {
  describe.skip("Store contract: d1 (Miniflare runs on Node only)", () => {});
}

describe("d1Store", () => {
  it("refuses something that is not a D1 binding, naming it", () => {
    assert.throws(
      () => d1Store({} as never),
      (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && /D1/.test(e.message),
    );
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

    it("a tick's 100 claims are ONE db.batch (the taken slots' read, the insert, the exceptions' read); a snapshot of known jobs, renew and updateMany one batch each (updateMany of distinct rows: the refusals' read, then one statement)", async () => {
      await d1.empty();
      const { db, batches } = counting();
      const store = d1Store(db);
      await store.init();
      batches.length = 0;
      const T0 = Date.UTC(2026, 0, 1);
      const results = await store.claim(
        Array.from({ length: 100 }, (_, i) => request(`j${i}`, T0, { batch: "tick-1" })),
      );
      assert.equal(results.filter((r) => r.outcome === "won").length, 100);
      // A name with no state row yet: a read (its page's states, the definitions, the open rows),
      // then the write that inserts it and reads its page's states again; once known, one read.
      await store.snapshot(["j0"], T0);
      await store.snapshot(["j0"], T0 + 1);
      await store.renew(
        results.map((r) => ({ job: r.job, slot: r.slot, attempt: 1, node: "node-a", leaseUntil: T0 + 1 })),
        T0,
      );
      await store.updateMany(
        results.map((r) => ({
          key: { job: r.job, slot: r.slot, attempt: 1, node: "node-a" },
          patch: { status: "ok" },
        })),
      );
      assert.deepEqual(batches, [3, 3, 2, 3, 1, 2]);
      await store.close();
      await assert.rejects(store.getRun("j0", T0), /closed/);
    });
  });
}

describe("d1Store on a locked database", () => {
  /** A binding whose batches answer SQLITE_BUSY `busy` times, then `ok` (or the real D1). */
  const locked = (busy: number, ok: () => Promise<unknown[]>) => {
    let calls = 0;
    const db: D1DatabaseLike = {
      prepare: () => ({ bind: () => db.prepare(""), all: async () => ({ results: [] }) }),
      batch: async () => {
        calls += 1;
        if (calls <= busy) throw new Error("D1_ERROR: database is locked: SQLITE_BUSY");
        return ok() as never;
      },
    };
    return { db, calls: () => calls };
  };

  it("retries a busy batch (it wrote nothing) and succeeds once the lock is gone", async () => {
    const current = [{ results: [{ version: SCHEMA_VERSION }] }, { results: [{ version: SCHEMA_VERSION }] }];
    const { db, calls } = locked(3, async () => current);
    const store = d1Store(db);
    await store.init();
    assert.equal(calls(), 4);
  });

  it("stops retrying at the call timeout with a store-error naming the lock", async () => {
    const { db } = locked(Infinity, async () => []);
    const store = d1Store(db);
    store.setCallTimeout?.(30);
    await assert.rejects(
      store.init(),
      (e: unknown) => e instanceof SchedulerError && e.code === "store-error" && /SQLITE_BUSY/.test(e.message),
    );
  });

  it("other D1 errors are not retried", async () => {
    let calls = 0;
    const db: D1DatabaseLike = {
      prepare: () => ({ bind: () => db.prepare(""), all: async () => ({}) }),
      batch: async () => {
        calls += 1;
        throw new Error("D1_ERROR: no such table: x");
      },
    };
    await assert.rejects(d1Store(db).init(), /store-error: d1: init failed: D1_ERROR: no such table/);
    assert.equal(calls, 1);
  });
});

if (onNode) {
  describe("d1Store settings", () => {
    it("getSetting / putSetting on the real local D1", async () => {
      await d1.empty();
      const store = d1Store(d1.db) as ReturnType<typeof d1Store> & {
        getSetting(key: string): Promise<string | undefined>;
        putSetting(key: string, value: string): Promise<void>;
      };
      assert.equal(await store.getSetting("epoch"), undefined);
      await store.putSetting("epoch", "7");
      await store.putSetting("epoch", "8");
      assert.equal(await store.getSetting("epoch"), "8");
      await store.close();
    });
  });
}
