/** Store contract cases: the buffering overlap policies, cancelOther, promote() and enqueue(). */
import { assert } from "./assert.ts";
import { type ContractContext, MIN, outcomes, rejectsWith, request, T0 } from "./_shared.ts";
import type { Store } from "../types.ts";

const statusOf = async (store: Store, job: string, slot: number): Promise<string | undefined> =>
  (await store.getRun(job, slot))?.status;

/** Registers these cases with `it`; each runs on a fresh store from `withStore`. */
export function overlapCases({ it, withStore }: ContractContext): void {
  it("claim() with bufferOne keeps one slot buffered while a run is live; the next is skipped with a reason", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1", overlap: "bufferOne" })]);
      const t2 = await store.claim([
        request("a", T0 + MIN, { batch: "t2", overlap: "bufferOne", now: T0 + MIN, node: "node-b" }),
      ]);
      const t3 = await store.claim([
        request("a", T0 + 2 * MIN, { batch: "t3", overlap: "bufferOne", now: T0 + 2 * MIN }),
      ]);
      assert.deepEqual([...outcomes(t2), ...outcomes(t3)], ["buffered", "skipped"]);
      const buffered = await store.getRun("a", T0 + MIN);
      assert.deepEqual([buffered?.status, buffered?.leaseUntil, buffered?.finishedAt], ["buffered", null, null]);
      const skipped = await store.getRun("a", T0 + 2 * MIN);
      assert.deepEqual([skipped?.status, skipped?.error], ["skipped", "overlap"]);
      // Open rows show in the snapshot; the buffered one has no lease.
      const snap = await store.snapshot(["a"], T0 + 2 * MIN);
      assert.deepEqual(snap.running.map((r) => [r.slot, r.status]).sort(), [[T0, "running"], [T0 + MIN, "buffered"]]);
      assert.equal(snap.watermarks.a, T0 + 2 * MIN);
    }));

  it("claim() with bufferOne buffers behind a waiting slot even when no run is live, and one batch buffers one", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1", overlap: "bufferOne" })]);
      const now = T0 + 3 * MIN;
      const batch = [1, 2].map((k) => request("a", T0 + k * MIN, { batch: "t2", overlap: "bufferOne", now: T0 + MIN }));
      assert.deepEqual(outcomes(await store.claim(batch)), ["buffered", "skipped"]);
      assert.equal(
        await store.update({ job: "a", slot: T0, attempt: 1, node: "node-a" }, {
          status: "ok",
          finishedAt: now,
          leaseUntil: null,
        }),
        true,
      );
      // Nothing live, but a slot waits: the new one must not jump the queue.
      const late = await store.claim([request("a", T0 + 3 * MIN, { batch: "t3", overlap: "bufferOne", now })]);
      assert.deepEqual(outcomes(late), ["skipped"]);
    }));

  it("claim() with bufferAll buffers up to bufferLimit, then records skipped 'buffer full'", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1", overlap: "bufferAll" })]);
      const batch = [1, 2, 3].map((k) =>
        request("a", T0 + k * MIN, { batch: "t2", overlap: "bufferAll", bufferLimit: 2, now: T0 + 3 * MIN })
      );
      assert.deepEqual(outcomes(await store.claim(batch)), ["buffered", "buffered", "skipped"]);
      assert.equal((await store.getRun("a", T0 + 3 * MIN))?.error, "overlap: buffer full");
      const more = await store.claim([
        request("a", T0 + 4 * MIN, { batch: "t3", overlap: "bufferAll", bufferLimit: 3, now: T0 + 4 * MIN }),
      ]);
      assert.deepEqual(outcomes(more), ["buffered"]);
    }));

  it("claim() with a buffering policy runs at once when nothing is live or waiting, and one batch's slots never block each other", () =>
    withStore(async (store) => {
      const batch = [0, 1].map((k) => request("a", T0 + k * MIN, { batch: "t1", overlap: "bufferOne", now: T0 + MIN }));
      assert.deepEqual(outcomes(await store.claim(batch)), ["won", "won"]);
    }));

  it("promote() starts the oldest buffered slot only once no run is live, exactly once across callers", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1", overlap: "bufferAll" })]);
      await store.claim(
        [2, 1].map((k) => request("a", T0 + k * MIN, { batch: "t2", overlap: "bufferAll", now: T0 + MIN })),
      );
      const promote = (node: string, now: number) => store.promote({ job: "a", node, now, leaseUntil: now + 5 * MIN });
      assert.equal(await promote("node-b", T0 + 2 * MIN), undefined, "the first run is still live");
      await store.update({ job: "a", slot: T0, attempt: 1, node: "node-a" }, {
        status: "ok",
        finishedAt: T0 + 2 * MIN,
        leaseUntil: null,
      });
      const [first, second] = await Promise.all([promote("node-b", T0 + 2 * MIN), promote("node-c", T0 + 2 * MIN)]);
      const won = [first, second].filter((r) => r !== undefined);
      assert.equal(won.length, 1, "one caller starts the slot");
      assert.deepEqual([won[0]?.slot, won[0]?.status, won[0]?.attempt, won[0]?.leaseUntil], [
        T0 + MIN,
        "running",
        1,
        T0 + 7 * MIN,
      ]);
      // The promoted row is an ordinary running attempt of its new holder.
      const holder = won[0]!.node;
      assert.equal(
        await store.update({ job: "a", slot: T0 + MIN, attempt: 1, node: holder }, {
          status: "ok",
          finishedAt: T0 + 3 * MIN,
          leaseUntil: null,
        }),
        true,
      );
      assert.equal((await promote("node-b", T0 + 3 * MIN))?.slot, T0 + 2 * MIN);
      assert.equal(await promote("node-b", T0 + 3 * MIN), undefined, "nothing left while that one runs");
      await rejectsWith(store.promote({ job: "", node: "n", now: T0, leaseUntil: T0 }), "invalid-spec", /promote\.job/);
    }));

  it("promote() starts nothing while the job is paused; resuming lets it go", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1", overlap: "bufferOne", leaseUntil: T0 + MIN })]);
      await store.claim([request("a", T0 + 30_000, { batch: "t2", overlap: "bufferOne", now: T0 + 30_000 })]);
      await store.update({ job: "a", slot: T0, attempt: 1, node: "node-a" }, {
        status: "ok",
        finishedAt: T0 + 40_000,
        leaseUntil: null,
      });
      await store.setPaused("a", true, T0 + 40_000);
      assert.equal(await store.promote({ job: "a", node: "b", now: T0 + MIN, leaseUntil: T0 + 2 * MIN }), undefined);
      await store.setPaused("a", false, T0 + MIN);
      assert.equal(
        (await store.promote({ job: "a", node: "b", now: T0 + MIN, leaseUntil: T0 + 2 * MIN }))?.slot,
        T0 + 30_000,
      );
    }));

  it("promote() waits for a live run whose lease has not ended, and goes once it has", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1", overlap: "bufferOne", leaseUntil: T0 + MIN })]);
      await store.claim([request("a", T0 + 30_000, { batch: "t2", overlap: "bufferOne", now: T0 + 30_000 })]);
      assert.equal(await store.promote({ job: "a", node: "b", now: T0 + MIN, leaseUntil: T0 + 2 * MIN }), undefined);
      const reaped = await store.reap(T0 + MIN + 1);
      assert.deepEqual(reaped.map((r) => r.status), ["abandoned"]);
      assert.equal(
        (await store.promote({ job: "a", node: "b", now: T0 + MIN + 1, leaseUntil: T0 + 2 * MIN }))?.slot,
        T0 + 30_000,
      );
    }));

  it("claim() with cancelOther buffers the slot and marks the live run cancelling; its holder can still record it", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1", overlap: "cancelOther" })]);
      const next = await store.claim([
        request("a", T0 + MIN, { batch: "t2", overlap: "cancelOther", now: T0 + MIN, node: "node-b" }),
      ]);
      assert.deepEqual(outcomes(next), ["buffered"]);
      assert.equal(await statusOf(store, "a", T0), "cancelling");
      const key = { job: "a", slot: T0, attempt: 1, node: "node-a" };
      // The holder learns at its next renewal: a cancelling row is not renewed.
      assert.deepEqual(await store.renew([{ ...key, leaseUntil: T0 + 20 * MIN }], T0 + MIN), [false]);
      // Still live: nothing starts before the holder settles or the lease ends.
      assert.equal(
        await store.promote({ job: "a", node: "node-b", now: T0 + MIN, leaseUntil: T0 + 5 * MIN }),
        undefined,
      );
      assert.equal(
        await store.update(key, { status: "cancelled", finishedAt: T0 + MIN, leaseUntil: null, error: "superseded" }),
        true,
      );
      assert.equal(
        (await store.promote({ job: "a", node: "node-b", now: T0 + MIN, leaseUntil: T0 + 5 * MIN }))?.slot,
        T0 + MIN,
      );
    }));

  it("claim() with cancelOther supersedes an older buffered slot; reap() ends an unheeded cancel as cancelled", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1", overlap: "cancelOther" })]);
      await store.claim([request("a", T0 + MIN, { batch: "t2", overlap: "cancelOther", now: T0 + MIN })]);
      await store.claim([request("a", T0 + 2 * MIN, { batch: "t3", overlap: "cancelOther", now: T0 + 2 * MIN })]);
      const older = await store.getRun("a", T0 + MIN);
      assert.deepEqual([older?.status, older?.error, older?.finishedAt], [
        "skipped",
        "superseded by a newer slot",
        T0 + 2 * MIN,
      ]);
      assert.equal(await statusOf(store, "a", T0 + 2 * MIN), "buffered");
      const reaped = await store.reap(T0 + 11 * MIN);
      assert.deepEqual(reaped.map((r) => [r.slot, r.status, r.error]), [[T0, "cancelled", "superseded"]]);
      assert.equal(
        (await store.promote({ job: "a", node: "b", now: T0 + 11 * MIN, leaseUntil: T0 + 12 * MIN }))?.slot,
        T0 + 2 * MIN,
      );
      // Final rows count in lastOutcomes and counts; open ones do not show as last.
      const counts = (await store.counts(["a"])).a;
      assert.deepEqual([counts?.cancelled, counts?.skipped, counts?.running, counts?.buffered], [1, 1, 1, 0]);
      assert.equal((await store.lastOutcomes(["a"])).a?.slot, T0 + MIN);
    }));

  it("claim() with skip counts a cancelling run as live; reclaim() with skip waits for it", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1", overlap: "cancelOther" })]);
      await store.claim([request("a", T0 + MIN, { batch: "t2", overlap: "cancelOther", now: T0 + MIN })]);
      assert.deepEqual(outcomes(await store.claim([request("a", T0 + 2 * MIN, { batch: "t3", now: T0 + 2 * MIN })])), [
        "skipped",
      ]);
    }));

  it("enqueue() inserts buffered rows once, skips existing ones, and with rerun re-buffers finished ones as a new attempt", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1" })]);
      await store.update({ job: "a", slot: T0, attempt: 1, node: "node-a" }, {
        status: "error",
        finishedAt: T0 + 1,
        leaseUntil: null,
        error: "boom",
      });
      const now = T0 + 10 * MIN;
      const ask = (rerun: boolean, node = "node-a") =>
        store.enqueue(
          [T0, T0 + MIN, T0 + 2 * MIN].map((slot) => ({ job: "a", slot, kind: "backfill" as const, node, now, rerun })),
        );
      assert.deepEqual(await ask(false), ["exists", "queued", "queued"]);
      assert.deepEqual(
        await ask(false, "node-b"),
        ["exists", "exists", "exists"],
        "a second backfill of the range queues nothing",
      );
      assert.deepEqual(await ask(true), ["requeued", "exists", "exists"], "open rows are never re-queued");
      const row = await store.getRun("a", T0);
      assert.deepEqual([row?.status, row?.attempt, row?.kind, row?.error, row?.finishedAt], [
        "buffered",
        2,
        "scheduled",
        null,
        null,
      ]);
      assert.equal((await store.getRun("a", T0 + MIN))?.kind, "backfill");
      assert.equal((await store.snapshot(["a"], now)).watermarks.a, T0, "backfill rows are no watermark");
      // Oldest first, and only the kind asked for.
      assert.equal(
        (await store.promote({ job: "a", node: "n", now, leaseUntil: now + MIN, kind: "backfill" }))?.slot,
        T0 + MIN,
      );
      await store.update({ job: "a", slot: T0 + MIN, attempt: 1, node: "n" }, {
        status: "ok",
        finishedAt: now,
        leaseUntil: null,
      });
      const first = await store.promote({ job: "a", node: "n", now, leaseUntil: now + MIN });
      assert.deepEqual([first?.slot, first?.attempt], [T0, 2]);
      await store.update({ job: "a", slot: T0, attempt: 2, node: "n" }, {
        status: "ok",
        finishedAt: now + 1,
        leaseUntil: null,
      });
      // Finished after the rerun's `now`: a concurrent rerun of the same range leaves it alone.
      assert.deepEqual(await store.enqueue([{ job: "a", slot: T0, kind: "backfill", node: "b", now, rerun: true }]), [
        "exists",
      ]);
      await rejectsWith(
        store.enqueue([{ job: "a", slot: 1.5, kind: "backfill", node: "b", now, rerun: true }]),
        "invalid-instant",
        /enqueue\[0\]\.slot/,
      );
    }));

  it("claim() refuses an unknown overlap policy and a bad bufferLimit before writing anything", () =>
    withStore(async (store) => {
      await rejectsWith(
        store.claim([request("a", T0, { overlap: "queue" as never })]),
        "invalid-spec",
        /claim\[0\]\.overlap/,
      );
      await rejectsWith(
        store.claim([request("a", T0, { overlap: "bufferAll", bufferLimit: 0 })]),
        "invalid-spec",
        /bufferLimit/,
      );
      assert.equal(await store.getRun("a", T0), undefined);
    }));

  it("setPaused() with a note records note, time and author in the job state; resuming clears them", () =>
    withStore(async (store) => {
      await store.setPaused("a", true, T0, { note: "waiting for the vendor's fix", by: "ops-bot" });
      const paused = (await store.read(["a"])).jobs.a;
      assert.deepEqual([paused?.paused, paused?.pause], [true, {
        note: "waiting for the vendor's fix",
        at: T0,
        by: "ops-bot",
      }]);
      await store.setPaused("a", true, T0 + MIN);
      assert.deepEqual((await store.snapshot(["a"], T0 + MIN)).jobs.a?.pause, { note: null, at: T0 + MIN, by: "api" });
      await store.setPaused("a", false, T0 + 2 * MIN);
      const resumed = (await store.read(["a"])).jobs.a;
      assert.deepEqual([resumed?.paused, resumed?.pause, resumed?.firstSeen], [false, undefined, T0]);
      await rejectsWith(store.setPaused("a", true, T0, { note: "x".repeat(501) }), "invalid-spec", /setPaused\.note/);
    }));
}
