// The one contract suite every `Store` implementation passes (memory, libSQL).
// `make()` returns a fresh, empty, not yet initialised store for each test.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import type { ClaimRequest, RunRecord, Store } from "../../src/store/types.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MIN = 60_000;

/** A claim request for `job` at `slot`, overridable field by field. */
export function request(job: string, slot: number, overrides: Partial<ClaimRequest> = {}): ClaimRequest {
  return {
    job,
    slot,
    kind: "scheduled",
    status: "running",
    overlap: "skip",
    node: "node-a",
    batch: `batch-${job}-${slot}`,
    now: slot,
    leaseUntil: slot + 10 * MIN,
    ...overrides,
  };
}

const outcomes = (results: { outcome: string }[]): string[] => results.map((r) => r.outcome);

async function rejectsWith(promise: Promise<unknown>, code: string, text?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof SchedulerError, `expected a SchedulerError, got ${String(error)}`);
    assert.equal(error.code, code);
    if (text) assert.match(error.message, text);
    return true;
  });
}

/** Registers the shared contract tests for one implementation. */
export function storeContract(name: string, make: () => Promise<Store>): void {
  const withStore = async (fn: (store: Store) => Promise<void>): Promise<void> => {
    const store = await make();
    await store.init();
    try {
      await fn(store);
    } finally {
      await store.close();
    }
  };

  describe(`Store contract: ${name}`, () => {
    it("init() is idempotent", () =>
      withStore(async (store) => {
        await store.init();
        await store.init();
        assert.deepEqual(outcomes(await store.claim([request("a", T0)])), ["won"]);
      }));

    it("claim() wins a free slot once; a second claim on it is lost, from any node", () =>
      withStore(async (store) => {
        assert.deepEqual(await store.claim([request("a", T0)]), [{ job: "a", slot: T0, outcome: "won" }]);
        const again = await store.claim([request("a", T0, { node: "node-b", batch: "other", overlap: "allow" })]);
        assert.deepEqual(outcomes(again), ["lost"]);
        const row = await store.getRun("a", T0);
        assert.deepEqual(row, {
          job: "a", slot: T0, kind: "scheduled", status: "running", attempt: 1, node: "node-a",
          claimedAt: T0, startedAt: T0, finishedAt: null, leaseUntil: T0 + 10 * MIN, error: null,
        } satisfies RunRecord);
      }));

    it("claim() answers in request order and records missed slots as final rows", () =>
      withStore(async (store) => {
        const now = T0 + 3 * MIN;
        const batch = [
          request("a", T0, { status: "missed", now, batch: "t" }),
          request("a", T0 + MIN, { status: "missed", now, batch: "t" }),
          request("a", T0 + 2 * MIN, { now, batch: "t" }),
          request("b", T0 + 2 * MIN, { now, batch: "t" }),
        ];
        assert.deepEqual(outcomes(await store.claim(batch)), ["missed", "missed", "won", "won"]);
        const missed = await store.getRun("a", T0);
        assert.equal(missed?.status, "missed");
        assert.equal(missed?.finishedAt, now);
        assert.equal(missed?.leaseUntil, null);
        assert.deepEqual(await store.claim([]), []);
      }));

    it("claim() with overlap skip records skipped while another batch holds a live lease", () =>
      withStore(async (store) => {
        await store.claim([request("a", T0, { batch: "t1" })]);
        const next = await store.claim([request("a", T0 + MIN, { batch: "t2", node: "node-b", now: T0 + MIN })]);
        assert.deepEqual(outcomes(next), ["skipped"]);
        const row = await store.getRun("a", T0 + MIN);
        assert.equal(row?.status, "skipped");
        assert.equal(row?.finishedAt, T0 + MIN);
        assert.equal(row?.leaseUntil, null);
        // Another job is never blocked.
        assert.deepEqual(outcomes(await store.claim([request("b", T0 + MIN, { batch: "t2" })])), ["won"]);
      }));

    it("claim() with overlap allow runs concurrently", () =>
      withStore(async (store) => {
        await store.claim([request("a", T0, { batch: "t1" })]);
        const next = await store.claim([request("a", T0 + MIN, { batch: "t2", overlap: "allow", now: T0 + MIN })]);
        assert.deepEqual(outcomes(next), ["won"]);
      }));

    it("claim() is not blocked by a running row whose lease has ended", () =>
      withStore(async (store) => {
        await store.claim([request("a", T0, { batch: "t1", leaseUntil: T0 + MIN })]);
        const atEnd = await store.claim([request("a", T0 + MIN, { batch: "t2", now: T0 + MIN })]);
        assert.deepEqual(outcomes(atEnd), ["won"]);
      }));

    it("claims sharing a batch id never block one another", () =>
      withStore(async (store) => {
        const now = T0 + 2 * MIN;
        const batch = [0, 1, 2].map((i) => request("a", T0 + i * MIN, { batch: "tick-1", now }));
        assert.deepEqual(outcomes(await store.claim(batch)), ["won", "won", "won"]);
        const later = await store.claim([request("a", T0 + 3 * MIN, { batch: "tick-2", now: T0 + 3 * MIN })]);
        assert.deepEqual(outcomes(later), ["skipped"]);
      }));

    it("claim() applies requests in order: a repeated slot is lost, and an earlier batch blocks a later one", () =>
      withStore(async (store) => {
        const dup = await store.claim([request("a", T0, { batch: "t" }), request("a", T0, { batch: "t", node: "node-b" })]);
        assert.deepEqual(outcomes(dup), ["won", "lost"]);
        assert.equal((await store.getRun("a", T0))?.node, "node-a");
        const mixed = await store.claim([
          request("b", T0, { batch: "x" }),
          request("b", T0 + MIN, { batch: "y", now: T0 }),
          request("b", T0 + 2 * MIN, { batch: "x", now: T0 }),
          request("b", T0 + 2 * MIN, { batch: "z", now: T0 }),
        ]);
        assert.deepEqual(outcomes(mixed), ["won", "skipped", "won", "lost"]);
      }));

    it("claim() refuses a malformed batch before writing any of it", () =>
      withStore(async (store) => {
        await rejectsWith(store.claim([request("a", T0), request("a", T0 + 0.5)]), "invalid-instant", /claim\[1\]\.slot/);
        await rejectsWith(store.claim([request("a", T0, { overlap: "maybe" as "skip" })]), "invalid-spec", /"maybe"/);
        assert.equal(await store.getRun("a", T0), undefined);
      }));

    it("snapshot() inserts firstSeen once and keeps it", () =>
      withStore(async (store) => {
        const first = await store.snapshot(["a", "b"], T0);
        assert.deepEqual(first.jobs, {
          a: { name: "a", firstSeen: T0, paused: false },
          b: { name: "b", firstSeen: T0, paused: false },
        });
        const second = await store.snapshot(["a", "c"], T0 + MIN);
        assert.deepEqual(second.jobs, {
          a: { name: "a", firstSeen: T0, paused: false },
          c: { name: "c", firstSeen: T0 + MIN, paused: false },
        });
        assert.deepEqual(second.watermarks, {});
        assert.deepEqual(second.running, []);
        assert.deepEqual(second.defs, []);
      }));

    it("snapshot() watermark is the newest scheduled slot of any status and ignores manual rows", () =>
      withStore(async (store) => {
        await store.claim([
          request("a", T0, { status: "missed", batch: "t" }),
          request("a", T0 + MIN, { batch: "t" }),
          request("a", T0 + 5 * MIN, { kind: "manual", batch: "m" }),
          request("b", T0 + 9 * MIN, { kind: "manual", batch: "m" }),
        ]);
        const snap = await store.snapshot(["a", "b"], T0 + 10 * MIN);
        assert.deepEqual(snap.watermarks, { a: T0 + MIN });
      }));

    it("snapshot() lists every running row, expired leases included, and every definition", () =>
      withStore(async (store) => {
        await store.claim([request("a", T0, { leaseUntil: T0 + MIN }), request("x", T0), request("y", T0, { status: "missed" })]);
        await store.putDef("hook", { schedule: "* * * * *" }, T0);
        const snap = await store.snapshot(["a"], T0 + 5 * MIN);
        assert.deepEqual(snap.running.map((r) => r.job).sort(), ["a", "x"]);
        assert.deepEqual(snap.defs.map((d) => [d.name, d.version, d.spec]), [["hook", 1, { schedule: "* * * * *" }]]);
        assert.deepEqual(Object.keys(snap.jobs).sort(), ["a", "hook"]);
      }));

    it("a definition's state starts at define time and comes with every snapshot, asked for or not", () =>
      withStore(async (store) => {
        await store.putDef("hook", { schedule: "* * * * *" }, T0);
        await store.claim([request("hook", T0 + MIN, { batch: "t" })]);
        const snap = await store.snapshot([], T0 + 5 * MIN);
        assert.deepEqual(snap.jobs, { hook: { name: "hook", firstSeen: T0, paused: false } });
        assert.deepEqual(snap.watermarks, { hook: T0 + MIN });
        // A refused put (stale version) is no definition: it starts no state.
        await rejectsWith(store.putDef("other", {}, T0 + MIN, { ifVersion: 3 }), "conflict");
        assert.deepEqual(Object.keys((await store.snapshot([], T0 + 6 * MIN)).jobs), ["hook"]);
        // Re-putting keeps the original start.
        await store.putDef("hook", { schedule: "*/5 * * * *" }, T0 + 7 * MIN);
        assert.equal((await store.snapshot([], T0 + 8 * MIN)).jobs["hook"]?.firstSeen, T0);
      }));

    it("update() is a compare-and-set on the running attempt", () =>
      withStore(async (store) => {
        await store.claim([request("a", T0)]);
        const key = { job: "a", slot: T0, attempt: 1, node: "node-a" };
        assert.equal(await store.update({ ...key, node: "node-b" }, { status: "ok" }), false);
        assert.equal(await store.update({ ...key, attempt: 2 }, { status: "ok" }), false);
        assert.equal(await store.update(key, { leaseUntil: T0 + 20 * MIN }), true);
        assert.equal((await store.getRun("a", T0))?.leaseUntil, T0 + 20 * MIN);
        assert.equal(await store.update(key, { status: "error", finishedAt: T0 + 1000, error: "boom", leaseUntil: null }), true);
        const row = await store.getRun("a", T0);
        assert.deepEqual([row?.status, row?.finishedAt, row?.error, row?.leaseUntil, row?.attempt], ["error", T0 + 1000, "boom", null, 1]);
        // Finished: no longer a running attempt.
        assert.equal(await store.update(key, { status: "ok" }), false);
        assert.equal(await store.update({ ...key, job: "nope" }, { status: "ok" }), false);
      }));

    it("update() can move a running row to its next attempt (retry in place)", () =>
      withStore(async (store) => {
        await store.claim([request("a", T0)]);
        const key = { job: "a", slot: T0, attempt: 1, node: "node-a" };
        assert.equal(await store.update(key, { attempt: 2, startedAt: T0 + 5000, leaseUntil: T0 + 11 * MIN }), true);
        assert.equal(await store.update(key, { status: "ok" }), false);
        assert.equal(await store.update({ ...key, attempt: 2 }, { status: "ok", finishedAt: T0 + 6000 }), true);
        const row = await store.getRun("a", T0);
        assert.deepEqual([row?.status, row?.attempt, row?.startedAt], ["ok", 2, T0 + 5000]);
      }));

    it("reap() records an ended lease abandoned exactly once, and update() refuses afterwards", () =>
      withStore(async (store) => {
        await store.claim([request("a", T0, { leaseUntil: T0 + MIN }), request("b", T0, { leaseUntil: T0 + 2 * MIN })]);
        assert.deepEqual(await store.reap(T0 + MIN), [], "a lease ending exactly now is still live");
        const reaped = await store.reap(T0 + MIN + 1);
        assert.equal(reaped.length, 1);
        assert.deepEqual([reaped[0]?.job, reaped[0]?.status, reaped[0]?.finishedAt], ["a", "abandoned", T0 + MIN + 1]);
        assert.match(reaped[0]?.error ?? "", /lease/);
        assert.deepEqual(await store.reap(T0 + MIN + 2), []);
        assert.equal(await store.update({ job: "a", slot: T0, attempt: 1, node: "node-a" }, { status: "ok" }), false);
        assert.equal((await store.getRun("a", T0))?.status, "abandoned");
        assert.equal((await store.getRun("b", T0))?.status, "running");
      }));

    it("two concurrent reap() calls return each expired row in only one result", () =>
      withStore(async (store) => {
        const slots = Array.from({ length: 20 }, (_, i) => T0 + i * MIN);
        await store.claim(slots.map((slot) => request("a", slot, { batch: "t", overlap: "allow", leaseUntil: slot + 1 })));
        const [x, y] = await Promise.all([store.reap(T0 + 30 * MIN), store.reap(T0 + 30 * MIN)]);
        const all = [...(x ?? []), ...(y ?? [])].map((r) => r.slot).sort((p, q) => p - q);
        assert.deepEqual(all, slots);
      }));

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
        assert.equal(await store.reclaim({ ...key, node: "node-d", now, leaseUntil: now + MIN }), false, "attempt 1 is gone");
        assert.equal(await store.update({ ...key, attempt: 2, node: row?.node ?? "" }, { status: "ok", finishedAt: now }), true);
      }));

    it("reclaim() accepts error and timeout rows, never running, ok or missing ones", () =>
      withStore(async (store) => {
        await store.claim([request("e", T0), request("t", T0), request("r", T0), request("o", T0)]);
        await store.update({ job: "e", slot: T0, attempt: 1, node: "node-a" }, { status: "error", finishedAt: T0 });
        await store.update({ job: "t", slot: T0, attempt: 1, node: "node-a" }, { status: "timeout", finishedAt: T0 });
        await store.update({ job: "o", slot: T0, attempt: 1, node: "node-a" }, { status: "ok", finishedAt: T0 });
        const again = (job: string): Promise<boolean> => store.reclaim({ job, slot: T0, attempt: 1, node: "n", now: T0, leaseUntil: T0 + MIN });
        assert.deepEqual([await again("e"), await again("t"), await again("r"), await again("o"), await again("zz")], [
          true, true, false, false, false,
        ]);
      }));

    it("a reclaimed run blocks overlapping claims of its job", () =>
      withStore(async (store) => {
        await store.claim([request("a", T0, { leaseUntil: T0 + MIN })]);
        await store.reap(T0 + 2 * MIN);
        await store.reclaim({ job: "a", slot: T0, attempt: 1, node: "node-b", now: T0 + 2 * MIN, leaseUntil: T0 + 12 * MIN });
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
        assert.equal(await store.reclaim({ ...key, node: "node-b", now: T0 + 5 * MIN, leaseUntil: T0 + 6 * MIN, overlap: "skip" }), true);
        assert.equal((await store.getRun("a", T0))?.attempt, 2);
        await rejectsWith(store.reclaim({ ...key, node: "n", now, leaseUntil: now, overlap: "never" as "skip" }), "invalid-spec", /"never"/);
      }));

    it("reclaim() with overlap allow (the default) re-runs beside a live run", () =>
      withStore(async (store) => {
        await store.claim([request("a", T0, { leaseUntil: T0 + MIN })]);
        await store.reap(T0 + 2 * MIN);
        await store.claim([request("a", T0 + 2 * MIN, { batch: "t2", now: T0 + 2 * MIN, leaseUntil: T0 + 5 * MIN })]);
        const now = T0 + 3 * MIN;
        assert.equal(await store.reclaim({ job: "a", slot: T0, attempt: 1, node: "node-b", now, leaseUntil: now + MIN, overlap: "allow" }), true);
        await store.update({ job: "a", slot: T0, attempt: 2, node: "node-b" }, { status: "error", finishedAt: now, leaseUntil: null });
        assert.equal(await store.reclaim({ job: "a", slot: T0, attempt: 2, node: "node-c", now, leaseUntil: now + MIN }), true);
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
        assert.deepEqual((await store.runs("a", { limit: 2, before: T0 + 5 * MIN })).map((r) => r.slot), [T0 + 4 * MIN, T0 + 3 * MIN]);
        assert.equal((await store.runs("a", { limit: 5000 })).length, 60);
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
        const zero = { running: 0, ok: 0, error: 0, timeout: 0, skipped: 0, missed: 0, abandoned: 0 };
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
        assert.deepEqual(snap.jobs.a, { name: "a", firstSeen: T0, paused: true });
        assert.deepEqual(snap.jobs.b, { name: "b", firstSeen: T0 + 2 * MIN, paused: true });
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

    it("deleteDef() removes a definition and says whether there was one", () =>
      withStore(async (store) => {
        await store.putDef("hook", { a: 1 }, T0);
        assert.equal(await store.deleteDef("hook"), true);
        assert.equal(await store.deleteDef("hook"), false);
        assert.deepEqual(await store.listDefs(), []);
        assert.equal((await store.putDef("hook", { a: 1 }, T0, { ifVersion: 0 })).version, 1);
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
        await rejectsWith(store.update({ job: "a", slot: T0, attempt: 1, node: "n" }, { status: "done" as "ok" }), "invalid-spec", /"done"/);
        await rejectsWith(store.getRun("a", -0.5), "invalid-instant");
      }));

    // Cases a store with optimistic commits (Deno KV) revealed: concurrent callers, and
    // claim calls larger than one atomic commit.
    it("concurrent claims of one job from different batches: with overlap skip only one runs", () =>
      withStore(async (store) => {
        const now = T0 + 5 * MIN;
        const calls = [0, 1, 2, 3].map((i) =>
          store.claim([request("a", T0 + i * MIN, { batch: `tick-${i}`, node: `node-${i}`, now })])
        );
        const results = (await Promise.all(calls)).flat();
        assert.deepEqual(outcomes(results).sort(), ["skipped", "skipped", "skipped", "won"]);
        const running = (await store.snapshot(["a"], now)).running;
        assert.equal(running.length, 1, "exactly one live run of the job");
      }));

    it("update() racing reap(): exactly one of them changes the row", () =>
      withStore(async (store) => {
        await store.claim([request("a", T0, { leaseUntil: T0 + MIN })]);
        const [updated, reaped] = await Promise.all([
          store.update({ job: "a", slot: T0, attempt: 1, node: "node-a" }, { status: "ok", finishedAt: T0 + 2 * MIN, leaseUntil: null }),
          store.reap(T0 + 2 * MIN),
        ]);
        assert.equal(updated, reaped.length === 0);
        assert.equal((await store.getRun("a", T0))?.status, updated ? "ok" : "abandoned");
      }));

    it("a claim call larger than one atomic commit answers as one-by-one application would", () =>
      withStore(async (store) => {
        const now = T0 + 10 * MIN;
        const batch: ClaimRequest[] = [];
        const expected: string[] = [];
        for (let j = 0; j < 300; j++) {
          const job = `job-${j}`;
          batch.push(request(job, T0, { batch: "big", now }), request(job, T0, { batch: "big", now, node: "node-b" }));
          batch.push(request(job, T0 + MIN, { batch: "big", now }), request(job, T0 + 2 * MIN, { batch: "other", now }));
          expected.push("won", "lost", "won", "skipped");
        }
        // One job with more requests than a Deno KV commit holds (100 checks).
        for (let i = 0; i < 250; i++) {
          batch.push(request("wide", T0 - i * MIN, { batch: "big", now, status: i % 2 === 0 ? "running" : "missed" }));
          expected.push(i % 2 === 0 ? "won" : "missed");
        }
        batch.push(request("wide", T0 - 7 * MIN, { batch: "big", now }));
        expected.push("lost");
        const results = await store.claim(batch);
        assert.deepEqual(results.map((r) => [r.job, r.slot]), batch.map((r) => [r.job, r.slot]));
        assert.deepEqual(outcomes(results), expected);
        const zero = { running: 0, ok: 0, error: 0, timeout: 0, skipped: 0, missed: 0, abandoned: 0 };
        assert.deepEqual((await store.counts(["job-299", "wide"])), {
          "job-299": { ...zero, running: 2, skipped: 1 },
          wide: { ...zero, running: 125, missed: 125 },
        });
        assert.deepEqual((await store.snapshot(["wide"], now)).watermarks, { wide: T0 });
      }));
  });

  describe(`Store contract (lease renewal, group commit, read-only reads): ${name}`, () => {
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
        await store.update({ job: "b", slot: T0, attempt: 1, node: "node-a" }, { status: "ok", finishedAt: T0, leaseUntil: null });
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
        assert.deepEqual(await store.renew([{ job: "c", slot: T0, attempt: 1, node: "node-a", leaseUntil: T0 + 2 * MIN }], T0 + MIN), [true]);
        const reaped = await store.reap(T0 + 3 * MIN);
        assert.deepEqual(reaped.map((r) => r.job).sort(), ["a", "c"]);
        assert.deepEqual(await store.renew([{ job: "c", slot: T0, attempt: 1, node: "node-a", leaseUntil: T0 + 9 * MIN }], T0), [false]);
      }));

    it("updateMany() applies each compare-and-set as update() would, in one call", () =>
      withStore(async (store) => {
        if (lacks(store, "updateMany")) return;
        await store.claim([request("a", T0), request("b", T0), request("c", T0)]);
        const done = { status: "ok", finishedAt: T0 + 1, leaseUntil: null } as const;
        const results = await store.updateMany([
          { key: { job: "a", slot: T0, attempt: 1, node: "node-a" }, patch: done },
          { key: { job: "b", slot: T0, attempt: 2, node: "node-a" }, patch: done },
          { key: { job: "c", slot: T0, attempt: 1, node: "node-a" }, patch: { status: "error", finishedAt: T0 + 2, leaseUntil: null, error: "boom" } },
          { key: { job: "a", slot: T0, attempt: 1, node: "node-a" }, patch: { status: "error", finishedAt: T0 + 3, leaseUntil: null } },
          { key: { job: "zz", slot: T0, attempt: 1, node: "node-a" }, patch: done },
        ]);
        assert.deepEqual(results, [true, false, true, false, false]);
        const [a, b, c] = await Promise.all(["a", "b", "c"].map((job) => store.getRun(job, T0)));
        assert.deepEqual([a?.status, a?.finishedAt, a?.leaseUntil], ["ok", T0 + 1, null]);
        assert.equal(b?.status, "running");
        assert.deepEqual([c?.status, c?.error], ["error", "boom"]);
        assert.deepEqual(await store.updateMany([]), []);
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
        const before = await store.read(["a", "never-seen", "__proto__"]);
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
        assert.deepEqual(view["none"], { last: undefined, counts: { running: 0, ok: 0, error: 0, timeout: 0, skipped: 0, missed: 0, abandoned: 0 }, recent: [] });
        const all = await store.overview(["a"], { since: T0 });
        assert.equal(all["a"]!.recent.length, 5, "perJob defaults to 50");
      }));

    it("overview() never writes: a name it is asked about stays unknown to read()", () =>
      withStore(async (store) => {
        if (lacks(store, "overview") || lacks(store, "read")) return;
        await store.overview(["ghost"], { since: T0 });
        assert.equal(Object.hasOwn((await store.read(["ghost"])).jobs, "ghost"), false);
      }));
  });
}
