// `H`: a value drawn from a stable hash of the job's name. Expected values come from
// an FNV-1a written here independently (BigInt arithmetic, bytes from UTF-8 by hand),
// not from the code under test.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cron, fieldHash, fnv1a32, resolveCron } from "../../../src/core/cron/mod.ts";
import { schedule } from "../../../src/core/schedule.ts";
import { assertSchedulerError, ms } from "../_helpers.ts";
import { reference } from "./_fnv.ts";

const AFTER = ms("2026-01-01T00:00:00Z");
const KEYS = ["backup", "job-0", "job-1", "nightly report", "jöb-✓", "🙂", ""];

describe("H: the hash", () => {
  it("fnv1a32 matches the published FNV-1a test vectors", () => {
    assert.equal(fnv1a32(""), 0x811c9dc5);
    assert.equal(fnv1a32("a"), 0xe40c292c);
    assert.equal(fnv1a32("foobar"), 0xbf9cf968);
  });

  it("fieldHash is FNV-1a of key, NUL, field name over UTF-8 (checked against an independent implementation)", () => {
    for (const key of KEYS) {
      for (const field of ["second", "minute", "hour", "day-of-month", "month", "day-of-week", "year"]) {
        assert.equal(fieldHash(key, field), reference(key, field), `${key} ${field}`);
      }
    }
  });
});

describe("H: values", () => {
  it("H in minute is hash % 60, H in hour hash % 24, each field hashed on its own", () => {
    for (const key of KEYS) {
      const t = cron("H H * * *", { hashKey: key }).next(AFTER)!;
      const d = new Date(t);
      assert.equal(d.getUTCMinutes(), reference(key, "minute") % 60, key);
      assert.equal(d.getUTCHours(), reference(key, "hour") % 24, key);
    }
  });

  it("H in seconds, day-of-month (1-28), month and day-of-week", () => {
    for (const key of KEYS) {
      const sec = cron("H * * * * *", { hashKey: key }).next(AFTER)!;
      assert.equal(new Date(sec).getUTCSeconds(), reference(key, "second") % 60);
      const dom = cron("0 0 H * *", { hashKey: key }).next(AFTER)!;
      assert.equal(new Date(dom).getUTCDate(), 1 + (reference(key, "day-of-month") % 28));
      const month = cron("0 0 1 H *", { hashKey: key }).next(AFTER)!;
      assert.equal(new Date(month).getUTCMonth() + 1, 1 + (reference(key, "month") % 12));
      const dow = cron("0 0 * * H", { hashKey: key }).next(AFTER)!;
      assert.equal(new Date(dow).getUTCDay(), reference(key, "day-of-week") % 7);
    }
  });

  it("H/S starts at hash % S and steps by S; H(A-B) is A + hash % (B-A+1); H(A-B)/S starts at A + hash % S", () => {
    for (const key of KEYS) {
      const h = reference(key, "minute");
      const quarter = cron("H/15 * * * *", { hashKey: key }).nextRuns(AFTER - 1, 4).map((t) =>
        new Date(t).getUTCMinutes()
      );
      assert.deepEqual(quarter, [0, 1, 2, 3].map((i) => (h % 15) + 15 * i));
      const ranged = cron("H(10-19) 0 * * *", { hashKey: key }).next(AFTER)!;
      assert.equal(new Date(ranged).getUTCMinutes(), 10 + (h % 10));
      const steps = cron("H(30-59)/10 0 * * *", { hashKey: key }).nextRuns(AFTER, 3).map((t) =>
        new Date(t).getUTCMinutes()
      );
      assert.deepEqual(steps, [0, 1, 2].map((i) => 30 + (h % 10) + 10 * i));
    }
  });

  it("H mixes with lists, ranges and fixed fields", () => {
    const h = reference("backup", "hour") % 24;
    const hours = cron("0 H,12 * * *", { hashKey: "backup" }).nextRuns(AFTER, 4).map((x) => new Date(x).getUTCHours());
    assert.deepEqual(new Set(hours), new Set([h, 12]));
  });

  it("two jobs with the same expression get different minutes, and H H does not tie minute to hour", () => {
    const minutes = new Set(Array.from({ length: 100 }, (_, i) => reference(`job-${i}`, "minute") % 60));
    assert.ok(minutes.size > 40, `${minutes.size} distinct minutes`);
    let tied = 0;
    for (let i = 0; i < 200; i++) {
      const d = new Date(cron("H H * * *", { hashKey: `job-${i}` }).next(AFTER)!);
      if (d.getUTCMinutes() % 24 === d.getUTCHours()) tied++;
    }
    assert.ok(tied < 40, `${tied} of 200 jobs have minute % 24 == hour`);
  });

  it("1 000 hourly jobs spread over the hour: no minute holds more than twice the mean", () => {
    const buckets = new Array<number>(60).fill(0);
    for (let i = 0; i < 1000; i++) {
      buckets[new Date(cron("H * * * *", { hashKey: `job-${i}` }).next(AFTER)!).getUTCMinutes()]!++;
    }
    assert.ok(Math.max(...buckets) <= (2 * 1000) / 60, `largest bucket ${Math.max(...buckets)}`);
    assert.ok(Math.min(...buckets) > 0);
  });
});

