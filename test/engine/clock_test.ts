import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createManualClock } from "../../src/engine/clock.ts";

const T0 = Date.UTC(2030, 0, 1);

describe("createManualClock", () => {
  it("fires due timers in order, each at its own instant", async () => {
    const clock = createManualClock(T0);
    const fired: [string, number][] = [];
    clock.setTimeout(() => fired.push(["b", clock.now()]), 200);
    clock.setTimeout(() => fired.push(["a", clock.now()]), 100);
    clock.setTimeout(() => fired.push(["c", clock.now()]), 300);
    await clock.advance(250);
    assert.deepEqual(fired, [["a", T0 + 100], ["b", T0 + 200]]);
    assert.equal(clock.now(), T0 + 250);
    assert.deepEqual(clock.pending().map((t) => t.at), [T0 + 300]);
  });

  it("fires timers set by timers and by promise callbacks within the same advance", async () => {
    const clock = createManualClock(T0);
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(clock.now());
      void Promise.resolve().then(() => clock.setTimeout(() => fired.push(clock.now()), 50));
    }, 10);
    await clock.advance(100);
    assert.deepEqual(fired, [T0 + 10, T0 + 60]);
  });

  it("clearTimeout cancels, and set() refuses to go back", async () => {
    const clock = createManualClock(new Date(T0));
    let fired = false;
    const handle = clock.setTimeout(() => (fired = true), 10);
    clock.clearTimeout(handle);
    await clock.set(T0 + 20);
    assert.equal(fired, false);
    await assert.rejects(clock.set(T0), RangeError);
    await assert.rejects(clock.advance(-1), RangeError);
  });

  it("lets an awaited chain finish before the next timer fires", async () => {
    const clock = createManualClock(T0);
    const order: string[] = [];
    clock.setTimeout(async () => {
      await Promise.resolve();
      await Promise.resolve();
      order.push("chain");
    }, 10);
    clock.setTimeout(() => order.push("second"), 20);
    await clock.advance(20);
    assert.deepEqual(order, ["chain", "second"]);
  });
});
