import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { AHEAD_MS, createRunQueue } from "../../../src/engine/tick/queue.ts";
import { STARTS_PER_TURN } from "../../../src/engine/tick/turn.ts";
import { createRunTracker } from "../../../src/engine/run/tracker.ts";
import { deferred, MIN, setup, T0 } from "../_helpers.ts";
import { createManualClock } from "../../../src/engine/clock.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";

/** A queue over a real tracker with a hand-set time; each pushed run waits for its gate. */
function queueOf(concurrency: number) {
  let now = 0;
  const tracker = createRunTracker();
  const queue = createRunQueue({ tracker, concurrency, now: () => now });
  const started: number[] = [];
  const gates: (() => void)[] = [];
  // Resolves once the run settled (after the tracker heard of it) or was dropped.
  const push = (id: number): Promise<void> =>
    new Promise<void>((done) =>
      queue.push({
        start: (pace, startedAt) => {
          started.push(id);
          const gate = deferred();
          gates[id] = gate.resolve;
          void tracker.track(gate.promise.then(() => pace.ran(startedAt)), `job-${id}`).then(done);
        },
        drop: async () => {
          started.push(-id);
          done();
        },
      })
    );
  return { queue, tracker, started, gates, push, at: (t: number) => void (now = t) };
}

describe("the run queue", () => {
  it("starts queued runs in order, never more than `concurrency` at once", async () => {
    const q = queueOf(2);
    const done = [1, 2, 3, 4].map((id) => q.push(id));
    assert.deepEqual(q.started, [1, 2]);
    assert.equal(q.queue.length, 2);
    q.gates[2]!();
    await new Promise((r) => setTimeout(r, 0));
    assert.deepEqual(q.started, [1, 2, 3], "a settled run makes room for the next in line");
    assert.equal(q.tracker.running, 2);
    for (const id of [1, 3, 4]) {
      q.gates[id]!();
      await new Promise((r) => setTimeout(r, 0));
    }
    await Promise.all(done);
    assert.deepEqual(q.started, [1, 2, 3, 4]);
  });

  it("a burst larger than a turn's starts holds outcome writes from its first yield until the queue is empty", async () => {
    // Runs that settle at once (no-op handlers): a burst of STARTS_PER_TURN + 44 pushed in one go.
    let holds = 0;
    let released = 0;
    const tracker = createRunTracker();
    const queue = createRunQueue({
      tracker,
      concurrency: 10_000,
      now: () => 0,
      hold: () => {
        holds++;
        return () => void released++;
      },
    });
    const pushed: Promise<void>[] = [];
    for (let i = 0; i < STARTS_PER_TURN + 44; i++) {
      pushed.push(
        new Promise<void>((done) =>
          queue.push({
            start: (pace, at) => void tracker.track(Promise.resolve().then(() => pace.ran(at)), `j${i}`).then(done),
            drop: async () => done(),
          })
        ),
      );
    }
    // The first STARTS_PER_TURN started at once; the rest wait for the next turn. The
    // first runs' outcomes are written in the microtasks before it: held, not sent.
    assert.equal(queue.length, 44);
    assert.equal(holds, 1, "held while runs wait, from the yield on");
    await Promise.all(pushed);
    assert.equal(queue.length, 0);
    assert.equal(released, 1, "released once the queue is empty");
  });

  it("claims no further than the free capacity until a run was timed, then about AHEAD_MS of work at that pace", async () => {
    const q = queueOf(10);
    assert.equal(q.queue.budget(), 10, "no pace known: the free capacity only");
    const run = q.push(1);
    q.at(50); // the run takes 50 ms
    q.gates[1]!();
    await run;
    assert.equal(q.queue.ahead(), Math.floor((10 * AHEAD_MS) / 50));
    assert.equal(q.queue.budget(), 10 + 200);
  });

  it("claims nothing ahead while every run is busy and none settled for AHEAD_MS (long handlers)", async () => {
    const q = queueOf(1);
    const first = q.push(1);
    q.at(10);
    q.gates[1]!();
    await first;
    void q.push(2); // a long run holds the only slot
    assert.equal(q.queue.budget(), 100, "a run settled just now: the pace still holds");
    q.at(10 + AHEAD_MS + 1);
    assert.equal(q.queue.budget(), 0, "nothing settles: claim nothing that could not start");
  });

  it("drop() gives every queued run back and starts none of them", async () => {
    const q = queueOf(1);
    void q.push(1);
    const rest = [q.push(2), q.push(3)];
    await q.queue.drop();
    await Promise.all(rest);
    assert.deepEqual(q.started, [1, -2, -3]);
    assert.equal(q.queue.length, 0);
  });
});

