/** Store contract cases for this round's port methods: renew, updateMany, read, overview. */
import { assert } from "./assert.ts";
import { type ContractContext, MIN, rejectsWith, request, T0, ZERO_COUNTS } from "./_shared.ts";
import type { Store } from "../types.ts";

/** Registers these cases with `it`; each runs on a fresh store from `withStore`. */
export function portCases({ it, withStore }: ContractContext): void {
  // Until every implementation has this round's port methods, one without them skips here.
  const lacks = (store: Store, method: keyof Store): boolean => typeof store[method] !== "function";
  it("renew() extends live leases in one call, results in request order", () =>
    withStore(async (store) => {
      if (lacks(store, "renew")) return;
      await store.claim([request("a", T0, { leaseUntil: T0 + MIN }), request("b", T0, { leaseUntil: T0 + MIN })]);
      const now = T0 + 30_000;
      const results = await store.renew([
        { job: "a", slot: T0, attempt: 1, node: "node-a", leaseUntil: now + MIN },
        { job: "b", slot: T0, attempt: 1, node: "node-x", leaseUntil: now + MIN },
        { job: "b", slot: T0, attempt: 2, node: "node-a", leaseUntil: now + MIN },
        { job: "zz", slot: T0, attempt: 1, node: "node-a", leaseUntil: now + MIN },
      ], now);
      assert.deepEqual(results, [true, false, false, false]);
      assert.equal((await store.getRun("a", T0))?.leaseUntil, now + MIN);
      assert.equal((await store.getRun("b", T0))?.leaseUntil, T0 + MIN, "another holder's renewal changes nothing");
      assert.deepEqual(await store.renew([], now), []);
    }));

  it("renew() never revives an ended lease, nor a finished or reaped row", () =>
    withStore(async (store) => {
      if (lacks(store, "renew")) return;
      await store.claim([request("a", T0, { leaseUntil: T0 + MIN }), request("b", T0, { leaseUntil: T0 + 5 * MIN })]);
      await store.update({ job: "b", slot: T0, attempt: 1, node: "node-a" }, {
        status: "ok",
        finishedAt: T0,
        leaseUntil: null,
      });
      const late = T0 + MIN + 1;
      const renewals = [
        { job: "a", slot: T0, attempt: 1, node: "node-a", leaseUntil: late + MIN },
        { job: "b", slot: T0, attempt: 1, node: "node-a", leaseUntil: late + MIN },
      ];
      assert.deepEqual(await store.renew(renewals, late), [false, false]);
      assert.equal((await store.getRun("a", T0))?.leaseUntil, T0 + MIN);
      assert.equal((await store.getRun("b", T0))?.status, "ok");
      // At exactly the lease end it is still live.
      await store.claim([request("c", T0, { leaseUntil: T0 + MIN })]);
      assert.deepEqual(
        await store.renew([{ job: "c", slot: T0, attempt: 1, node: "node-a", leaseUntil: T0 + 2 * MIN }], T0 + MIN),
        [true],
      );
      const reaped = await store.reap(T0 + 3 * MIN);
      assert.deepEqual(reaped.map((r) => r.job).sort(), ["a", "c"]);
      assert.deepEqual(
        await store.renew([{ job: "c", slot: T0, attempt: 1, node: "node-a", leaseUntil: T0 + 9 * MIN }], T0),
        [false],
      );
    }));

  it("updateMany() applies each compare-and-set as update() would, in one call", () =>
    withStore(async (store) => {
      if (lacks(store, "updateMany")) return;
      await store.claim([request("a", T0), request("b", T0), request("c", T0)]);
      const done = { status: "ok", finishedAt: T0 + 1, leaseUntil: null } as const;
      const results = await store.updateMany([
        { key: { job: "a", slot: T0, attempt: 1, node: "node-a" }, patch: done },
        { key: { job: "b", slot: T0, attempt: 2, node: "node-a" }, patch: done },
        {
          key: { job: "c", slot: T0, attempt: 1, node: "node-a" },
          patch: { status: "error", finishedAt: T0 + 2, leaseUntil: null, error: "boom" },
        },
        {
          key: { job: "a", slot: T0, attempt: 1, node: "node-a" },
          patch: { status: "error", finishedAt: T0 + 3, leaseUntil: null },
        },
        { key: { job: "zz", slot: T0, attempt: 1, node: "node-a" }, patch: done },
      ]);
      assert.deepEqual(results, [true, false, true, false, false]);
      const [a, b, c] = await Promise.all(["a", "b", "c"].map((job) => store.getRun(job, T0)));
      assert.deepEqual([a?.status, a?.finishedAt, a?.leaseUntil], ["ok", T0 + 1, null]);
      assert.equal(b?.status, "running");
      assert.deepEqual([c?.status, c?.error], ["error", "boom"]);
      assert.deepEqual(await store.updateMany([]), []);
    }));

  it("updateMany() applies writes in order when a row comes twice after a job's second slot, values shared or not", () =>
    withStore(async (store) => {
      if (lacks(store, "updateMany")) return;
      const slots = [T0, T0 + MIN];
      await store.claim([
        ...slots.map((slot) => request("a", slot, { overlap: "allow", batch: "t" })),
        ...["b", "c"].map((job) => request(job, T0, { batch: "t" })),
      ]);
      const key = (job: string, slot = T0) => ({ job, slot, attempt: 1, node: "node-a" });
      const results = await store.updateMany([
        { key: key("a"), patch: { status: "ok", finishedAt: T0 + 1, leaseUntil: null } },
        { key: key("a", T0 + MIN), patch: { status: "ok", finishedAt: T0 + 2, leaseUntil: null } },
        { key: key("b"), patch: { status: "ok", finishedAt: T0 + 3, leaseUntil: null } },
        // The row just written: no longer the running attempt.
        { key: key("b"), patch: { status: "error", finishedAt: T0 + 4, leaseUntil: null } },
        { key: key("c"), patch: { status: "ok", finishedAt: T0 + 1, leaseUntil: null } },
      ]);
      assert.deepEqual(results, [true, true, true, false, true]);
      const rows = await Promise.all(
        [key("a"), key("a", T0 + MIN), key("b"), key("c")].map((k) => store.getRun(k.job, k.slot)),
      );
      assert.deepEqual(rows.map((r) => [r?.status, r?.finishedAt]), [
        ["ok", T0 + 1],
        ["ok", T0 + 2],
        ["ok", T0 + 3],
        ["ok", T0 + 1],
      ]);
    }));

  it("updateMany() refuses a bad write before applying any", () =>
    withStore(async (store) => {
      if (lacks(store, "updateMany")) return;
      await store.claim([request("a", T0)]);
      await assert.rejects(store.updateMany([
        { key: { job: "a", slot: T0, attempt: 1, node: "node-a" }, patch: { status: "ok", finishedAt: T0 } },
        { key: { job: "a", slot: T0, attempt: 1, node: "node-a" }, patch: { status: "done" as "ok" } },
      ]));
      assert.equal((await store.getRun("a", T0))?.status, "running");
    }));

  it("read() has snapshot()'s shape and never writes", () =>
    withStore(async (store) => {
      if (lacks(store, "read")) return;
      await store.claim([request("a", T0)]);
      await store.putDef("d", { schedule: "* * * * *" }, T0);
      const before = await store.read(["a", "d", "never-seen", "__proto__"]);
      assert.deepEqual(Object.keys(before.jobs).sort(), ["d"], "names the store never saw are absent");
      assert.deepEqual(before.defs.map((d) => d.name), ["d"]);
      assert.deepEqual(before.running.map((r) => r.job), ["a"]);
      assert.equal(Object.hasOwn(before.watermarks, "never-seen"), false);
      // snapshot() records "a" as first seen now; read() only ever reads that.
      await store.snapshot(["a"], T0 + MIN);
      const after = await store.read(["a", "never-seen"]);
      assert.deepEqual(after.jobs["a"], { name: "a", firstSeen: T0 + MIN, paused: false });
      assert.equal(after.watermarks["a"], T0);
      assert.equal(Object.hasOwn(after.jobs, "never-seen"), false);
      assert.equal(Object.hasOwn((await store.read(["never-seen"])).jobs, "never-seen"), false);
    }));

  it("read() returns the named jobs only: no other job's state, watermark, definition or open row", () =>
    withStore(async (store) => {
      if (lacks(store, "read")) return;
      await store.putDef("d1", { schedule: "* * * * *" }, T0);
      await store.putDef("d2", { schedule: "* * * * *" }, T0);
      await store.snapshot(["a", "b"], T0);
      await store.claim([
        request("a", T0, { batch: "1" }),
        request("b", T0, { batch: "2" }),
        request("d1", T0, { batch: "3" }),
        request("d2", T0, { batch: "4" }),
      ]);
      const view = await store.read(["a", "d1"]);
      assert.deepEqual(Object.keys(view.jobs).sort(), ["a", "d1"]);
      assert.deepEqual(Object.keys(view.watermarks).sort(), ["a", "d1"]);
      assert.deepEqual(view.defs.map((d) => d.name), ["d1"]);
      assert.deepEqual(view.running.map((r) => r.job).sort(), ["a", "d1"]);
      const none = await store.read([]);
      assert.deepEqual([Object.keys(none.jobs), none.defs, none.running], [[], [], []]);
      // snapshot() still plans every job: every definition and every open row.
      const whole = await store.snapshot(["a"], T0 + MIN);
      assert.deepEqual(whole.defs.map((d) => d.name), ["d1", "d2"]);
      assert.deepEqual(whole.running.map((r) => r.job).sort(), ["a", "b", "d1", "d2"]);
    }));

  it("recorded() tells which slots have a row (any status or kind), in request order, and never writes", () =>
    withStore(async (store) => {
      if (store.recorded === undefined) return;
      await store.claim([
        request("a", T0),
        request("b", T0, { status: "missed" }),
        request("m", T0, { kind: "manual", batch: "m" }),
      ]);
      await store.update({ job: "a", slot: T0, attempt: 1, node: "node-a" }, { status: "ok", finishedAt: T0 });
      const asked = [
        { job: "a", slot: T0 },
        { job: "a", slot: T0 + MIN },
        { job: "b", slot: T0 },
        { job: "m", slot: T0 },
        { job: "never-seen", slot: T0 },
        { job: "a", slot: T0 },
      ];
      assert.deepEqual(await store.recorded(asked), [true, false, true, true, false, true]);
      // One slot for all (a minute's probe of other shares).
      const minute = ["never-seen", "a", "b", "m", "a"].map((job) => ({ job, slot: T0 }));
      assert.deepEqual(await store.recorded(minute), [false, true, true, true, true]);
      assert.deepEqual(await store.recorded([{ job: "a", slot: T0 + MIN }]), [false]);
      assert.deepEqual(await store.recorded([]), []);
      assert.equal(Object.hasOwn((await store.read(["never-seen"])).jobs, "never-seen"), false);
      await rejectsWith(store.recorded([{ job: "", slot: T0 }]), "invalid-spec");
    }));

  it("listDefs() pages by name: after a name (exclusive), at most limit, and refuses a bad query", () =>
    withStore(async (store) => {
      for (const name of ["c", "a", "e", "b", "d"]) await store.putDef(name, { schedule: "* * * * *" }, T0);
      const names = async (query?: { after?: string; limit?: number }): Promise<string> =>
        (await store.listDefs(query)).map((d) => d.name).join("");
      assert.equal(await names(), "abcde");
      assert.equal(await names({ limit: 2 }), "ab");
      assert.equal(await names({ after: "b", limit: 2 }), "cd");
      assert.equal(await names({ after: "bb" }), "cde", "a cursor need not be a stored name");
      assert.equal(await names({ after: "e" }), "");
      assert.equal((await store.listDefs({ after: "a", limit: 1 }))[0]?.spec["schedule"], "* * * * *");
      await rejectsWith(store.listDefs({ limit: 0 }), "invalid-spec", /listDefs\.limit/);
      await rejectsWith(store.listDefs({ limit: 1.5 }), "invalid-spec", /listDefs\.limit/);
      await rejectsWith(store.listDefs({ after: "" }), "invalid-spec", /listDefs\.after/);
    }));

  it("overview() gives last outcome, counts and recent rows per job in one call", () =>
    withStore(async (store) => {
      if (lacks(store, "overview")) return;
      const slots = Array.from({ length: 5 }, (_, i) => T0 + i * MIN);
      await store.claim(slots.slice(0, 4).map((slot) => request("a", slot, { status: "missed", batch: "t" })));
      await store.claim([request("a", slots[4]!, { batch: "u" })]);
      await store.claim([request("__proto__", T0, { status: "missed" })]);
      const view = await store.overview(["a", "__proto__", "none"], { since: T0 + 2 * MIN, perJob: 2 });
      assert.deepEqual(Object.keys(view).sort(), ["__proto__", "a", "none"]);
      const a = view["a"]!;
      assert.equal(a.last?.slot, slots[3], "the newest FINISHED row");
      assert.equal(a.counts.missed, 4);
      assert.equal(a.counts.running, 1);
      assert.deepEqual(a.recent.map((r) => r.slot), [slots[4], slots[3]], "newest first, at most perJob");
      assert.equal(view["__proto__"]!.counts.missed, 1);
      // bufferFull is optional in the port: 0 or absent for a job with no rows.
      const { bufferFull, ...none } = view["none"]!;
      assert.ok(bufferFull === undefined || bufferFull === 0, `bufferFull ${String(bufferFull)}`);
      assert.deepEqual(none, {
        last: undefined,
        counts: { ...ZERO_COUNTS },
        recent: [],
      });
      const all = await store.overview(["a"], { since: T0 });
      assert.equal(all["a"]!.recent.length, 5, "perJob defaults to 50");
      // Past the largest page: refused, naming it (it was cut to 1000 without a word).
      assert.equal((await store.overview(["a"], { since: T0, perJob: 1000 }))["a"]!.recent.length, 5);
      await rejectsWith(store.overview(["a"], { since: T0, perJob: 1001 }), "invalid-spec", /perJob.*1 to 1000/);
    }));

  it("overview() never writes: a name it is asked about stays unknown to read()", () =>
    withStore(async (store) => {
      if (lacks(store, "overview") || lacks(store, "read")) return;
      await store.overview(["ghost"], { since: T0 });
      assert.equal(Object.hasOwn((await store.read(["ghost"])).jobs, "ghost"), false);
    }));
}
