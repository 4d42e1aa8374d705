// Adversarial: delays longer than a host timer can hold (a 30-day timeout, a retry
// backoff doubled many times) must neither fire at once nor overflow a lease.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { systemClock } from "../../src/engine/clock.ts";
import { ofType, rows, setup, T0, tickAt } from "./_helpers.ts";

const DAY = 86_400_000;
const MAX = 2_147_483_647;

describe("adversarial: long delays", () => {
  it("systemClock() waits a delay beyond 2^31-1 ms in steps instead of firing it at once", () => {
    const real = { set: globalThis.setTimeout, clear: globalThis.clearTimeout, now: Date.now };
    const armed: { fn: () => void; ms: number; id: number }[] = [];
    const cleared: number[] = [];
    let now = T0;
    let fired = 0;
    try {
      globalThis.setTimeout = ((fn: () => void, ms: number) =>
        armed.push({ fn, ms, id: armed.length + 1 })) as unknown as typeof setTimeout;
      globalThis.clearTimeout = ((id: number) => void cleared.push(id)) as unknown as typeof clearTimeout;
      Date.now = () => now;
      const clock = systemClock();
      const handle = clock.setTimeout(() => fired++, 30 * DAY);
      assert.deepEqual(armed.map((t) => t.ms), [MAX]);
      now += MAX;
      armed[0]!.fn();
      assert.equal(fired, 0);
      assert.deepEqual(armed.map((t) => t.ms), [MAX, 30 * DAY - MAX]);
      clock.clearTimeout(handle);
      assert.deepEqual(cleared, [2]);
      now += 30 * DAY - MAX;
      armed[1]!.fn();
      assert.equal(fired, 1);
      clock.setTimeout(() => {}, 5);
      assert.equal(armed.at(-1)!.ms, 5);
    } finally {
      globalThis.setTimeout = real.set;
      globalThis.clearTimeout = real.clear;
      Date.now = real.now;
    }
  });

  it("a backoff doubled past the longest timer is capped: leases stay valid instants and no store-error is reported", async () => {
    const s = setup({ start: T0 - 1 });
    const attempts: number[] = [];
    s.scheduler.job("stubborn", {
      schedule: { at: T0 },
      retries: { attempts: 41, backoff: "1d" },
      run: (ctx) => {
        attempts.push(ctx.attempt);
        throw new Error("nope");
      },
    });
    await tickAt(s, T0 - 1);
    await s.clock.set(T0);
    const pending = s.scheduler.tick();
    for (let i = 0; i < 41; i++) await s.clock.advance(25 * DAY);
    await pending;
    assert.equal(attempts.length, 41);
    assert.equal(ofType(s.events, "store-error").length, 0);
    const [row] = await rows(s.store, "stubborn");
    assert.deepEqual([row!.status, row!.attempt], ["error", 41]);
  });
});
