/** Store contract cases: init, claims, the overlap check, updates, reap. */
import { assert } from "./assert.ts";
import { type ContractContext, MIN, outcomes, rejectsWith, request, T0 } from "./_shared.ts";
import type { RunRecord } from "../types.ts";

/** Registers these cases with `it`; each runs on a fresh store from `withStore`. */
export function claimCases({ it, withStore }: ContractContext): void {
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
      assert.deepEqual(
        row,
        {
          job: "a",
          slot: T0,
          kind: "scheduled",
          status: "running",
          attempt: 1,
          node: "node-a",
          claimedAt: T0,
          startedAt: T0,
          finishedAt: null,
          leaseUntil: T0 + 10 * MIN,
          error: null,
        } satisfies RunRecord,
      );
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

  it("a lease is live up to and including its end (one boundary for claim, reclaim, renew and reap)", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { batch: "t1", leaseUntil: T0 + MIN })]);
      // At now === leaseUntil the lease is still live: the skip check blocks, reap leaves it.
      const atEnd = await store.claim([request("a", T0 + MIN, { batch: "t2", node: "node-b", now: T0 + MIN })]);
      assert.deepEqual(outcomes(atEnd), ["skipped"]);
      assert.deepEqual(await store.reap(T0 + MIN), []);
      await store.claim([request("b", T0, { batch: "t3", leaseUntil: T0 + MIN })]);
      await store.update({ job: "b", slot: T0, attempt: 1, node: "node-a" }, {
        status: "error",
        finishedAt: T0,
        leaseUntil: null,
        error: "x",
      });
      assert.equal(
        await store.reclaim({
          job: "b",
          slot: T0,
          attempt: 1,
          node: "node-b",
          now: T0 + MIN,
          leaseUntil: T0 + 2 * MIN,
          overlap: "skip",
        }),
        true,
      );
      await store.claim([request("c", T0, { batch: "t4", leaseUntil: T0 + MIN })]);
      await store.claim([request("c", T0 + 1, { batch: "t5", leaseUntil: T0 + MIN, overlap: "allow" })]);
      await store.update({ job: "c", slot: T0 + 1, attempt: 1, node: "node-a" }, {
        status: "error",
        finishedAt: T0,
        leaseUntil: null,
        error: "x",
      });
      assert.equal(
        await store.reclaim({
          job: "c",
          slot: T0 + 1,
          attempt: 1,
          node: "node-b",
          now: T0 + MIN,
          leaseUntil: T0 + 2 * MIN,
          overlap: "skip",
        }),
        false,
        "reclaim is refused beside a lease that ends now",
      );
      assert.deepEqual(
        await store.renew([{ job: "a", slot: T0, attempt: 1, node: "node-a", leaseUntil: T0 + 2 * MIN }], T0 + MIN),
        [true],
      );
      assert.deepEqual((await store.reap(T0 + 2 * MIN + 1)).map((r) => r.job).sort(), ["a", "b", "c"]);
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
      const pastEnd = await store.claim([request("a", T0 + MIN, { batch: "t2", now: T0 + MIN + 1 })]);
      assert.deepEqual(outcomes(pastEnd), ["won"]);
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
      const dup = await store.claim([
        request("a", T0, { batch: "t" }),
        request("a", T0, { batch: "t", node: "node-b" }),
      ]);
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

  it("claim() of a minute's batch (requests alike but for the job) decides and writes each as a batch of one would", () =>
    withStore(async (store) => {
      await store.claim([request("busy", T0 - MIN, { batch: "old", leaseUntil: T0 + 5 * MIN })]);
      const minute = ["a", "busy", "b", "a", "c"].map((job) =>
        request(job, T0, { batch: "t", node: "node-b", leaseUntil: T0 + MIN })
      );
      assert.deepEqual(outcomes(await store.claim(minute)), ["won", "skipped", "won", "lost", "won"]);
      const [a, busy] = await Promise.all([store.getRun("a", T0), store.getRun("busy", T0)]);
      assert.deepEqual(
        [a?.status, a?.kind, a?.attempt, a?.node, a?.claimedAt, a?.startedAt, a?.finishedAt, a?.leaseUntil, a?.error],
        ["running", "scheduled", 1, "node-b", T0, T0, null, T0 + MIN, null],
      );
      assert.deepEqual([busy?.status, busy?.node, busy?.finishedAt, busy?.leaseUntil], ["skipped", "node-b", T0, null]);
      const now = T0 + 2 * MIN;
      const missed = ["a", "d"].map((job) => request(job, T0 + MIN, { status: "missed", batch: "m", now }));
      assert.deepEqual(outcomes(await store.claim(missed)), ["missed", "missed"]);
      const d = await store.getRun("d", T0 + MIN);
      assert.deepEqual([d?.status, d?.claimedAt, d?.finishedAt, d?.leaseUntil], ["missed", now, now, null]);
      const beside = ["busy", "e"].map((job) =>
        request(job, T0 + MIN, { overlap: "allow", batch: "w", now: T0 + MIN })
      );
      assert.deepEqual(outcomes(await store.claim(beside)), ["won", "won"], "allow runs beside the live run");
    }));

  it("claim() of a minute's batch, each job once: a slot with a row is lost (this batch sent again too), a live run skips", () =>
    withStore(async (store) => {
      await store.claim([request("busy", T0 - MIN, { batch: "old", leaseUntil: T0 + 5 * MIN })]);
      await store.claim([request("taken", T0, { batch: "other", node: "node-c" })]);
      const minute = ["a", "busy", "taken", "b"].map((job) =>
        request(job, T0, { batch: "t", node: "node-b", leaseUntil: T0 + MIN })
      );
      assert.deepEqual(outcomes(await store.claim(minute)), ["won", "skipped", "lost", "won"]);
      assert.deepEqual([(await store.getRun("taken", T0))?.node, (await store.getRun("b", T0))?.node], [
        "node-c",
        "node-b",
      ]);
      assert.deepEqual(outcomes(await store.claim(minute)), ["lost", "lost", "lost", "lost"], "the same batch again");
      const missed = ["a", "c"].map((job) => request(job, T0, { status: "missed", batch: "m", now: T0 + MIN }));
      assert.deepEqual(outcomes(await store.claim(missed)), ["lost", "missed"]);
      assert.equal((await store.getRun("a", T0))?.status, "running");
    }));

  it("claim() refuses a malformed batch before writing any of it", () =>
    withStore(async (store) => {
      await rejectsWith(store.claim([request("a", T0), request("a", T0 + 0.5)]), "invalid-instant", /claim\[1\]\.slot/);
      await rejectsWith(store.claim([request("a", T0, { overlap: "maybe" as "skip" })]), "invalid-spec", /"maybe"/);
      assert.equal(await store.getRun("a", T0), undefined);
    }));

  it("refuses a name, node or key with a lone surrogate, which no store keeps as given", () =>
    withStore(async (store) => {
      // SQLite's driver wrote "a\ufffd" (two names, one row) or, through JSON, bytes its next
      // read panicked on; Deno KV made two names one key; Postgres refused them alone.
      const lone = /must not contain a lone surrogate/;
      await rejectsWith(store.claim([request("a", T0), request("a\ud800", T0)]), "invalid-spec", lone);
      await rejectsWith(store.claim([request("a", T0, { node: "n\udc00" })]), "invalid-spec", lone);
      await rejectsWith(store.putSetting("k\udbff", "v"), "invalid-spec", lone);
      await rejectsWith(store.getRun("a\udfff", T0), "invalid-spec", lone);
      const [won] = await store.claim([request("a", T0 + MIN)]);
      assert.equal(won?.outcome, "won");
      const key = { job: "a", slot: T0 + MIN, attempt: 1, node: "node-a" };
      const patch = { status: "error", finishedAt: T0 + MIN, leaseUntil: null, error: "bad \ud800" } as const;
      await rejectsWith(store.update(key, patch), "invalid-spec", lone);
      await rejectsWith(store.updateMany([{ key, patch }]), "invalid-spec", lone);
      assert.equal((await store.getRun("a", T0 + MIN))?.status, "running");
      assert.equal(await store.getRun("a", T0), undefined);
      assert.equal(await store.getSetting("k"), undefined);
    }));

  it("refuses a NUL character in a name, node, key, setting, pause note or error text, naming the field", () =>
    withStore(async (store) => {
      // libSQL's driver cut the text at the NUL ("a\0b" claimed the row of "a", and answered
      // lost; a setting "v\0" read back "v"); Postgres refused it alone, naming no field.
      const nul = (field: string): RegExp =>
        new RegExp(`^invalid-spec: ${field.replace(/[.[\]]/g, "\\$&")}: must not contain a NUL character`);
      await rejectsWith(store.claim([request("a", T0), request("a\0b", T0)]), "invalid-spec", nul("claim[1].job"));
      await rejectsWith(store.claim([request("a", T0, { node: "n\0" })]), "invalid-spec", nul("claim[0].node"));
      await rejectsWith(store.claim([request("a", T0, { batch: "b\0" })]), "invalid-spec", nul("claim[0].batch"));
      await rejectsWith(store.snapshot(["a", "a\0"], T0), "invalid-spec", nul("snapshot.names[1]"));
      const renewal = { job: "a", slot: T0, attempt: 1, node: "n\0", leaseUntil: T0 + MIN };
      if (typeof store.renew === "function") {
        await rejectsWith(store.renew([renewal], T0), "invalid-spec", nul("renew[0].node"));
      }
      await rejectsWith(store.runs("a\0"), "invalid-spec", nul("runs.job"));
      await rejectsWith(store.putDef("d\0", {}, T0), "invalid-spec", nul("putDef.name"));
      await rejectsWith(store.putSetting("k\0", "v"), "invalid-spec", nul("putSetting.key"));
      await rejectsWith(store.putSetting("k", "v\0"), "invalid-spec", nul("putSetting.value"));
      await rejectsWith(store.setPaused("a", true, T0, { note: "x\0" }), "invalid-spec", nul("setPaused.note"));
      await rejectsWith(store.setPaused("a", true, T0, { by: "\0" }), "invalid-spec", nul("setPaused.by"));
      const [won] = await store.claim([request("a", T0 + MIN)]);
      assert.equal(won?.outcome, "won");
      const key = { job: "a", slot: T0 + MIN, attempt: 1, node: "node-a" };
      const patch = { status: "error", finishedAt: T0 + MIN, leaseUntil: null, error: "bad \0" } as const;
      await rejectsWith(store.update(key, patch), "invalid-spec", nul("update.patch.error"));
      await rejectsWith(store.updateMany([{ key, patch }]), "invalid-spec", nul("updateMany[0].patch.error"));
      assert.equal((await store.getRun("a", T0 + MIN))?.status, "running");
      assert.equal(await store.getRun("a", T0), undefined);
      assert.equal(await store.getSetting("k"), undefined);
      assert.deepEqual((await store.read(["a"])).jobs.a?.paused ?? false, false);
      assert.deepEqual(await store.listDefs(), []);
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

  it("snapshot() of thousands of names (a store may read them in pages): new names, known states and definitions at every position", () =>
    withStore(async (store) => {
      // 2 600 names: past the SQL stores' pages of 1 000, so a new name opens page 2, a known one page 3.
      const names = Array.from({ length: 2_600 }, (_, i) => `job-${String(i).padStart(4, "0")}`);
      const known = ["job-0000", "job-0999", "job-2000", "job-2001", "job-2599"];
      await store.snapshot(known, T0);
      await store.claim([request("job-2000", T0 + MIN, { batch: "t" }), request("job-0999", T0 + MIN, { batch: "t" })]);
      await store.setPaused("job-2001", true, T0 + MIN);
      await store.putDef("zz-hook", { schedule: "* * * * *" }, T0);
      const snap = await store.snapshot(names, T0 + 2 * MIN);
      assert.equal(Object.keys(snap.jobs).length, 2_601, "every asked name and the definition");
      for (const name of [...names, "zz-hook"]) {
        const state = snap.jobs[name];
        const expected = known.includes(name) || name === "zz-hook" ? T0 : T0 + 2 * MIN;
        assert.equal(state?.firstSeen, expected, `${name}'s firstSeen`);
        assert.equal(state?.paused, name === "job-2001", `${name}'s paused flag`);
      }
      assert.deepEqual(snap.watermarks, { "job-0999": T0 + MIN, "job-2000": T0 + MIN });
      assert.deepEqual(snap.running.map((r) => r.job).sort(), ["job-0999", "job-2000"]);
      assert.deepEqual(snap.defs.map((d) => d.name), ["zz-hook"]);
      // The names inserted keep their firstSeen: a later snapshot reads them as they are.
      const again = await store.snapshot(names.slice(1_000, 1_001), T0 + 3 * MIN);
      assert.equal(again.jobs["job-1000"]?.firstSeen, T0 + 2 * MIN);
      assert.equal(again.jobs["zz-hook"]?.firstSeen, T0);
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
      await store.claim([
        request("a", T0, { leaseUntil: T0 + MIN }),
        request("x", T0),
        request("y", T0, { status: "missed" }),
      ]);
      await store.putDef("hook", { schedule: "* * * * *" }, T0);
      const snap = await store.snapshot(["a"], T0 + 5 * MIN);
      assert.deepEqual(snap.running.map((r) => r.job).sort(), ["a", "x"]);
      assert.deepEqual(snap.defs.map((d) => [d.name, d.version, d.spec]), [["hook", 1, { schedule: "* * * * *" }]]);
      assert.deepEqual(Object.keys(snap.jobs).sort(), ["a", "hook"]);
    }));

  // Timer mode's idle minutes snapshot no name: the reaper and the definitions' sync still need these.
  it("snapshot() of no name still lists every running row and every definition", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { leaseUntil: T0 + MIN }), request("y", T0, { status: "missed" })]);
      await store.putDef("hook", { schedule: "* * * * *" }, T0);
      const snap = await store.snapshot([], T0 + 5 * MIN);
      assert.deepEqual(snap.running.map((r) => [r.job, r.slot, r.status]), [["a", T0, "running"]]);
      assert.deepEqual(snap.defs.map((d) => d.name), ["hook"]);
      assert.deepEqual(Object.keys(snap.jobs), ["hook"]);
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

  it("a definition's version rises across a delete, so a re-create at the same instant is a new version", () =>
    withStore(async (store) => {
      assert.equal((await store.putDef("hook", { schedule: "* * * * *" }, T0)).version, 1);
      assert.equal((await store.putDef("hook", { schedule: "*/2 * * * *" }, T0)).version, 2);
      assert.equal(await store.deleteDef("hook"), true);
      const again = await store.putDef("hook", { schedule: "*/5 * * * *" }, T0, { ifVersion: 0 });
      assert.equal(again.version, 3, "continues above the deleted definition's version");
      assert.deepEqual((await store.getDef("hook"))?.version, 3);
      assert.equal(await store.deleteDef("hook"), true);
      assert.equal(await store.deleteDef("hook"), false);
      assert.equal(
        (await store.putDef("hook", { schedule: "* * * * *" }, T0 - MIN)).version,
        4,
        "also when the writer's clock is behind",
      );
      assert.equal(
        (await store.putDef("other", { schedule: "* * * * *" }, T0)).version,
        1,
        "other names are unaffected",
      );
    }));

  it("update() is a compare-and-set on the running attempt", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0)]);
      const key = { job: "a", slot: T0, attempt: 1, node: "node-a" };
      assert.equal(await store.update({ ...key, node: "node-b" }, { status: "ok" }), false);
      assert.equal(await store.update({ ...key, attempt: 2 }, { status: "ok" }), false);
      assert.equal(await store.update(key, { leaseUntil: T0 + 20 * MIN }), true);
      assert.equal((await store.getRun("a", T0))?.leaseUntil, T0 + 20 * MIN);
      assert.equal(
        await store.update(key, { status: "error", finishedAt: T0 + 1000, error: "boom", leaseUntil: null }),
        true,
      );
      const row = await store.getRun("a", T0);
      assert.deepEqual([row?.status, row?.finishedAt, row?.error, row?.leaseUntil, row?.attempt], [
        "error",
        T0 + 1000,
        "boom",
        null,
        1,
      ]);
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
      await store.claim(
        slots.map((slot) => request("a", slot, { batch: "t", overlap: "allow", leaseUntil: slot + 1 })),
      );
      const [x, y] = await Promise.all([store.reap(T0 + 30 * MIN), store.reap(T0 + 30 * MIN)]);
      const all = [...(x ?? []), ...(y ?? [])].map((r) => r.slot).sort((p, q) => p - q);
      assert.deepEqual(all, slots);
    }));
}
