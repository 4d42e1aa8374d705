// pauseOnFailure: n consecutive error/timeout runs, counted from the store across nodes, pause the job.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { failedInARow } from "../../../src/engine/run/failures.ts";
import type { RunRecord } from "../../../src/store/types.ts";
import { MIN, ofType, setup, T0 } from "../_helpers.ts";

describe("pauseOnFailure", () => {
  it("pauses after n consecutive failures spread over two nodes, with the note and a paused event", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a", start: T0 - MIN + 1 }); // registered just after a minute: no slot of its own
    const b = setup({ store, node: "b", clock: a.clock });
    const outcomes = ["ok", "fail", "fail", "fail"];
    let call = 0;
    for (const s of [a, b]) {
      s.scheduler.job("j", {
        schedule: "* * * * *",
        pauseOnFailure: 3,
        run: () => {
          if (outcomes[call++] === "fail") throw new Error("boom");
        },
      });
    }
    await a.scheduler.tick();
    for (let k = 0; k < 4; k++) {
      await a.clock.set(T0 + k * MIN);
      await (k % 2 === 0 ? a : b).scheduler.tick();
      const paused = (await a.scheduler.get("j"))?.paused;
      assert.equal(paused, k === 3, `after run ${k + 1}`);
    }
    const info = await b.scheduler.get("j");
    assert.deepEqual(info?.pause, {
      note: "paused after 3 consecutive failures",
      at: T0 + 3 * MIN,
      by: "pauseOnFailure",
    });
    assert.deepEqual(ofType(b.events, "paused"), [{
      type: "paused",
      job: "j",
      reason: "paused after 3 consecutive failures",
      by: "pauseOnFailure",
    }]);
    // Paused: the next slot does not run.
    await a.clock.set(T0 + 4 * MIN);
    await a.scheduler.tick();
    assert.equal(call, 4);
  });

  it("a bufferAll job paused by its failures starts no buffered slot until it is resumed", async () => {
    const s = setup({ start: T0 - MIN + 1 }); // registered just after a minute: no slot of its own
    let calls = 0;
    let fail: (e: Error) => void = () => {};
    s.scheduler.job("j", {
      schedule: "* * * * *",
      overlap: "bufferAll",
      pauseOnFailure: 1,
      run: () => {
        calls++;
        return calls === 1 ? new Promise<void>((_, reject) => (fail = reject)) : undefined;
      },
    });
    await s.scheduler.tick();
    await s.clock.set(T0);
    const first = s.scheduler.tick();
    await s.clock.settle();
    await s.clock.set(T0 + MIN);
    await s.scheduler.tick();
    fail(new Error("boom"));
    await first;
    assert.equal(calls, 1);
    assert.equal((await s.store.getRun("j", T0 + MIN))?.status, "buffered");
    assert.equal((await s.scheduler.get("j"))?.pause?.by, "pauseOnFailure");
    await s.scheduler.resume("j");
    await s.clock.set(T0 + MIN + 30_000);
    await s.scheduler.tick();
    assert.equal(calls, 2);
    assert.equal((await s.store.getRun("j", T0 + MIN))?.status, "ok");
  });

  it("a success, or fewer than n runs, never pauses; skipped and missed rows neither count nor break the streak", () => {
    const row = (status: string): RunRecord => ({
      job: "j",
      slot: 0,
      kind: "scheduled",
      status: status as RunRecord["status"],
      attempt: 1,
      node: "a",
      claimedAt: 0,
      startedAt: 0,
      finishedAt: 0,
      leaseUntil: null,
      error: null,
    });
    assert.equal(failedInARow(["error", "skipped", "timeout", "missed", "error"].map(row), 3), true);
    assert.equal(failedInARow(["error", "ok", "error", "error"].map(row), 3), false);
    assert.equal(failedInARow(["error", "error"].map(row), 3), false);
    assert.equal(failedInARow(["error", "abandoned", "error"].map(row), 2), false);
  });

  it("refuses a pauseOnFailure outside 1-1000 naming the field", () => {
    const s = setup();
    assert.throws(
      () => s.scheduler.job("j", { schedule: "* * * * *", pauseOnFailure: 0, run: () => {} }),
      /jobs\.j\.pauseOnFailure: expected a whole number 1-1000/,
    );
  });
});
