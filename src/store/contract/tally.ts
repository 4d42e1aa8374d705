/** Store contract cases for `tally()`: what a metrics scrape reads per page of jobs. */
import { assert } from "./assert.ts";
import { type ContractContext, MIN, request, T0, ZERO_COUNTS } from "./_shared.ts";
import type { Store } from "../types.ts";

/** Registers these cases with `it`; each runs on a fresh store from `withStore`. */
export function tallyCases({ it, withStore }: ContractContext): void {
  // A store written before tally() was in the port skips these cases.
  const lacks = (store: Store): boolean => typeof store.tally !== "function";

  it("tally() gives paused, live run, newest finished row, counts and buffer-full skips per job", () =>
    withStore(async (store) => {
      if (lacks(store)) return;
      const slots = Array.from({ length: 5 }, (_, i) => T0 + i * MIN);
      await store.claim(slots.slice(0, 4).map((slot) => request("a", slot, { status: "missed", batch: "t" })));
      await store.claim([request("a", slots[4]!, { batch: "u", leaseUntil: slots[4]! + MIN })]);
      await store.claim([request("b", T0, { batch: "t1", leaseUntil: T0 + MIN })]);
      await store.update({ job: "b", slot: T0, attempt: 1, node: "node-a" }, {
        status: "ok",
        finishedAt: T0 + 10,
        leaseUntil: null,
      });
      // A full buffer's skips (bufferOne), beside an overlap skip of another job.
      await store.claim([request("c", T0, { batch: "t1", overlap: "bufferOne" })]);
      await store.claim([1, 2].map((k) => request("c", T0 + k * MIN, { batch: "t2", overlap: "bufferOne" })));
      await store.claim([request("d", T0, { batch: "t1" })]);
      await store.claim([request("d", T0 + MIN, { batch: "t2" })]);
      await store.claim([request("__proto__", T0, { status: "missed" })]);
      await store.setPaused("p", true, T0);
      const names = ["a", "b", "c", "d", "__proto__", "p", "none"];
      const now = slots[4]! + 30_000;
      const tally = await store.tally(names, now);
      assert.deepEqual(Object.keys(tally).sort(), [...names].sort());
      const a = tally["a"]!;
      assert.equal(a.runningSince, slots[4], "the live run's slot");
      assert.deepEqual(
        a.last,
        { status: "missed", startedAt: slots[3], finishedAt: slots[3] },
        "the newest FINISHED row",
      );
      assert.equal(a.counts.missed, 4);
      assert.equal(a.counts.running, 1);
      assert.deepEqual(tally["b"]!.last, { status: "ok", startedAt: T0, finishedAt: T0 + 10 });
      assert.equal(tally["b"]!.runningSince, undefined);
      assert.deepEqual(["c", "d"].map((j) => [tally[j]!.counts.skipped, tally[j]!.bufferFull]), [[1, 1], [1, 0]]);
      assert.equal(tally["__proto__"]!.counts.missed, 1);
      assert.equal(tally["p"]!.paused, true);
      assert.equal(tally["a"]!.paused, false);
      assert.deepEqual(tally["none"], {
        paused: false,
        runningSince: undefined,
        last: undefined,
        counts: { ...ZERO_COUNTS },
        bufferFull: 0,
      });
      // The same counts and newest finished row as overview() tells.
      const view = await store.overview(names, { since: T0 });
      for (const name of names) {
        assert.deepEqual(tally[name]!.counts, view[name]!.counts, `${name}: counts`);
        assert.equal(tally[name]!.bufferFull, view[name]!.bufferFull ?? 0, `${name}: bufferFull`);
        assert.equal(tally[name]!.last?.status, view[name]!.last?.status, `${name}: last`);
      }
      // A lease that ended is no live run.
      assert.equal((await store.tally(["a"], slots[4]! + MIN + 1))["a"]!.runningSince, undefined);
    }));

  it("tally() of a page of many names counts every one of them, whatever characters they hold, and no job not asked for", () =>
    withStore(async (store) => {
      if (lacks(store)) return;
      // A scrape's page: many names in order. U+FFFF and U+1F600 sort one way in UTF-16
      // and the other in UTF-8; jobs between the names have rows and a paused flag.
      const names = [...Array.from({ length: 40 }, (_, i) => `p-${String(i).padStart(2, "0")}`), "\uffff", "\u{1f600}"];
      const others = ["p-05x", "p-20x", "\ufffe"];
      await store.claim([...names, ...others].map((job) => request(job, T0, { status: "missed" })));
      await store.claim([request("p-07", T0 + MIN, { leaseUntil: T0 + 2 * MIN })]);
      for (const job of ["p-09", "p-20x"]) await store.setPaused(job, true, T0);
      const tally = await store.tally(names, T0 + MIN);
      assert.deepEqual(Object.keys(tally).sort(), [...names].sort());
      for (const name of names) assert.equal(tally[name]!.counts.missed, 1, `${name}: its row`);
      assert.deepEqual(names.filter((n) => tally[n]!.paused), ["p-09"]);
      assert.deepEqual(names.filter((n) => tally[n]!.runningSince !== undefined), ["p-07"]);
    }));

  it("tally() never writes, and checks its arguments", () =>
    withStore(async (store) => {
      if (lacks(store)) return;
      assert.deepEqual(Object.keys(await store.tally([], T0)), []);
      await store.tally(["ghost"], T0);
      assert.equal(Object.hasOwn((await store.read(["ghost"])).jobs, "ghost"), false);
      await assert.rejects(store.tally(["a"], Number.NaN));
    }));
}