describe("H: errors and round trips", () => {
  it("refuses H without a hash key, naming the field", () => {
    assertSchedulerError(
      () => cron("H * * * *"),
      "invalid-cron",
      'invalid-cron: H needs a hashKey (the job\'s name), got "H" in minute',
    );
    assertSchedulerError(
      () => cron("0 H/2 * * *"),
      "invalid-cron",
      'invalid-cron: H needs a hashKey (the job\'s name), got "H/2" in hour',
    );
  });

  it("refuses malformed H terms", () => {
    const key = { hashKey: "k" };
    assertSchedulerError(
      () => cron("H(5) * * * *", key),
      "invalid-cron",
      'invalid-cron: minute expected H(A-B), got "H(5)"',
    );
    assertSchedulerError(
      () => cron("H(9-3) * * * *", key),
      "invalid-cron",
      'invalid-cron: minute range "9-3" in "H(9-3)" is reversed',
    );
    assertSchedulerError(
      () => cron("H(0-70) * * * *", key),
      "invalid-cron",
      'invalid-cron: minute must be 0-59, got "70" in "H(0-70)"',
    );
    assertSchedulerError(
      () => cron("H(0-5)/7 * * * *", key),
      "invalid-cron",
      'invalid-cron: minute step must be 1-6, got "7" in "H(0-5)/7"',
    );
    assertSchedulerError(
      () => cron("HX * * * *", key),
      "invalid-cron",
      'invalid-cron: minute expected H, H/S, H(A-B) or H(A-B)/S, got "HX"',
    );
    assertSchedulerError(
      () => cron("H/0 * * * *", key),
      "invalid-cron",
      'invalid-cron: minute step must be 1-60, got "0" in "H/0"',
    );
    assertSchedulerError(
      () => cron("H * * * *", { hashKey: 7 as unknown as string }),
      "invalid-cron",
      'invalid-cron: hashKey must be a string, got "7"',
    );
  });

  it("toString() keeps the H form; toJSON() carries the key; both read back to the same fires", () => {
    const s = cron("H H(2-5) * * 1-5", { hashKey: "backup", timezone: "Europe/Berlin" });
    assert.equal(s.toString(), "CRON_TZ=Europe/Berlin H H(2-5) * * 1-5");
    assert.deepEqual(s.toJSON(), { cron: "H H(2-5) * * 1-5", timezone: "Europe/Berlin", hashKey: "backup" });
    const want = s.nextRuns(AFTER, 5);
    assert.deepEqual(schedule(s.toJSON()).nextRuns(AFTER, 5), want);
    assert.deepEqual(schedule(s.toString(), { hashKey: "backup" }).nextRuns(AFTER, 5), want);
  });

  it("a key given to an expression without H is not kept", () => {
    assert.deepEqual(cron("0 THU * * *".replace("THU", "5"), { hashKey: "x" }).toJSON(), {
      cron: "0 5 * * *",
      timezone: "UTC",
    });
    assert.deepEqual(cron("0 5 * * THU", { hashKey: "x" }).toJSON(), { cron: "0 5 * * THU", timezone: "UTC" });
  });
});

describe("H: resolveCron()", () => {
  it("replaces H terms with the values they stand for, and the result fires the same", () => {
    assert.equal(
      resolveCron("H H(1-4) * * *", { hashKey: "backup" }),
      `${reference("backup", "minute") % 60} ${1 + (reference("backup", "hour") % 4)} * * *`,
    );
    assert.equal(
      resolveCron("H/15  * * * THU", { hashKey: "backup" }),
      `${reference("backup", "minute") % 15}-59/15 * * * THU`,
    );
    assert.equal(
      resolveCron("0 0 0 * * +H 2027", { hashKey: "k" }),
      `0 0 0 * * +${reference("k", "day-of-week") % 7} 2027`,
    );
    assert.equal(resolveCron("@daily"), "@daily");
    for (const expr of ["H H * * *", "H/7 H(8-17)/3 * * 1-5", "H 0 H * *", "H 9 ? * 2 *"]) {
      for (const key of KEYS) {
        const options = expr.endsWith("2 *") ? { hashKey: key, format: "aws" as const } : { hashKey: key };
        const resolved = resolveCron(expr, options);
        assert.ok(!resolved.includes("H"), resolved);
        const aws = "format" in options ? { format: "aws" as const } : {};
        assert.deepEqual(
          cron(resolved, aws).nextRuns(AFTER, 6),
          cron(expr, options).nextRuns(AFTER, 6),
          `${expr} ${key}`,
        );
      }
    }
  });

  it("refuses what cron() refuses", () => {
    assertSchedulerError(() => resolveCron("H * * * *"), "invalid-cron");
  });
});
