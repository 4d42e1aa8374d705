// `claimAhead`: timer mode claims a slot that long before it and starts the runs won at
// the slot. Claims made ahead stay exactly-once beside nodes that claim when due, leave a
// job with a run in flight to the tick at its slot, and are released when the node stops.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../../src/core/errors.ts";
import { createManualClock } from "../../../src/engine/clock.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { faultyStore } from "../_faulty.ts";
import { claimTurn } from "../../../src/engine/tick/rounds.ts";
import { MIN, rows, SEC, setup, T0 } from "../_helpers.ts";

describe("claimAhead", () => {
  it("claims the minute's slots 2 s before it and starts their runs at the slot, not before", async () => {
    const s = setup({ start: T0 + 1, claimAhead: "2s" });
    const starts: { job: string; slot: number; at: number }[] = [];
    for (const job of ["a", "b", "c"]) {
      s.scheduler.job(job, {
        schedule: "* * * * *",
        run: (ctx) => void starts.push({ job, slot: ctx.slot, at: s.clock.now() }),
      });
    }
    s.scheduler.start();
    await s.clock.settle();
    // The first tick registered the jobs at T0 + 1; the timer wakes 2 s before the next slot.
    assert.equal(s.clock.pending()[0]!.at, T0 + MIN - 2 * SEC);
    await s.clock.set(T0 + MIN - 2 * SEC);
    await s.clock.set(T0 + MIN - 1);
    for (const job of ["a", "b", "c"]) {
      const [row] = await rows(s.store, job);
      assert.equal(row?.slot, T0 + MIN, job);
      assert.equal(row?.status, "running", job);
      assert.equal(row?.node, s.scheduler.node, job);
    }
    assert.equal(starts.length, 0);
    await s.clock.set(T0 + MIN);
    assert.deepEqual(starts.map((r) => [r.job, r.slot, r.at]), [
      ["a", T0 + MIN, T0 + MIN],
      ["b", T0 + MIN, T0 + MIN],
      ["c", T0 + MIN, T0 + MIN],
    ]);
    // Claimed once: the slot's own time brings no second tick; the next wake is the next minute's lead.
    await s.clock.settle();
    assert.equal(s.clock.pending().find((t) => t.at > T0 + MIN)?.at, T0 + 2 * MIN - 2 * SEC);
    await s.clock.set(T0 + 2 * MIN);
    assert.equal(starts.length, 6);
    for (const job of ["a", "b", "c"]) {
      assert.deepEqual((await rows(s.store, job)).map((r) => [r.slot, r.status]), [[T0 + MIN, "ok"], [
        T0 + 2 * MIN,
        "ok",
      ]]);
    }
    await s.scheduler.stop();
  });

  it("runs every slot once beside a node that claims when due, on one store", async () => {
    const store = createMemoryStore();
    const a = setup({ start: T0 + 1, store, node: "a", claimAhead: "3s" });
    const b = setup({ store, node: "b", clock: a.clock });
    const ran = new Map<string, number>();
    for (const s of [a, b]) startCounted(s, 30, ran);
    await a.clock.set(T0 + 3 * MIN + 10 * SEC);
    assert.equal(ran.size, 30 * 3);
    assert.ok([...ran.values()].every((n) => n === 1), JSON.stringify([...ran].filter(([, n]) => n !== 1)));
    // The node claiming ahead took every slot: the other found them claimed at their time.
    const nodes = new Set<string>();
    for (let i = 0; i < 30; i++) for (const row of await rows(store, `job-${i}`)) nodes.add(row.node);
    assert.deepEqual([...nodes], ["a"]);
    await a.scheduler.stop();
    await b.scheduler.stop();
  });

  it("leaves a job with a run in flight to the tick at its slot, where its overlap is decided", async () => {
    const s = setup({ start: T0 + 1, claimAhead: "2s" });
    const slots: number[] = [];
    s.scheduler.job("long", {
      schedule: "* * * * *",
      overlap: "skip",
      // The first run ends 59 s after its slot: in flight when the next slot is claimed
      // ahead (58 s), over when it comes (60 s).
      run: (ctx) => {
        slots.push(ctx.slot);
        if (ctx.slot === T0 + MIN) return new Promise<void>((resolve) => s.clock.setTimeout(() => resolve(), 59 * SEC));
      },
    });
    s.scheduler.start();
    await s.clock.set(T0 + 2 * MIN + 1);
    assert.deepEqual(slots, [T0 + MIN, T0 + 2 * MIN]);
    assert.deepEqual((await rows(s.store, "long")).map((r) => r.status), ["ok", "ok"]);
    await s.scheduler.stop();
  });

  it("stop() while waiting for a slot claimed ahead waits for the slot and runs the claims made ahead, then ends", async () => {
    // The claims made ahead were released at the stop: a rolling restart in the lead
    // recorded the node's share `abandoned`, and a job without retries never ran it.
    const s = setup({ start: T0 + 1, claimAhead: "5s" });
    const ran: number[] = [];
    s.scheduler.job("a", { schedule: "* * * * *", run: (ctx) => void ran.push(ctx.slot, s.clock.now()) });
    s.scheduler.start();
    await s.clock.set(T0 + MIN - 4 * SEC);
    assert.equal((await rows(s.store, "a"))[0]?.status, "running");
    let stopped = false;
    const stopping = s.scheduler.stop().then(() => void (stopped = true));
    await s.clock.set(T0 + MIN - 1);
    assert.equal(stopped, false, "stop() waits for the slot claimed ahead");
    assert.deepEqual(ran, []);
    await s.clock.set(T0 + MIN);
    await stopping;
    assert.deepEqual(ran, [T0 + MIN, T0 + MIN], "started at its slot, not before");
    assert.deepEqual((await rows(s.store, "a")).map((r) => [r.slot, r.status]), [[T0 + MIN, "ok"]]);
    // Stopped: nothing more is claimed, ahead or when due.
    await s.clock.set(T0 + 3 * MIN);
    assert.equal((await rows(s.store, "a")).length, 1);
  });

  it("stop() with a grace shorter than the wait for the slot releases the claims made ahead at the grace; none starts", async () => {
    const s = setup({ start: T0 + 1, claimAhead: "5s" });
    let ran = 0;
    s.scheduler.job("a", { schedule: "* * * * *", run: () => void ran++ });
    s.scheduler.start();
    await s.clock.set(T0 + MIN - 4 * SEC);
    const stopping = s.scheduler.stop({ grace: "1s" });
    await s.clock.set(T0 + MIN - 3 * SEC);
    await stopping;
    assert.equal(s.clock.pending().filter((t) => t.at <= T0 + MIN).length, 0);
    // Released: its lease ends now, so any node's next tick records it (as for a queued claim at a stop).
    const [row] = await rows(s.store, "a");
    assert.ok(row!.leaseUntil !== null && row!.leaseUntil <= s.clock.now(), JSON.stringify(row));
    await s.clock.set(T0 + MIN + SEC);
    assert.equal(ran, 0);
  });

  it("started again while a stop waits for a slot claimed ahead, the node runs that slot and the ones after", async () => {
    // The stop's grace ended before the slot, and the stop then let the new start's claims
    // go: this slot's at the grace, the next minute's at its lead, neither run.
    const s = setup({ start: T0 + 1, claimAhead: "5s" });
    const starts: number[] = [];
    s.scheduler.job("a", { schedule: "* * * * *", run: (ctx) => void starts.push(ctx.slot) });
    s.scheduler.start();
    await s.clock.set(T0 + MIN - 4 * SEC);
    const stopping = s.scheduler.stop({ grace: "2s" });
    s.scheduler.start();
    await s.clock.set(T0 + MIN);
    await stopping;
    assert.deepEqual(starts, [T0 + MIN]);
    await s.clock.set(T0 + 2 * MIN);
    assert.deepEqual(starts, [T0 + MIN, T0 + 2 * MIN]);
    assert.deepEqual((await rows(s.store, "a")).map((r) => r.status), ["ok", "ok"]);
    assert.equal((await s.scheduler.health()).running, true);
    await s.scheduler.stop({ grace: 0 });
  });

  for (const fails of [false, true]) {
    it(`stop() ends the leases of every claim made ahead in one group write${fails ? " (it fails: each on its own)" : ""}`, async () => {
      // A write per claim made a stop with 5 000 claims waiting take a second on a libSQL file.
      const store = faultyStore();
      const s = setup({ start: T0 + 1, store, claimAhead: "5s" });
      let ran = 0;
      for (let i = 0; i < 40; i++) s.scheduler.job(`job-${i}`, { schedule: "* * * * *", run: () => void ran++ });
      s.scheduler.start();
      await s.clock.set(T0 + MIN - 4 * SEC);
      const many = store.calls["updateMany"] ?? 0, one = store.calls["update"] ?? 0;
      if (fails) store.failNext("updateMany");
      // No grace: the claims made ahead are let go at once.
      await s.scheduler.stop({ grace: 0 });
      assert.equal((store.calls["updateMany"] ?? 0) - many, 1);
      assert.equal((store.calls["update"] ?? 0) - one, fails ? 40 : 0);
      for (let i = 0; i < 40; i++) {
        const [row] = await rows(store, `job-${i}`);
        assert.equal(row?.status, "running");
        assert.equal(row?.leaseUntil, T0 + MIN - 4 * SEC, `job-${i}`);
      }
      await s.clock.set(T0 + MIN + SEC);
      assert.equal(ran, 0);
    });
  }

  it("a data job removed between its claim made ahead and its slot does not run, and its claim is let go", async () => {
    let calls = 0;
    const fetch = (() => {
      calls++;
      return Promise.resolve(new Response("ok"));
    }) as typeof globalThis.fetch;
    const s = setup({ start: T0 + 1, claimAhead: "2s", webhookSecret: "k", fetch });
    await s.scheduler.define("hook", { schedule: "* * * * *", target: { url: "https://example.test/hook" } });
    s.scheduler.start();
    await s.clock.set(T0 + MIN - SEC);
    assert.equal((await rows(s.store, "hook"))[0]?.status, "running", "claimed ahead");
    await s.scheduler.undefine("hook");
    // Several heartbeats later: not started, and not renewed (a claim held by no run would
    // keep its row running for as long as the node lives).
    await s.clock.set(T0 + MIN + 30 * SEC);
    assert.equal(calls, 0);
    const [row] = await rows(s.store, "hook");
    assert.ok(row!.status !== "running" || row!.leaseUntil! <= T0 + MIN, JSON.stringify(row));
    await s.scheduler.stop();
  });

  it("a tick ahead that fails in the lead leaves its slot to an ordinary tick at the slot", async () => {
    // The timer steps the schedules past the slot in the lead (not at the slot, where its
    // runs wait): until the slot comes it must still answer the slot.
    const store = faultyStore();
    const s = setup({ start: T0 + 1, store, claimAhead: "2s" });
    const starts: number[] = [];
    s.scheduler.job("a", { schedule: "* * * * *", run: (ctx) => void starts.push(ctx.slot) });
    s.scheduler.start();
    await s.clock.settle();
    store.failNext("claim");
    await s.clock.set(T0 + MIN - 2 * SEC);
    assert.equal((await rows(store, "a")).length, 0, "the claim made ahead failed");
    assert.equal(s.clock.pending()[0]?.at, T0 + MIN, "re-armed for the slot itself");
    await s.clock.set(T0 + MIN);
    assert.deepEqual(starts, [T0 + MIN]);
    await s.clock.set(T0 + 2 * MIN);
    assert.deepEqual(starts, [T0 + MIN, T0 + 2 * MIN]);
    await s.scheduler.stop();
  });

  it("stopped and started again in the lead, the node still runs the slot", async () => {
    const s = setup({ start: T0 + 1, claimAhead: "5s" });
    const starts: number[] = [];
    // Retries: the claim released at the stop is re-run once its lease has ended.
    s.scheduler.job("a", {
      schedule: "* * * * *",
      retries: { attempts: 2 },
      run: (ctx) => void starts.push(ctx.slot, s.clock.now()),
    });
    s.scheduler.start();
    await s.clock.set(T0 + MIN - 4 * SEC);
    // No grace: the claim made ahead is let go at once.
    await s.scheduler.stop({ grace: 0 });
    s.scheduler.start();
    await s.clock.set(T0 + MIN);
    assert.deepEqual(starts, [T0 + MIN, T0 + MIN], "the slot ran at the slot");
    await s.clock.set(T0 + 2 * MIN);
    assert.deepEqual(starts.slice(2), [T0 + 2 * MIN, T0 + 2 * MIN]);
    await s.scheduler.stop();
  });

  it("nodes that share a large minute take turns to claim it ahead, in name order, all before the slot", async () => {
    const store = createMemoryStore();
    const clock = createManualClock(T0 + 1);
    // When each node's claim calls reach the store, by the clock.
    const calls: { node: string; at: number; slot: number }[] = [];
    const claim = store.claim.bind(store);
    store.claim = (requests) => {
      if (requests.length > 0) calls.push({ node: requests[0]!.node, at: clock.now(), slot: requests[0]!.slot });
      return claim(requests);
    };
    const nodes = ["a", "c", "b"].map((node) => setup({ store, node, clock, claimAhead: "2s", concurrency: 10 }));
    const ran = new Map<string, number>();
    for (const s of nodes) startCounted(s, 60, ran);
    await clock.set(T0 + 3 * MIN + 10 * SEC);
    assert.equal(ran.size, 60 * 3);
    assert.ok([...ran.values()].every((n) => n === 1), JSON.stringify([...ran].filter(([, n]) => n !== 1)));
    // From the third minute each node knows the others and claims its share ahead, in turn:
    // a turn is the 2 s lead over twice the 3 nodes, at most 200 ms.
    const slot = T0 + 3 * MIN;
    const first = (node: string): number | undefined =>
      calls.find((c) => c.node === node && c.slot === slot && c.at < slot)?.at;
    assert.deepEqual(["a", "b", "c"].map(first), [slot - 2 * SEC, slot - 2 * SEC + 200, slot - 2 * SEC + 400]);
    for (const s of nodes) await s.scheduler.stop();
  });

  it("a node stopped while it waits for its turn to claim ahead claims nothing; the others take its share", async () => {
    const store = createMemoryStore();
    const a = setup({ start: T0 + 1, store, node: "a", claimAhead: "2s", concurrency: 10 });
    const b = setup({ store, node: "b", clock: a.clock, claimAhead: "2s", concurrency: 10 });
    const ran = new Map<string, number>();
    for (const s of [a, b]) startCounted(s, 40, ran);
    const slot = T0 + 3 * MIN;
    await a.clock.set(slot - 2 * SEC + 100);
    // b's turn is 2 000 / 4 = 200 ms into the lead, capped at 200 ms: it has claimed nothing yet.
    const theirs = async (node: string): Promise<number> => {
      let n = 0;
      for (let i = 0; i < 40; i++) {
        n += (await rows(store, `job-${i}`)).filter((r) => r.slot === slot && r.node === node).length;
      }
      return n;
    };
    assert.ok((await theirs("a")) > 0);
    assert.equal(await theirs("b"), 0);
    await b.scheduler.stop();
    await a.clock.set(slot + 10 * SEC);
    assert.equal(await theirs("b"), 0, "b claimed nothing after its stop");
    assert.equal([...ran.keys()].filter((k) => k.endsWith(`@${slot}`)).length, 40, "a ran b's share after the slot");
    assert.ok([...ran.values()].every((n) => n === 1));
    await a.scheduler.stop();
  });

  it("refuses a lead the lease cannot cover, and text that is not a duration, naming claimAhead", () => {
    const refused = (claimAhead: unknown, pattern: RegExp): void => {
      assert.throws(
        () => setup({ claimAhead: claimAhead as string }),
        (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && pattern.test(e.message),
      );
    };
    refused("11s", /claimAhead: must be at most lease less heartbeat \(10000ms\), got 11000ms/);
    refused("soon", /claimAhead: expected a duration like "30s", got "soon"/);
    refused(-1, /claimAhead: /);
    assert.doesNotThrow(() => setup({ claimAhead: "10s" }));
    assert.doesNotThrow(() => setup({ claimAhead: "20s", lease: "30s" }));
  });
});

describe('claimAhead: "auto" (the default)', () => {
  /** A node whose store notes when each job's row for `slot` was claimed, by the clock. */
  const watched = (slot: number, options: Parameters<typeof setup>[0] = {}) => {
    const at = new Map<string, number>();
    const store = createMemoryStore();
    const clock = createManualClock(T0 + 1);
    const claim = store.claim.bind(store);
    store.claim = (requests) => {
      for (const r of requests) if (r.slot === slot) at.set(r.job, clock.now());
      return claim(requests);
    };
    return { s: setup({ ...options, store, clock }), at };
  };

  for (const [jobs, ahead] of [[1_000, true], [999, false]] as const) {
    it(`claims a slot ${jobs} jobs share ${ahead ? "2 s ahead" : "when due"}, and runs it at the slot`, async () => {
      const { s, at } = watched(T0 + MIN);
      const ran = new Map<string, number>();
      startCounted(s, jobs, ran);
      // An hourly job beside them: the minutes it shares are no larger for it.
      s.scheduler.job("hourly", { schedule: "0 * * * *", run: () => {} });
      await s.clock.set(T0 + MIN - 1);
      assert.equal(at.size, ahead ? jobs : 0);
      if (ahead) assert.deepEqual(new Set(at.values()), new Set([T0 + MIN - 2 * SEC]));
      assert.equal(ran.size, 0, "nothing starts before its slot");
      await s.clock.set(T0 + MIN);
      assert.equal(ran.size, jobs);
      assert.ok([...ran.values()].every((n) => n === 1));
      if (!ahead) assert.deepEqual(new Set(at.values()), new Set([T0 + MIN]));
      await s.scheduler.stop();
    });
  }

  it("claimAhead: 0 claims a large slot when due; the lead shortens to lease less heartbeat when that is under 2 s", async () => {
    for (const [options, lead] of [[{ claimAhead: 0 }, 0], [{ lease: "1500ms", heartbeat: "500ms" }, 1_000]] as const) {
      const { s, at } = watched(T0 + MIN, options);
      startCounted(s, 1_000, new Map());
      await s.clock.set(T0 + MIN);
      assert.deepEqual(new Set(at.values()), new Set([T0 + MIN - lead]), JSON.stringify(options));
      await s.scheduler.stop();
    }
  });

  it('takes "auto" by name, and refuses other words naming claimAhead', () => {
    assert.doesNotThrow(() => setup({ claimAhead: "auto" }));
    assert.throws(
      () => setup({ claimAhead: "automatic" }),
      (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && /claimAhead: /.test(e.message),
    );
  });
});

describe("claimTurn", () => {
  it("puts each node a turn after the one before it in name order, a turn being the lead over twice the nodes, at most 200 ms", () => {
    // Four nodes, a 2 s lead: 2 000 / 8 = 250, capped at 200.
    assert.deepEqual(
      ["n1", "n2", "n3", "n4"].map((n) => claimTurn(n, ["n1", "n2", "n3", "n4"].filter((o) => o !== n), 0, 2_000)),
      [
        0,
        200,
        400,
        600,
      ],
    );
    // A short lead: 600 / 6 = 100 ms a turn; the last turn begins in the lead's first half.
    assert.equal(claimTurn("c", ["a", "b"], 1_000, 1_600), 1_200);
    // The order is by name, whatever order the others are listed in.
    assert.equal(claimTurn("b", ["c", "a"], 0, 2_000), 200);
  });

  it("lets a node alone, or one whose slot has come, claim at once", () => {
    assert.equal(claimTurn("z", [], 500, 2_000), 500);
    assert.equal(claimTurn("z", ["a"], 2_000, 2_000), 2_000);
  });
});

/** Adds `count` minutely jobs to `s`, each counting its runs per slot into `ran`, and starts it. */
function startCounted(s: ReturnType<typeof setup>, count: number, ran: Map<string, number>): void {
  for (let i = 0; i < count; i++) {
    s.scheduler.job(`job-${i}`, {
      schedule: "* * * * *",
      run: (ctx) => void ran.set(`${ctx.job}@${ctx.slot}`, (ran.get(`${ctx.job}@${ctx.slot}`) ?? 0) + 1),
    });
  }
  s.scheduler.start();
}
