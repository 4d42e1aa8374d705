/** Store contract cases: a deleted definition takes its job's history and state with it. */
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
  it("deleteDef() deletes the job's run rows, counts, watermark and state with it; another job keeps its own", () =>
    withStore(async (store) => {
      await usedJob(store);
      await store.claim([request("other", T0)]);
      assert.equal(await store.deleteDef("hook"), true);
      assert.deepEqual(await store.runs("hook"), []);
      assert.equal(await store.getRun("hook", T0 + MIN), undefined);
      assert.deepEqual((await store.counts(["hook"]))["hook"], ZERO_COUNTS);
      assert.deepEqual(await store.lastOutcomes(["hook"]), {});
      const { jobs, watermarks, running } = await store.read(["hook"]);
      assert.deepEqual([jobs, watermarks, running], [{}, {}, []], "no state, watermark or open row is left");
      const tally = (await store.tally(["hook"], T0 + MIN))["hook"];
      assert.deepEqual([tally?.paused, tally?.last, tally?.counts, tally?.runningSince], [
        false,
        undefined,
        ZERO_COUNTS,
        undefined,
      ]);
      assert.equal((await store.getRun("other", T0))?.status, "running");
      assert.equal(await store.reap(T0 + 20 * MIN).then((rows) => rows.map((r) => r.job).join()), "other");
    }));

  it("a definition re-created after deleteDef() starts afresh: first seen when stored, unpaused, no rows, maxRuns from zero", () =>
    withStore(async (store) => {
      await usedJob(store);
      await store.deleteDef("hook");
      await store.putDef("hook", { schedule: "* * * * *" }, T0 + 2 * MIN);
      const { jobs, watermarks } = await store.read(["hook"]);
      assert.equal(jobs["hook"]?.firstSeen, T0 + 2 * MIN);
      assert.equal(jobs["hook"]?.paused, false);
      assert.equal(jobs["hook"]?.pause, undefined);
      assert.equal(jobs["hook"]?.prunedRuns ?? 0, 0);
      assert.equal(watermarks["hook"], undefined);
      assert.deepEqual(await store.runs("hook"), []);
      // The old job's slots are the new job's to claim: a claim key is (name, slot).
      const won = await store.claim([request("hook", T0 + MIN, { maxRuns: 1, batch: "new" })]);
      assert.deepEqual(outcomes(won), ["won"], "neither the old row nor the old job's runs count");
    }));

  it("an outcome or renewal of a run of a deleted definition writes nothing: no row comes back", () =>
    withStore(async (store) => {
      await usedJob(store);
      await store.deleteDef("hook");
      const key = { job: "hook", slot: T0 + MIN, attempt: 1, node: "node-a" };
      assert.equal(await store.update(key, { status: "ok", finishedAt: T0 + 2 * MIN }), false);
      assert.deepEqual(await store.updateMany([{ key, patch: { status: "error", finishedAt: T0 + 2 * MIN } }]), [
        false,
      ]);
      assert.deepEqual(await store.renew([{ ...key, leaseUntil: T0 + 9 * MIN }], T0 + 2 * MIN), [false]);
      assert.deepEqual(await store.runs("hook"), []);
      assert.deepEqual((await store.counts(["hook"]))["hook"], ZERO_COUNTS);
    }));

  it("putDef() creating a definition deletes rows and state left under its name (a claim made after the delete)", () =>
    withStore(async (store) => {
      await store.putDef("hook", { a: 1 }, T0 - MIN);
      await store.deleteDef("hook");
      // A node that read the definition before the delete claims and pauses on after it.
      await store.claim([request("hook", T0)]);
      await store.setPaused("hook", true, T0);
      await store.putDef("hook", { a: 2 }, T0 + MIN, { ifVersion: 0 });
      assert.deepEqual(await store.runs("hook"), []);
      assert.deepEqual((await store.counts(["hook"]))["hook"], ZERO_COUNTS);
      const { jobs, running } = await store.read(["hook"]);
      assert.deepEqual([jobs["hook"]?.firstSeen, jobs["hook"]?.paused, running], [T0 + MIN, false, []]);
      // Replacing a definition keeps its history and state.
      await store.claim([request("hook", T0 + MIN)]);
      await store.putDef("hook", { a: 3 }, T0 + 2 * MIN);
      assert.equal((await store.runs("hook")).length, 1);
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
