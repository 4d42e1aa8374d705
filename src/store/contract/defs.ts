/** Store contract cases: a deleted definition takes its job's history and state with it (not a slot a node holds). */
import { assert } from "./assert.ts";
import { type ContractContext, MIN, outcomes, request, T0, ZERO_COUNTS } from "./_shared.ts";
import type { Store } from "../types.ts";

/** A data job "hook" with a finished run at T0, one still running at T0 + 1 min, pause and a pruned run. */
async function usedJob(store: Store): Promise<void> {
  await store.putDef("hook", { schedule: "* * * * *" }, T0 - MIN);
  await store.claim([request("hook", T0, { maxRuns: 5 })]);
  await store.update({ job: "hook", slot: T0, attempt: 1, node: "node-a" }, { status: "ok", finishedAt: T0 });
  await store.claim([request("hook", T0 + MIN, { batch: "t2" })]);
  await store.claim([request("hook", T0 - 30 * MIN, { kind: "manual", overlap: "allow", batch: "m" })]);
  await store.update({ job: "hook", slot: T0 - 30 * MIN, attempt: 1, node: "node-a" }, {
    status: "ok",
    finishedAt: T0,
  });
  assert.equal(await store.prune(T0 - MIN), 1);
  await store.setPaused("hook", true, T0, { note: "old", by: "ops" });
}

/** Registers these cases with `it`; each runs on a fresh store from `withStore`. */
export function defCases({ it, withStore }: ContractContext): void {
  it("deleteDef() deletes the job's finished rows, counts and state; a slot a node holds stays until it ends; another job keeps its own", () =>
    withStore(async (store) => {
      await usedJob(store);
      await store.claim([request("other", T0)]);
      assert.equal(await store.deleteDef("hook"), true);
      const rows = await store.runs("hook");
      assert.deepEqual(rows.map((r) => [r.slot, r.status]), [[T0 + MIN, "running"]], "only the open row is left");
      assert.equal(await store.getRun("hook", T0), undefined);
      assert.deepEqual((await store.counts(["hook"]))["hook"], { ...ZERO_COUNTS, running: 1 });
      assert.deepEqual(await store.lastOutcomes(["hook"]), {});
      const { jobs, running } = await store.read(["hook"]);
      assert.deepEqual([jobs, running.map((r) => r.slot)], [{}, [T0 + MIN]], "no state is left");
      assert.equal((await store.getRun("other", T0))?.status, "running");
      assert.deepEqual((await store.reap(T0 + 20 * MIN)).map((r) => r.job).sort(), ["hook", "other"]);
    }));

  it("a definition re-created after deleteDef() starts afresh, and cannot claim a slot the old one's run still holds", () =>
    withStore(async (store) => {
      await usedJob(store);
      await store.deleteDef("hook");
      await store.putDef("hook", { schedule: "* * * * *" }, T0 + 2 * MIN);
      const { jobs } = await store.read(["hook"]);
      assert.equal(jobs["hook"]?.firstSeen, T0 + 2 * MIN);
      assert.equal(jobs["hook"]?.paused, false);
      assert.equal(jobs["hook"]?.pause, undefined);
      assert.equal(jobs["hook"]?.prunedRuns ?? 0, 0);
      // The held slot: claimed again by the new job, it ran twice (once on each definition).
      const held = await store.claim([request("hook", T0 + MIN, { batch: "new", node: "node-b" })]);
      assert.deepEqual(outcomes(held), ["lost"]);
      // maxRuns counts the old job's finished runs no more (its open row, as every open row, it does).
      const won = await store.claim([request("hook", T0 + 2 * MIN, { maxRuns: 2, overlap: "allow", batch: "new" })]);
      assert.deepEqual(outcomes(won), ["won"], "the old job's finished runs do not count");
    }));

  it("a run that was in flight when its definition was deleted records its outcome; nothing else comes back", () =>
    withStore(async (store) => {
      await usedJob(store);
      await store.deleteDef("hook");
      const key = { job: "hook", slot: T0 + MIN, attempt: 1, node: "node-a" };
      assert.deepEqual(await store.renew([{ ...key, leaseUntil: T0 + 9 * MIN }], T0 + 2 * MIN), [true]);
      assert.equal(await store.update(key, { status: "ok", finishedAt: T0 + 2 * MIN }), true);
      assert.deepEqual((await store.runs("hook")).map((r) => [r.slot, r.status]), [[T0 + MIN, "ok"]]);
      assert.deepEqual((await store.counts(["hook"]))["hook"], { ...ZERO_COUNTS, ok: 1 });
      const gone = { job: "hook", slot: T0, attempt: 1, node: "node-a" };
      assert.deepEqual(await store.updateMany([{ key: gone, patch: { status: "error", finishedAt: T0 } }]), [false]);
    }));

  it("putDef() creating a definition deletes finished rows and state left under its name, never a held slot", () =>
    withStore(async (store) => {
      await store.putDef("hook", { a: 1 }, T0 - MIN);
      await store.deleteDef("hook");
      // A node that read the definition before the delete claims and pauses on after it.
      await store.claim([request("hook", T0)]);
      await store.claim([request("hook", T0 - MIN, { status: "missed", batch: "m" })]);
      await store.setPaused("hook", true, T0);
      await store.putDef("hook", { a: 2 }, T0 + MIN, { ifVersion: 0 });
      assert.deepEqual((await store.runs("hook")).map((r) => [r.slot, r.status]), [[T0, "running"]]);
      assert.deepEqual((await store.counts(["hook"]))["hook"], { ...ZERO_COUNTS, running: 1 });
      const { jobs } = await store.read(["hook"]);
      assert.deepEqual([jobs["hook"]?.firstSeen, jobs["hook"]?.paused], [T0 + MIN, false]);
      // Replacing a definition keeps its history and state.
      await store.claim([request("hook", T0 + MIN)]);
      await store.putDef("hook", { a: 3 }, T0 + 2 * MIN);
      assert.equal((await store.runs("hook")).length, 2);
      assert.equal((await store.read(["hook"])).jobs["hook"]?.firstSeen, T0 + MIN);
    }));

  it("deleteDef() of a name with no definition deletes nothing (a code job's rows and state stay)", () =>
    withStore(async (store) => {
      await store.snapshot(["code"], T0);
      await store.claim([request("code", T0)]);
      assert.equal(await store.deleteDef("code"), false);
      assert.equal((await store.runs("code")).length, 1);
      assert.equal((await store.read(["code"])).jobs["code"]?.firstSeen, T0);
    }));
}
