/**
 * Store contract cases: `maxRuns` decided by the claim (outcome `limit`), by `promote()`,
 * kept across pruning (`JobState.prunedRuns`), and `overview().bufferFull`.
 */
import { assert } from "./assert.ts";
import { type ContractContext, MIN, outcomes, rejectsWith, request, T0 } from "./_shared.ts";
import type { Store } from "../types.ts";

/** Finishes the running attempt 1 of `job` at `slot` with `status`. */
async function finish(store: Store, job: string, slot: number, status: "ok" | "error", node = "node-a"): Promise<void> {
  const done = await store.update({ job, slot, attempt: 1, node }, { status, finishedAt: slot + 1, leaseUntil: null });
  assert.equal(done, true, `finishing ${job} at ${slot}`);
}

/** Registers these cases with `it`; each runs on a fresh store from `withStore`. */
export function maxRunsCases({ it, withStore }: ContractContext): void {
  it("claim() with maxRuns refuses (limit, no row) once counted and running rows reach it", () =>
    withStore(async (store) => {
      const limit = { maxRuns: 2 };
      await store.claim([request("a", T0, limit)]);
      await finish(store, "a", T0, "error");
      // One counted (error), one running: the limit of 2 is reached.
      assert.deepEqual(outcomes(await store.claim([request("a", T0 + MIN, limit)])), ["won"]);
      const refused = await store.claim([request("a", T0 + 2 * MIN, { ...limit, overlap: "allow" })]);
      assert.deepEqual(outcomes(refused), ["limit"]);
      assert.equal(await store.getRun("a", T0 + 2 * MIN), undefined, "a refused claim writes no row");
      // A slot already taken still reports lost, not limit; missed is never refused.
      assert.deepEqual(outcomes(await store.claim([request("a", T0 + MIN, limit)])), ["lost"]);
      const missed = await store.claim([request("a", T0 + 3 * MIN, { ...limit, status: "missed" })]);
      assert.deepEqual(outcomes(missed), ["missed"]);
      // Without maxRuns the same job claims as before; another job is not limited.
      assert.deepEqual(outcomes(await store.claim([request("a", T0 + 4 * MIN, { overlap: "allow" })])), ["won"]);
      assert.deepEqual(outcomes(await store.claim([request("b", T0 + 2 * MIN, limit)])), ["won"]);
    }));

  it("a maxRuns that is not a positive integer is refused with invalid-spec, naming the field, before any write", () =>
    withStore(async (store) => {
      for (const bad of [0, -1, 1.5, Number.NaN, "3"]) {
        const r = request("a", T0, { maxRuns: bad as number });
        await rejectsWith(store.claim([request("a", T0 - MIN), r]), "invalid-spec", /claim\[1\]\.maxRuns/);
        await rejectsWith(
          store.promote({ job: "a", node: "n", now: T0, leaseUntil: T0 + MIN, maxRuns: bad as number }),
          "invalid-spec",
          /promote\.maxRuns/,
        );
        await rejectsWith(
          store.reclaim({
            job: "a",
            slot: T0,
            attempt: 1,
            node: "n",
            now: T0,
            leaseUntil: T0 + MIN,
            maxRuns: bad as number,
          }),
          "invalid-spec",
          /reclaim\.maxRuns/,
        );
      }
      assert.equal(await store.getRun("a", T0 - MIN), undefined, "the valid request before it was not written");
    }));

  it("claim() with maxRuns counts the requests of its own batch, and skipped, missed or abandoned rows not at all", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0 - MIN, { status: "missed" })]);
      await store.claim([request("a", T0, { leaseUntil: T0 + 1 })]);
      assert.equal((await store.reap(T0 + 2)).length, 1, "the run is abandoned");
      const batch = [1, 2, 3, 4].map((k) =>
        request("a", T0 + k * MIN, { batch: "t", now: T0 + 4 * MIN, overlap: "allow", maxRuns: 3 })
      );
      // A slot already taken takes nothing from the limit.
      await store.claim([request("a", T0 + 2 * MIN, { batch: "other", overlap: "allow" })]);
      assert.deepEqual(outcomes(await store.claim(batch)), ["won", "lost", "won", "limit"]);
    }));

  it("claim() with maxRuns applies a call that mixes batch ids in order: a later batch sees the earlier insert", () =>
    withStore(async (store) => {
      const opts = { overlap: "allow" as const, maxRuns: 2 };
      const call = [0, 1, 2].map((k) => request("a", T0 + k * MIN, { ...opts, batch: `b${k}` }));
      assert.deepEqual(outcomes(await store.claim(call)), ["won", "won", "limit"]);
      assert.equal(await store.getRun("a", T0 + 2 * MIN), undefined);
    }));

  it("claim() with maxRuns counts buffered rows, and a skipped request is recorded, not refused", () =>
    withStore(async (store) => {
      const opts = { overlap: "bufferOne" as const, maxRuns: 2 };
      await store.claim([request("a", T0, { ...opts, batch: "t1" })]);
      const t2 = await store.claim([request("a", T0 + MIN, { ...opts, batch: "t2", now: T0 + MIN })]);
      assert.deepEqual(outcomes(t2), ["buffered"]);
      // bufferOne with one slot waiting skips; the limit does not turn that into a refusal.
      const t3 = await store.claim([request("a", T0 + 2 * MIN, { ...opts, batch: "t3", now: T0 + 2 * MIN })]);
      assert.deepEqual(outcomes(t3), ["skipped"]);
      await finish(store, "a", T0, "ok");
      // ok + buffered = 2: a new slot of an allow request is refused.
      const t4 = await store.claim([
        request("a", T0 + 3 * MIN, { overlap: "allow", maxRuns: 2, batch: "t4", now: T0 + 3 * MIN }),
      ]);
      assert.deepEqual(outcomes(t4), ["limit"]);
    }));

  it("claim() with maxRuns: two claimers at different instants never exceed the limit together", () =>
    withStore(async (store) => {
      // Node A ticks at T0, node B at T0 + 30 s, each with a batch of its own; maxRuns 3.
      const a = [0, 1].map((k) => request("a", T0 + k * MIN, { batch: "A", now: T0, overlap: "allow", maxRuns: 3 }));
      const b = [1, 2, 3].map((k) =>
        request("a", T0 + k * MIN, { batch: "B", now: T0 + 30_000, overlap: "allow", maxRuns: 3, node: "node-b" })
      );
      const [ra, rb] = await Promise.all([store.claim(a), store.claim(b)]);
      const started = [...outcomes(ra), ...outcomes(rb)].filter((o) => o === "won").length;
      assert.equal(started, 3, `outcomes ${JSON.stringify([outcomes(ra), outcomes(rb)])}`);
    }));

  it("reclaim() with maxRuns refuses an abandoned slot once other slots took the last run; a counted row retries", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { maxRuns: 2 })]);
      await finish(store, "a", T0, "ok");
      await store.claim([request("a", T0 + MIN, { maxRuns: 2, leaseUntil: T0 + MIN + 1 })]);
      assert.equal((await store.reap(T0 + MIN + 2)).length, 1);
      // Between the reap and its reclaim, another node claims the last run.
      assert.deepEqual(outcomes(await store.claim([request("a", T0 + 2 * MIN, { maxRuns: 2 })])), ["won"]);
      const retry = {
        job: "a",
        slot: T0 + MIN,
        attempt: 1,
        node: "node-b",
        now: T0 + 2 * MIN,
        leaseUntil: T0 + 9 * MIN,
      };
      assert.equal(await store.reclaim({ ...retry, maxRuns: 2 }), false);
      assert.equal((await store.getRun("a", T0 + MIN))?.status, "abandoned", "refused: nothing changed");
      // An error row is already one of the counted runs: its retry takes no other slot's place.
      await finish(store, "a", T0 + 2 * MIN, "error");
      const again = { job: "a", slot: T0 + 2 * MIN, attempt: 1, node: "node-b", now: T0 + 3 * MIN };
      assert.equal(await store.reclaim({ ...again, leaseUntil: T0 + 9 * MIN, maxRuns: 2 }), true);
      assert.equal(await store.reclaim({ ...retry, now: T0 + 3 * MIN, maxRuns: 3 }), true, "a higher limit admits it");
    }));

  it("prune() and pruneRows() keep counted rows in prunedRuns, so a pruned job stays at its limit", () =>
    withStore(async (store) => {
      await store.snapshot(["a"], T0);
      for (const k of [0, 1]) {
        await store.claim([request("a", T0 + k * MIN, { maxRuns: 3 })]);
        await finish(store, "a", T0 + k * MIN, k === 0 ? "ok" : "error");
      }
      await store.claim([request("a", T0 + 2 * MIN, { status: "missed" })]);
      assert.equal(await store.prune(T0 + 5 * MIN), 3);
      const snap = await store.snapshot(["a"], T0 + 5 * MIN);
      assert.equal(snap.jobs.a?.prunedRuns, 2, "the ok and error rows, not the missed one");
      assert.equal((await store.read(["a"])).jobs.a?.prunedRuns, 2);
      assert.deepEqual(outcomes(await store.claim([request("a", T0 + 6 * MIN, { maxRuns: 3 })])), ["won"]);
      await finish(store, "a", T0 + 6 * MIN, "ok");
      assert.deepEqual(outcomes(await store.claim([request("a", T0 + 7 * MIN, { maxRuns: 3 })])), ["limit"]);
      // pruneRows counts the same way.
      await store.claim([request("a", T0 + 8 * MIN, { status: "missed" })]);
      assert.equal(await store.pruneRows("a", 1), 1);
      assert.equal((await store.read(["a"])).jobs.a?.prunedRuns, 3);
      assert.deepEqual(outcomes(await store.claim([request("a", T0 + 9 * MIN, { maxRuns: 3 })])), ["limit"]);
      assert.deepEqual(outcomes(await store.claim([request("a", T0 + 9 * MIN, { maxRuns: 4 })])), ["won"]);
    }));

  it("promote() with maxRuns starts nothing past the limit and skips buffered rows that can never run", () =>
    withStore(async (store) => {
      const lease = (now: number): { now: number; leaseUntil: number } => ({ now, leaseUntil: now + 10 * MIN });
      await store.claim([request("a", T0)]);
      // A backfill's rows are enqueued without a limit check.
      await store.enqueue([1, 2].map((k) => ({
        job: "a",
        slot: T0 - k * MIN,
        kind: "backfill" as const,
        node: "node-a",
        now: T0,
        rerun: false,
      })));
      await finish(store, "a", T0, "ok");
      const first = await store.promote({ job: "a", node: "node-a", ...lease(T0 + MIN), maxRuns: 2 });
      assert.equal(first?.slot, T0 - 2 * MIN);
      // Its lease ends: no longer live (no overlap), but it may still be retried, so it
      // counts: ok + running = 2, nothing more starts.
      await store.update({ job: "a", slot: T0 - 2 * MIN, attempt: 1, node: "node-a" }, { leaseUntil: T0 + 5 * MIN });
      assert.equal(await store.promote({ job: "a", node: "node-a", ...lease(T0 + 6 * MIN), maxRuns: 2 }), undefined);
      assert.equal((await store.getRun("a", T0 - MIN))?.status, "buffered", "still waiting while a run is open");
      await finish(store, "a", T0 - 2 * MIN, "ok");
      assert.equal(await store.promote({ job: "a", node: "node-a", ...lease(T0 + 7 * MIN), maxRuns: 2 }), undefined);
      const last = await store.getRun("a", T0 - MIN);
      assert.deepEqual([last?.status, last?.error], ["skipped", "maxRuns reached"]);
      assert.equal((await store.snapshot(["a"], T0 + 7 * MIN)).running.length, 0);
    }));

  it("overview() counts the skipped rows a full buffer dropped in bufferFull", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1", overlap: "bufferAll" })]);
      await store.claim([1, 2, 3].map((k) =>
        request("a", T0 + k * MIN, { batch: "t2", overlap: "bufferAll", bufferLimit: 1, now: T0 + 3 * MIN })
      ));
      await store.claim([request("b", T0, { batch: "t1", overlap: "bufferOne" })]);
      await store.claim([1, 2].map((k) =>
        request("b", T0 + k * MIN, { batch: "t2", overlap: "bufferOne" })
      ));
      await store.claim([request("c", T0, { batch: "t1" })]);
      await store.claim([request("c", T0 + MIN, { batch: "t2" })]);
      const view = await store.overview(["a", "b", "c"], { since: T0 });
      assert.deepEqual(
        ["a", "b", "c"].map((j) => [view[j]?.counts.skipped, view[j]?.bufferFull ?? 0]),
        [[2, 2], [1, 1], [1, 0]],
      );
    }));
}
