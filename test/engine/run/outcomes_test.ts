import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { faultyStore } from "../_faulty.ts";
import { memoryLogger, MIN, ofType, rows, setup, T0, tickAt } from "../_helpers.ts";
import { createManualClock } from "../../../src/engine/clock.ts";
import { createOutcomeWriter, HOLD_MS, MAX_HELD } from "../../../src/engine/run/outcomes.ts";
import { withLanded } from "../../../src/store/_landed.ts";
import { request } from "../../../src/store/contract/_shared.ts";

describe("outcome writes: group commit", () => {
  it("outcomes of runs finishing together go to the store as one updateMany, not one update each", async () => {
    const store = faultyStore();
    const s = setup({ store, start: T0 - MIN + 1 });
    for (let i = 0; i < 50; i++) s.scheduler.job(`j${i}`, { schedule: "* * * * *", run: () => {} });
    await tickAt(s, T0 - MIN + 1);
    const report = await tickAt(s, T0);
    assert.equal(Object.values(report.jobs).filter((r) => r.outcomes[T0] === "ok").length, 50);
    assert.ok((store.calls["updateMany"] ?? 0) >= 1);
    assert.ok((store.calls["updateMany"] ?? 0) + (store.calls["update"] ?? 0) <= 3, JSON.stringify(store.calls));
    for (let i = 0; i < 50; i++) assert.equal((await rows(store, `j${i}`))[0]!.status, "ok");
  });

  it("a failed batch falls back to per-write retries: every outcome recorded once, nothing re-run", async () => {
    const store = faultyStore();
    const s = setup({ store, start: T0 - MIN + 1 });
    const ran: string[] = [];
    for (let i = 0; i < 20; i++) {
      s.scheduler.job(`j${i}`, {
        schedule: "* * * * *",
        retries: { attempts: 3 },
        run: (ctx) => void ran.push(`${ctx.job}@${ctx.attempt}`),
      });
    }
    await tickAt(s, T0 - MIN + 1);
    store.failNext("updateMany", 5);
    store.failNext("update", 3);
    await s.clock.set(T0);
    const ticking = s.scheduler.tick(T0);
    for (let i = 0; i < 10; i++) await s.clock.advance(1_000);
    await ticking;
    assert.equal(ran.length, 20, "each job ran once");
    for (let i = 0; i < 20; i++) {
      const [row] = await rows(store, `j${i}`);
      assert.deepEqual([row!.status, row!.attempt], ["ok", 1]);
    }
    assert.equal(ofType(s.events, "lost").length, 0);
  });
});

