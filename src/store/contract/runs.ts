/** Store contract cases: reclaim, history reads, counts, pause, definitions, prune, bad input. */
import { assert } from "./assert.ts";
import { type ContractContext, MIN, outcomes, rejectsWith, request, T0, ZERO_COUNTS } from "./_shared.ts";

/** Registers these cases with `it`; each runs on a fresh store from `withStore`. */
export function runCases({ it, withStore }: ContractContext): void {
  it("reclaim() by two nodes: exactly one wins the next attempt", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { leaseUntil: T0 + MIN })]);
      await store.reap(T0 + 2 * MIN);
      const key = { job: "a", slot: T0, attempt: 1 };
      const now = T0 + 3 * MIN;
      const [p, q] = await Promise.all([
        store.reclaim({ ...key, node: "node-b", now, leaseUntil: now + 10 * MIN }),
        store.reclaim({ ...key, node: "node-c", now, leaseUntil: now + 10 * MIN }),
      ]);
      assert.deepEqual([p, q].sort(), [false, true]);
      const row = await store.getRun("a", T0);
      assert.deepEqual(
        [row?.status, row?.attempt, row?.node, row?.startedAt, row?.leaseUntil, row?.finishedAt, row?.error],
        ["running", 2, p ? "node-b" : "node-c", now, now + 10 * MIN, null, null],
      );
      assert.equal(row?.claimedAt, T0);
      assert.equal(
        await store.reclaim({ ...key, node: "node-d", now, leaseUntil: now + MIN }),
        false,
        "attempt 1 is gone",
      );
      assert.equal(
        await store.update({ ...key, attempt: 2, node: row?.node ?? "" }, { status: "ok", finishedAt: now }),
        true,
      );
    }));

  it("reclaim() accepts error and timeout rows, never running, ok or missing ones", () =>
    withStore(async (store) => {
      await store.claim([request("e", T0), request("t", T0), request("r", T0), request("o", T0)]);
      await store.update({ job: "e", slot: T0, attempt: 1, node: "node-a" }, { status: "error", finishedAt: T0 });
      await store.update({ job: "t", slot: T0, attempt: 1, node: "node-a" }, { status: "timeout", finishedAt: T0 });
      await store.update({ job: "o", slot: T0, attempt: 1, node: "node-a" }, { status: "ok", finishedAt: T0 });
      const again = (job: string): Promise<boolean> =>
        store.reclaim({ job, slot: T0, attempt: 1, node: "n", now: T0, leaseUntil: T0 + MIN });
      assert.deepEqual([await again("e"), await again("t"), await again("r"), await again("o"), await again("zz")], [
        true,
        true,
        false,
        false,
        false,
      ]);
    }));

  it("a reclaimed run blocks overlapping claims of its job", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { leaseUntil: T0 + MIN })]);
      await store.reap(T0 + 2 * MIN);
      await store.reclaim({
        job: "a",
        slot: T0,
        attempt: 1,
        node: "node-b",
        now: T0 + 2 * MIN,
        leaseUntil: T0 + 12 * MIN,
      });
      const next = await store.claim([request("a", T0 + 3 * MIN, { batch: "t9", now: T0 + 3 * MIN })]);
      assert.deepEqual(outcomes(next), ["skipped"]);
    }));

  it("reclaim() with overlap skip refuses while another run of the job is live, in the same statement", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { leaseUntil: T0 + MIN })]);
      await store.reap(T0 + 2 * MIN);
      await store.claim([request("a", T0 + 2 * MIN, { batch: "t2", now: T0 + 2 * MIN, leaseUntil: T0 + 5 * MIN })]);
      await store.claim([request("b", T0 + 2 * MIN, { batch: "t2", now: T0 + 2 * MIN, leaseUntil: T0 + 5 * MIN })]);
      const key = { job: "a", slot: T0, attempt: 1 };
      const now = T0 + 3 * MIN;
      assert.equal(await store.reclaim({ ...key, node: "node-b", now, leaseUntil: now + MIN, overlap: "skip" }), false);
      assert.equal((await store.getRun("a", T0))?.status, "abandoned", "a refused reclaim changes nothing");
      // Another job's live run never blocks; a lease that has ended no longer blocks.
      assert.equal(
        await store.reclaim({
          ...key,
          node: "node-b",
          now: T0 + 5 * MIN + 1,
          leaseUntil: T0 + 6 * MIN,
          overlap: "skip",
        }),
        true,
      );
      assert.equal((await store.getRun("a", T0))?.attempt, 2);
      await rejectsWith(
        store.reclaim({ ...key, node: "n", now, leaseUntil: now, overlap: "never" as "skip" }),
        "invalid-spec",
        /"never"/,
      );
    }));

  it("reclaim() with overlap allow (the default) re-runs beside a live run", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { leaseUntil: T0 + MIN })]);
      await store.reap(T0 + 2 * MIN);
      await store.claim([request("a", T0 + 2 * MIN, { batch: "t2", now: T0 + 2 * MIN, leaseUntil: T0 + 5 * MIN })]);
      const now = T0 + 3 * MIN;
      assert.equal(
        await store.reclaim({
          job: "a",
          slot: T0,
          attempt: 1,
          node: "node-b",
          now,
          leaseUntil: now + MIN,
          overlap: "allow",
        }),
        true,
      );
      await store.update({ job: "a", slot: T0, attempt: 2, node: "node-b" }, {
        status: "error",
        finishedAt: now,
        leaseUntil: null,
      });
      assert.equal(
        await store.reclaim({ job: "a", slot: T0, attempt: 2, node: "node-c", now, leaseUntil: now + MIN }),
        true,
      );
    }));

  it("runs() pages newest first with limit and before", () =>
    withStore(async (store) => {
      const slots = Array.from({ length: 60 }, (_, i) => T0 + i * MIN);
      await store.claim(slots.map((slot) => request("a", slot, { status: "missed", batch: "t" })));
      await store.claim([request("b", T0, { batch: "t" })]);
      const page1 = await store.runs("a");
      assert.equal(page1.length, 50, "default limit is 50");
      assert.equal(page1[0]?.slot, T0 + 59 * MIN);
      assert.ok(page1.every((r, i) => i === 0 || (page1[i - 1]?.slot ?? 0) > r.slot));
      const page2 = await store.runs("a", { limit: 50, before: page1[49]?.slot ?? 0 });
      assert.deepEqual(page2.map((r) => r.slot), slots.slice(0, 10).reverse());
      assert.deepEqual((await store.runs("a", { limit: 2, before: T0 + 5 * MIN })).map((r) => r.slot), [
        T0 + 4 * MIN,
        T0 + 3 * MIN,
      ]);
      assert.equal((await store.runs("a", { limit: 1000 })).length, 60);
      // Past the largest page: refused, naming it (it was cut to 1000 without a word).
      await rejectsWith(
        store.runs("a", { limit: 1001 }),
        "invalid-spec",
        /runs\.limit: expected a whole number from 1 to 1000, got "1001"/,
      );
      assert.deepEqual(await store.runs("none"), []);
      await rejectsWith(store.runs("a", { limit: 0 }), "invalid-spec", /limit/);
      await rejectsWith(store.runs("a", { limit: 2.5 }), "invalid-spec", /limit/);
    }));

  it("lastOutcomes() gives the newest finished row per job", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { status: "missed" }), request("a", T0 + MIN), request("c", T0)]);
      await store.update({ job: "c", slot: T0, attempt: 1, node: "node-a" }, { status: "ok", finishedAt: T0 + 1 });
      const last = await store.lastOutcomes(["a", "b", "c"]);
      assert.deepEqual(Object.keys(last).sort(), ["a", "c"]);
      assert.deepEqual([last.a?.slot, last.a?.status], [T0, "missed"]);
      assert.deepEqual([last.c?.slot, last.c?.status], [T0, "ok"]);
    }));

  it("counts() counts rows by status, zero-filled", () =>
    withStore(async (store) => {
      await store.claim([
        request("a", T0, { status: "missed", batch: "t" }),
        request("a", T0 + MIN, { status: "missed", batch: "t" }),
        request("a", T0 + 2 * MIN, { batch: "t" }),
      ]);
      await store.claim([request("a", T0 + 3 * MIN, { batch: "u", now: T0 + 3 * MIN })]);
      const zero = ZERO_COUNTS;
      assert.deepEqual(await store.counts(["a", "b"]), {
        a: { ...zero, missed: 2, running: 1, skipped: 1 },
        b: zero,
      });
    }));

  it("setPaused() persists, and creates the job state when missing", () =>
    withStore(async (store) => {
      await store.snapshot(["a"], T0);
      await store.setPaused("a", true, T0 + MIN);
      await store.setPaused("b", true, T0 + 2 * MIN);
      const snap = await store.snapshot(["a", "b"], T0 + 3 * MIN);
      assert.deepEqual(snap.jobs.a, {
        name: "a",
        firstSeen: T0,
        paused: true,
        pause: { note: null, at: T0 + MIN, by: "api" },
      });
      assert.deepEqual(snap.jobs.b, {
        name: "b",
        firstSeen: T0 + 2 * MIN,
        paused: true,
        pause: { note: null, at: T0 + 2 * MIN, by: "api" },
      });
      await store.setPaused("a", false, T0 + 4 * MIN);
      assert.equal((await store.snapshot(["a"], T0 + 5 * MIN)).jobs.a?.paused, false);
      await rejectsWith(store.setPaused("a", "yes" as unknown as boolean, T0), "invalid-spec", /paused/);
    }));

  it("putDef() versions definitions and refuses a stale ifVersion with conflict", () =>
    withStore(async (store) => {
      const spec = { schedule: "*/5 * * * *", target: { url: "https://example.com/hook" }, nested: [1, { x: null }] };
      const v1 = await store.putDef("hook", spec, T0, { ifVersion: 0 });
      assert.deepEqual(v1, { name: "hook", spec, version: 1, updatedAt: T0 });
      await rejectsWith(store.putDef("hook", spec, T0, { ifVersion: 0 }), "conflict", /"hook".*version 1/);
      const v2 = await store.putDef("hook", { ...spec, schedule: "@hourly" }, T0 + MIN, { ifVersion: 1 });
      assert.equal(v2.version, 2);
      await rejectsWith(store.putDef("hook", spec, T0, { ifVersion: 1 }), "conflict");
      const v3 = await store.putDef("hook", spec, T0 + 2 * MIN);
      assert.equal(v3.version, 3);
      await store.putDef("another", {}, T0);
      assert.deepEqual((await store.listDefs()).map((d) => [d.name, d.version]), [["another", 1], ["hook", 3]]);
      assert.deepEqual(await store.getDef("hook"), { name: "hook", spec, version: 3, updatedAt: T0 + 2 * MIN });
      assert.equal(await store.getDef("missing"), undefined);
      await rejectsWith(store.putDef("x", [] as unknown as Record<string, unknown>, T0), "invalid-spec");
      await rejectsWith(store.putDef("x", {}, T0, { ifVersion: -1 }), "invalid-spec", /ifVersion/);
    }));

  it("definitions returned are copies, not live state", () =>
    withStore(async (store) => {
      const spec = { schedule: "@daily" };
      const def = await store.putDef("hook", spec, T0);
      (def.spec as Record<string, unknown>).schedule = "changed";
      spec.schedule = "changed too";
      assert.deepEqual((await store.getDef("hook"))?.spec, { schedule: "@daily" });
    }));

  it("putDef() keeps a spec of nearly 60 000 bytes of JSON whatever its characters, and reads it back", () =>
    withStore(async (store) => {
      // Deno KV kept the JSON as a string: one character past U+00FF made it two bytes a
      // character, and a 33 000-byte spec was refused as a value too large.
      const spec = { description: "x".repeat(59_000), note: "—" };
      assert.ok(new TextEncoder().encode(JSON.stringify(spec)).length > 59_000);
      assert.equal((await store.putDef("wide", spec, T0)).version, 1);
      assert.deepEqual((await store.getDef("wide"))?.spec, spec);
    }));

  it("putDef() keeps a NUL or a lone surrogate in a spec's strings and keys, and reads them back unchanged", () =>
    withStore(async (store) => {
      // JSON keeps them as escapes ("\u0000"). Postgres refused them (its spec was jsonb),
      // naming "putDef.spec" and not the field; the other stores kept them.
      const spec = { payload: { note: "a\u0000b", ["k\u0000"]: ["\ud800", "x\udc00"] }, raw: "\\u0000" };
      assert.equal((await store.putDef("nul", spec, T0)).version, 1);
      assert.deepEqual((await store.getDef("nul"))?.spec, spec);
      assert.deepEqual((await store.listDefs()).map((d) => d.spec), [spec]);
      assert.deepEqual((await store.snapshot([], T0)).defs.map((d) => d.spec), [spec]);
      assert.deepEqual((await store.read(["nul"])).defs.map((d) => d.spec), [spec]);
    }));

  it("deleteDef() removes a definition and says whether there was one", () =>
    withStore(async (store) => {
      await store.putDef("hook", { a: 1 }, T0);
      assert.equal(await store.deleteDef("hook"), true);
      assert.equal(await store.deleteDef("hook"), false);
      assert.deepEqual(await store.listDefs(), []);
      assert.equal(
        (await store.putDef("hook", { a: 1 }, T0, { ifVersion: 0 })).version,
        2,
        "a re-created definition continues above the deleted version",
      );
    }));

  it("pruneRows() keeps a job's newest finished rows, its open rows and its watermark row; other jobs untouched", () =>
    withStore(async (store) => {
      // A buffered (backfill) slot older than every other row: open, so never pruned.
      await store.enqueue([{ job: "a", slot: T0 - 30 * MIN, kind: "backfill", node: "n", now: T0, rerun: false }]);
      const slots = [0, 1, 2, 3, 4, 5].map((i) => T0 + i * MIN);
      await store.claim(slots.map((slot) => request("a", slot, { status: "missed", batch: "t" })));
      await store.claim([request("a", T0 + 10 * MIN, { kind: "manual", batch: "t", overlap: "allow" })]);
      // Two manual rows newer than the watermark (T0 + 5 min), which is beyond the newest two.
      await store.claim(
        [T0 + 11 * MIN, T0 + 12 * MIN].map((slot) =>
          request("a", slot, { kind: "manual", status: "missed", batch: "m" })
        ),
      );
      await store.claim([request("b", T0, { status: "missed", batch: "t" })]);
      assert.equal(await store.pruneRows("a", 2), 5);
      assert.deepEqual((await store.runs("a")).map((r) => (r.slot - T0) / MIN), [12, 11, 10, 5, -30]);
      assert.equal(
        (await store.snapshot(["a"], T0 + 20 * MIN)).watermarks["a"],
        T0 + 5 * MIN,
        "the watermark row stays",
      );
      assert.deepEqual((await store.runs("b")).map((r) => r.slot), [T0]);
      assert.equal(await store.pruneRows("a", 2), 0);
      assert.equal(await store.pruneRows("none", 1), 0);
      await rejectsWith(store.pruneRows("a", 0), "invalid-spec", /keep/);
    }));

  it("prune() deletes old finished rows, keeps running and recent ones", () =>
    withStore(async (store) => {
      await store.claim([
        request("a", T0, { status: "missed", batch: "t" }),
        request("a", T0 + MIN, { batch: "t", overlap: "allow" }),
        request("a", T0 + 2 * MIN, { status: "missed", batch: "t" }),
        request("b", T0, { status: "missed", batch: "t" }),
        request("b", T0 + 5 * MIN, { status: "missed", batch: "t" }),
      ]);
      assert.equal(await store.prune(T0 + 5 * MIN), 3);
      assert.deepEqual((await store.runs("a")).map((r) => r.slot), [T0 + MIN]);
      assert.deepEqual((await store.runs("b")).map((r) => r.slot), [T0 + 5 * MIN]);
      assert.equal(await store.prune(T0 + 5 * MIN), 0);
    }));

  it("prune() moves the watermark back to the newest remaining scheduled row", () =>
    withStore(async (store) => {
      await store.claim([
        request("a", T0, { status: "missed", batch: "t" }),
        request("a", T0 + MIN, { status: "missed", batch: "t" }),
        request("b", T0, { status: "missed", batch: "t" }),
      ]);
      await store.prune(T0 + 1);
      assert.deepEqual((await store.snapshot(["a", "b"], T0 + 2 * MIN)).watermarks, { a: T0 + MIN });
      await store.prune(T0 + 2 * MIN);
      assert.deepEqual((await store.snapshot(["a", "b"], T0 + 3 * MIN)).watermarks, {});
    }));

  it("bad arguments are refused with a SchedulerError naming the field", () =>
    withStore(async (store) => {
      await rejectsWith(store.snapshot(["a"], Number.NaN), "invalid-instant", /snapshot\.now/);
      await rejectsWith(store.snapshot([""], T0), "invalid-spec", /snapshot\.names\[0\]/);
      await rejectsWith(store.reap("soon" as unknown as number), "invalid-instant", /"soon"/);
      await rejectsWith(store.prune(Infinity), "invalid-instant", /prune\.before/);
      await rejectsWith(
        store.update({ job: "a", slot: T0, attempt: 1, node: "n" }, { status: "done" as "ok" }),
        "invalid-spec",
        /"done"/,
      );
      await rejectsWith(store.getRun("a", -0.5), "invalid-instant");
    }));
}
