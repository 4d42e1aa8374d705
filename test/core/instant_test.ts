import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { toEpochMs } from "../../src/core/instant.ts";
import { Temporal } from "../../src/core/temporal.ts";
import { assertSchedulerError } from "./_helpers.ts";

describe("toEpochMs()", () => {
  const t = Date.UTC(2026, 2, 8, 7, 0, 0);

  it("accepts epoch ms, Date, Temporal.Instant and ISO text with Z or an offset", () => {
    assert.equal(toEpochMs(t), t);
    assert.equal(toEpochMs(new Date(t)), t);
    assert.equal(toEpochMs(Temporal.Instant.fromEpochMilliseconds(t)), t);
    assert.equal(toEpochMs("2026-03-08T07:00:00Z"), t);
    assert.equal(toEpochMs("2026-03-08T03:00:00-04:00"), t);
    assert.equal(toEpochMs("2026-03-08t07:00z"), t);
    assert.equal(toEpochMs("2026-03-08T07:00:00.123456789Z"), t + 123);
  });

  it("refuses text without an offset, garbage and out-of-range numbers", () => {
    assertSchedulerError(() => toEpochMs("2026-03-08T07:00:00"), "invalid-instant");
    assertSchedulerError(() => toEpochMs("2026-03-08"), "invalid-instant");
    assertSchedulerError(
      () => toEpochMs("next tuesday", { field: "after" }),
      "invalid-instant",
      'invalid-instant: after: expected epoch ms, a Date or an ISO instant with offset, got "next tuesday"',
    );
    assertSchedulerError(() => toEpochMs(Number.POSITIVE_INFINITY), "invalid-instant");
    assertSchedulerError(() => toEpochMs(8.7e15), "invalid-instant");
    assertSchedulerError(() => toEpochMs({}), "invalid-instant");
    assertSchedulerError(() => toEpochMs("2026-03-08T07:00:00Z", { allowString: false }), "invalid-instant");
  });
});