describe("outcome writes: holds while a large minute starts", () => {
  /** A writer over a memory store that counts its batches; a claimed row per job `j0`..`j{n-1}`. */
  async function writerOf(n: number) {
    const store = faultyStore();
    const clock = createManualClock(T0);
    for (let i = 0; i < n; i++) await store.claim([request(`j${i}`, T0)]);
    const writer = createOutcomeWriter({ store, clock, log: memoryLogger(), maxWaitMs: 1_000, sleep: async () => {} });
    const write = (i: number) =>
      writer.write(
        { job: `j${i}`, slot: T0, attempt: 1, node: "node-a" },
        { status: "ok", finishedAt: T0 },
        () => true,
      );
    const batches = () => (store.calls["updateMany"] ?? 0) + (store.calls["update"] ?? 0);
    return { store, clock, writer, write, batches };
  }
  const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

  it("writes arriving over several turns while held go as one batch when the hold ends", async () => {
    const w = await writerOf(6);
    const release = w.writer.hold();
    const writes: Promise<boolean>[] = [];
    for (let i = 0; i < 6; i++) {
      writes.push(w.write(i));
      await turn();
    }
    assert.equal(w.batches(), 0, "nothing written while held");
    release();
    assert.deepEqual(await Promise.all(writes), [true, true, true, true, true, true]);
    assert.equal(w.store.calls["updateMany"], 1, "one transaction for all six");
    assert.equal((await w.store.getRun("j5", T0))?.status, "ok");
  });

  it("a group that failed after its first writes landed reads back only the rest", async () => {
    const w = await writerOf(6);
    const updateMany = w.store.updateMany.bind(w.store);
    // The store commits the first 4 (one of them refused: the row is not that attempt's),
    // then fails on the last 2, and says which of its writes committed.
    w.store.updateMany = async (writes) => {
      const first = await updateMany(writes.slice(0, 4));
      throw withLanded(new Error("SQLITE_IOERR on the second part"), first);
    };
    const getRun = w.store.getRun.bind(w.store);
    const readBack: string[] = [];
    w.store.getRun = (job, slot) => {
      readBack.push(job);
      return getRun(job, slot);
    };
    const release = w.writer.hold();
    const writes = [0, 1, 2, 3, 4, 5].map((i) => w.write(i === 2 ? 99 : i));
    release();
    assert.deepEqual(await Promise.all(writes), [true, true, false, true, true, true]);
    assert.deepEqual(readBack, [], "no landed write is read back (the last two went through update())");
    assert.equal((await w.store.getRun("j5", T0))?.status, "ok");
    assert.equal((await w.store.getRun("j2", T0))?.status, "running", "j99 has no row: j2 was never written");
  });

  it("unheld, the same writes go as they come (group commit only joins writes of one turn)", async () => {
    const w = await writerOf(3);
    for (let i = 0; i < 3; i++) {
      await w.write(i);
      await turn();
    }
    assert.equal(w.batches(), 3);
  });

  it("a hold keeps a write back HOLD_MS at most, however many wait; a batch takes MAX_HELD writes at most", async () => {
    const w = await writerOf(2 * MAX_HELD + 2);
    const release = w.writer.hold();
    const first = w.write(0);
    await w.clock.advance(HOLD_MS - 1);
    await turn();
    assert.equal(w.batches(), 0);
    await w.clock.advance(1);
    assert.equal(await first, true, "written HOLD_MS after it arrived, hold or not");
    // More than MAX_HELD writes while held: none goes before the hold ends (the node is
    // still starting runs), then they go in batches of at most MAX_HELD.
    const sizes: number[] = [];
    const updateMany = w.store.updateMany.bind(w.store);
    w.store.updateMany = (writes) => {
      sizes.push(writes.length);
      return updateMany(writes);
    };
    const many = Array.from({ length: 2 * MAX_HELD + 1 }, (_, i) => w.write(i + 1));
    await turn();
    await w.clock.advance(HOLD_MS - 1);
    await turn();
    assert.deepEqual(sizes, [], "held, not sent at MAX_HELD");
    release();
    assert.ok((await Promise.all(many)).every(Boolean));
    assert.deepEqual(sizes, [MAX_HELD, MAX_HELD]);
    assert.equal(w.store.calls["update"], 2, "the first write and the last one, each alone");
  });

  it("holds nest: the writes wait for the last release", async () => {
    const w = await writerOf(2);
    const a = w.writer.hold();
    const b = w.writer.hold();
    const writes = [w.write(0), w.write(1)];
    a();
    a();
    await turn();
    assert.equal(w.batches(), 0, "one hold left (a second release of the same hold counts once)");
    b();
    await Promise.all(writes);
    assert.equal(w.batches(), 1);
  });

  it("a minute queued behind the capacity writes its outcomes in a few transactions, not one per settling wave", async () => {
    const store = faultyStore();
    const s = setup({ store, start: T0 - MIN + 1, concurrency: 4 });
    for (let i = 0; i < 60; i++) s.scheduler.job(`j${i}`, { schedule: "* * * * *", run: () => {} });
    await tickAt(s, T0 - MIN + 1);
    const report = await tickAt(s, T0);
    assert.equal(Object.values(report.jobs).filter((r) => r.outcomes[T0] === "ok").length, 60);
    const writes = (store.calls["updateMany"] ?? 0) + (store.calls["update"] ?? 0);
    assert.ok(writes <= 2, `60 outcomes in ${writes} writes`);
  });
});

describe("outcome writes: listeners", () => {
  it("a write given up whose listener throws is logged, the others of its batch are still heard, and later writes go on", async () => {
    const store = faultyStore();
    const clock = createManualClock(T0);
    for (const job of ["a", "b", "c"]) await store.claim([request(job, T0)]);
    const log = memoryLogger();
    const writer = createOutcomeWriter({ store, clock, log, maxWaitMs: 1_000, sleep: async () => {} });
    const heard: string[] = [];
    /** Resolves once `n` writes were heard. */
    const waiters: { n: number; resolve: () => void }[] = [];
    const heardAll = (n: number) => new Promise<void>((resolve) => waiters.push({ n, resolve }));
    const pending = (job: string, throws: boolean) => ({
      key: { job, slot: T0, attempt: 1, node: "node-a" },
      patch: { status: "ok" as const, finishedAt: T0 },
      // No longer live: the first failed attempt gives the write up.
      live: () => false,
      recorded: (recorded: boolean) => void heard.push(`${job} recorded ${recorded}`),
      failed: () => {
        heard.push(`${job} failed`);
        for (const w of waiters) if (heard.length >= w.n) w.resolve();
        if (throws) throw new Error(`listener of ${job}`);
      },
    });
    // Alone (one update), then in a batch (an updateMany, then each write on its own): all fail.
    store.failNext("update", 10);
    store.failNext("updateMany", 1);
    const first = heardAll(1);
    writer.send(pending("a", true));
    await first;
    const rest = heardAll(3);
    const release = writer.hold();
    writer.send(pending("b", true));
    writer.send(pending("c", false));
    release();
    await rest;
    assert.deepEqual(heard.sort(), ["a failed", "b failed", "c failed"]);
    // The writer still works once the store does (its flush ended: no rejection left unheard).
    const recorded = await writer.write(
      { job: "c", slot: T0, attempt: 1, node: "node-a" },
      { status: "ok" },
      () => true,
    );
    assert.equal(recorded, true);
    assert.equal(log.lines.filter((l) => /giving up the outcome of job "(a|b)" failed/.test(l)).length, 2);
  });
});