describe("queued claims when their node stalls", () => {
  it("a node paused past the lease never starts its queued claims: another node reaps them and runs each once", async () => {
    const store = createMemoryStore();
    const clockA = createManualClock(T0 - MIN + 1);
    const clockB = createManualClock(T0 - MIN + 1);
    const a = setup({ clock: clockA, store, node: "a", concurrency: 1, defaults: { retries: { attempts: 2 } } });
    const b = setup({ clock: clockB, store, node: "b", concurrency: 5, defaults: { retries: { attempts: 2 } } });
    const ran: string[] = [];
    const hold = deferred();
    for (const s of [a, b]) {
      for (const name of ["j1", "j2", "j3"]) {
        s.scheduler.job(name, {
          schedule: "* * * * *",
          run: async (ctx) => {
            ran.push(`${s === a ? "a" : "b"}:${ctx.job}@${ctx.slot}#${ctx.attempt}`);
            if (s === a) await hold.promise;
          },
        });
      }
    }
    await a.scheduler.tick(T0 - MIN + 1);
    // a claims the minute alone (b has never ticked): one run in flight, two queued.
    await clockA.set(T0);
    const ticked = a.scheduler.tick(T0);
    await clockA.advance(1);
    assert.equal(ran.length, 1);
    const queued = ["j1", "j2", "j3"].filter((n) => !ran[0]!.includes(`:${n}@`));
    // a is paused (its timers do not fire); b's clock runs on past a's leases.
    await clockB.set(T0 + 10 * MIN);
    const report = await b.scheduler.tick(T0 + 10 * MIN);
    for (const name of queued) {
      assert.deepEqual(report.jobs[name]?.abandoned, [T0], `${name}: b records the queued slot abandoned`);
    }
    for (const name of ["j1", "j2", "j3"]) {
      assert.ok(ran.includes(`b:${name}@${T0}#2`), `b re-runs ${name}'s slot a held (attempt 2)`);
    }
    // a resumes: its clock jumps too; it must not start what it no longer holds.
    await clockA.set(T0 + 10 * MIN + 1);
    hold.resolve();
    await clockA.advance(10);
    await ticked;
    for (const name of ["j1", "j2", "j3"]) {
      const runsOfSlot = ran.filter((r) => r.includes(`:${name}@${T0}#`));
      const byA = runsOfSlot.filter((r) => r.startsWith("a:"));
      assert.ok(byA.length <= 1, `${name}: a started it at most once`);
      if (queued.includes(name)) {
        assert.equal(byA.length, 0, `${name}: a never started its queued claim after the pause`);
      }
    }
  });
});

describe("capacity counts handlers", () => {
  it("a run whose outcome write waits on the store no longer holds capacity: queued slots start", async () => {
    const store = createMemoryStore();
    const release = deferred();
    const { updateMany, update } = store;
    // Every outcome write waits until released (a store slow to write, a busy file).
    store.updateMany = async (writes) => {
      await release.promise;
      return updateMany(writes);
    };
    store.update = async (key, patch) => {
      if (patch.status !== undefined) await release.promise;
      return update(key, patch);
    };
    const s = setup({ start: T0 - MIN + 1, concurrency: 2, store });
    let live = 0;
    let peak = 0;
    const ran: string[] = [];
    for (const name of ["a", "b", "c", "d", "e", "f"]) {
      s.scheduler.job(name, {
        schedule: "* * * * *",
        run: async (ctx) => {
          ran.push(ctx.job);
          peak = Math.max(peak, ++live);
          await Promise.resolve();
          live--;
        },
      });
    }
    await s.scheduler.tick(T0 - MIN + 1);
    await s.clock.set(T0);
    const ticked = s.scheduler.tick(T0);
    for (let i = 0; i < 20 && ran.length < 6; i++) await new Promise((r) => setTimeout(r, 1));
    assert.equal(ran.length, 6, "every handler ran while the outcome writes waited");
    assert.ok(peak <= 2, `at most 2 handlers at once, saw ${peak}`);
    release.resolve();
    const report = await ticked;
    assert.ok(Object.values(report.jobs).every((r) => r.outcomes[T0] === "ok"), "every outcome recorded once released");
  });
});
