import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cron, jitterDelay, SchedulerError } from "../../../src/core/mod.ts";

describe("jitterDelay", () => {
  it("10 000 slots: offsets in [0, min(jitter, 0.9 × gap)), mean within 5% of half the range", () => {
    // An irregular schedule: gaps of 5, 10 and 45 minutes, so the 90% cap binds on some slots.
    const s = cron("0,5,15 * * * *", { timezone: "Europe/Berlin" });
    const jitter = 8 * 60_000;
    const slots = s.nextRuns(Date.UTC(2027, 0, 1), 10_001);
    let sumRatio = 0;
    let capped = 0;
    for (let i = 0; i < 10_000; i++) {
      const slot = slots[i]!, gap = slots[i + 1]! - slot;
      const range = Math.min(jitter, 0.9 * gap);
      if (range < jitter) capped++;
      const d = jitterDelay("report", slot, jitter, gap);
      assert.ok(Number.isInteger(d) && d >= 0 && d < range, `slot ${slot}: ${d} outside [0, ${range})`);
      sumRatio += d / range;
    }
    assert.ok(capped > 3000, "the cap must bind on the 5-minute gaps");
    const mean = sumRatio / 10_000;
    assert.ok(Math.abs(mean - 0.5) < 0.025, `mean offset ${mean} of the range, expected 0.5 ± 5%`);
  });

  it("is a function of the key and the slot only", () => {
    const a = jitterDelay("nightly", Date.UTC(2027, 5, 1), 3_600_000, 86_400_000);
    assert.equal(jitterDelay("nightly", Date.UTC(2027, 5, 1), 3_600_000, 86_400_000), a);
    const others = [
      jitterDelay("nightly2", Date.UTC(2027, 5, 1), 3_600_000, 86_400_000),
      jitterDelay("nightly", Date.UTC(2027, 5, 2), 3_600_000, 86_400_000),
    ];
    assert.ok(others.some((d) => d !== a), "another key or slot must move the delay");
  });

  it("is 0 without a range, and below 1 ms ranges give 0", () => {
    assert.equal(jitterDelay("k", 0, 0, 60_000), 0);
    assert.equal(jitterDelay("k", 0, 60_000, 0), 0);
    assert.equal(jitterDelay("k", 0, 1, 60_000), 0);
    assert.ok(jitterDelay("k", 0, 60_000, Infinity) < 60_000);
  });

  it("spreads a midnight stampede: 1 000 jobs over a 10-minute jitter use most of the range", () => {
    const slot = Date.UTC(2027, 0, 1);
    const minutes = new Set<number>();
    for (let i = 0; i < 1000; i++) minutes.add(Math.floor(jitterDelay(`job-${i}`, slot, 600_000, 86_400_000) / 60_000));
    assert.equal(minutes.size, 10);
  });

  it("refuses a jitter that is not a finite number (Infinity with no next slot gave a delay of Infinity)", () => {
    for (const jitter of [Infinity, NaN, "10m"]) {
      assert.throws(
        () => jitterDelay("job", 0, jitter as number, Infinity),
        (e: unknown) => e instanceof SchedulerError && e.code === "invalid-duration",
      );
    }
    assert.equal(jitterDelay("job", 0, -5, Infinity), 0);
    assert.ok(jitterDelay("job", 0, 600_000, Infinity) < 600_000);
  });
});
