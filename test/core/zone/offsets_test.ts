import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { assertTimeZone, zoneOffsets } from "../../../src/core/zone/mod.ts";
import { Temporal } from "../../../src/core/temporal.ts";
import { assertSchedulerError } from "../_helpers.ts";

const sec = (iso: string): number => Date.parse(iso) / 1000;

describe("assertTimeZone()", () => {
  it("returns the canonical id", () => {
    assert.equal(assertTimeZone("america/new_york"), "America/New_York");
    assert.equal(assertTimeZone("UTC"), "UTC");
  });

  it("refuses unknown zones and non-strings", () => {
    assertSchedulerError(
      () => assertTimeZone("Mars/Olympus"),
      "invalid-timezone",
      'invalid-timezone: timezone: unknown time zone "Mars/Olympus"',
    );
    assertSchedulerError(() => assertTimeZone(5), "invalid-timezone");
    assertSchedulerError(() => assertTimeZone("x".repeat(65)), "invalid-timezone");
  });
});

describe("zoneOffsets()", () => {
  const ny = zoneOffsets("America/New_York");

  it("splits time into constant-offset segments at transitions", () => {
    const s = ny.segmentAt(sec("2026-03-08T07:00:00Z"));
    assert.deepEqual([s.start, s.offset, s.prevOffset], [sec("2026-03-08T07:00:00Z"), -4 * 3600, -5 * 3600]);
    assert.equal(s.end, sec("2026-11-01T06:00:00Z"));
    assert.equal(ny.segmentAt(sec("2026-03-08T06:59:59Z")).offset, -5 * 3600);
  });

  it("maps wall times like Temporal's compatible disambiguation", () => {
    assert.equal(ny.wallToInstant(sec("2026-03-08T02:30:00Z")), sec("2026-03-08T07:30:00Z"));
    assert.equal(ny.wallToInstant(sec("2026-11-01T01:30:00Z")), sec("2026-11-01T05:30:00Z"));
  });

  it("agrees with Temporal on offsets at random instants in random zones", () => {
    const zones = [
      "America/New_York",
      "Australia/Lord_Howe",
      "Pacific/Chatham",
      "Antarctica/Troll",
      "Europe/Dublin",
      "Asia/Kathmandu",
      "America/Santiago",
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: sec("1900-01-01T00:00:00Z"), max: sec("2060-01-01T00:00:00Z") }),
        (zone, t) => {
          const want = Temporal.Instant.fromEpochMilliseconds(t * 1000).toZonedDateTimeISO(zone).offsetNanoseconds /
            1e9;
          assert.equal(zoneOffsets(zone).offsetAt(t), Math.round(want));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("treats fixed zones as one segment", () => {
    const s = zoneOffsets("Etc/GMT-14").segmentAt(0);
    assert.deepEqual([s.start, s.end, s.offset], [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, 14 * 3600]);
  });
});
