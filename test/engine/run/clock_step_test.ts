// A node's clock stepped forward (NTP, a VM migration) must never make it reap and re-run
// a lease it holds and is still renewing.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createManualClock, type ManualClock } from "../../../src/engine/clock.ts";
import { MIN, ofType, rows, SEC, setup, T0 } from "../_helpers.ts";

/** A manual clock whose `now()` can be stepped without firing timers (timers are monotonic). */
function steppable(start: number): { clock: ManualClock; step(ms: number): void } {
  const base = createManualClock(start);
  let offset = 0;
  return { clock: { ...base, now: () => base.now() + offset }, step: (ms) => void (offset += ms) };
}

describe("a clock stepped forward", () => {
  for (const first of ["tick", "heartbeat"] as const) {
    it(`10 min ahead, the ${first} first: the node's own live run is not reaped, and no second attempt starts beside it`, async () => {
      const { clock, step } = steppable(T0 - MIN);
      const s = setup({ clock, node: "a" });
      const live: number[] = [];
      let concurrent = 0;
      s.scheduler.job("skip", {
        schedule: "0 0 1 1 *",
        overlap: "skip",
        retries: { attempts: 2 },
        // Ignores its signal: it stops only when its 30 s of work are done.
        run: (ctx) => {
          live.push(ctx.attempt);
          if (live.length > 1) concurrent++;
          return new Promise<void>((resolve) =>
            void clock.setTimeout(() => {
              live.splice(live.indexOf(ctx.attempt), 1);
              resolve();
            }, 30 * SEC)
          );
        },
      });
      await s.scheduler.tick(T0 - MIN);
      await clock.set(T0);
      const running = s.scheduler.tick();
      await clock.advance(2 * SEC);
      assert.deepEqual(live, [1]);
      step(10 * MIN);
      if (first === "heartbeat") await clock.advance(5 * SEC);
      const after = s.scheduler.tick();
      await clock.advance(40 * SEC);
      await after;
      await running;
      assert.equal(concurrent, 0, "no attempt ran beside another");
      assert.equal(ofType(s.events, "abandoned").length, 0, "the node never reaped its own live run");
      assert.deepEqual(ofType(s.events, "started").map((e) => e.attempt), [1]);
      const [row] = await rows(s.store, "skip");
      assert.deepEqual([row!.slot, row!.attempt, row!.status === "running"], [T0, 1, false]);
    });
  }
});
