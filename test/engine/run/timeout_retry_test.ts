// A timeout longer than the lease, on a store whose writes (renewals, the retry's lease
// write) take 5 or 300 ms: the attempt is renewed up to its timeout, timed out there, and
// retried. Before the fix for the fence at the timeout's cap, all four cases ended `lost`
// or `error` instead of retrying.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createManualClock } from "../../../src/engine/clock.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { firstAttemptHangs, MIN, ofType, rows, SEC, setup, slowed, T0, tickAt } from "../_helpers.ts";

describe("a 40 s timeout (longer than the lease) on a slow store", () => {
  for (const delay of [5, 300]) {
    for (const honours of [false, true]) {
      const how = honours ? "a handler that honours its signal" : "a hanging handler";
      it(`times out at 40 s and retries: ${how}, store writes of ${delay} ms`, async () => {
        const store = createMemoryStore();
        const clock = createManualClock(T0);
        slowed(store, clock, delay, ["update", "renew"]);
        const s = setup({ store, clock });
        const attempts: [number, number][] = [];
        s.scheduler.job("slow", {
          schedule: "0 0 1 1 *",
          timeout: "40s",
          retries: { attempts: 2, backoff: "1s" },
          run: firstAttemptHangs(honours, (ctx) => void attempts.push([ctx.attempt, clock.now()])),
        });
        await tickAt(s, T0 + 1);
        const pending = s.scheduler.run("slow");
        await clock.advance(2 * MIN);
        const r = await pending;
        assert.deepEqual(r.ok && r.outcome, "ok", JSON.stringify(r));
        assert.deepEqual(attempts.map((a) => a[0]), [1, 2]);
        assert.deepEqual(ofType(s.events, "timed-out").map((e) => [e.attempt, e.willRetry]), [[1, true]]);
        assert.deepEqual(ofType(s.events, "lost"), []);
        assert.ok(
          attempts[1]![1] - attempts[0]![1] >= 41 * SEC && attempts[1]![1] - attempts[0]![1] < 43 * SEC,
          String(attempts[1]![1] - attempts[0]![1]),
        );
        const all = await rows(store, "slow");
        assert.equal(all.at(-1)?.status, "ok");
      });
    }
  }
});
