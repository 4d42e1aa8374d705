// Cron expressions people wrote in public code (test/fixtures/real-world): each valid
// one gives its next five fires after fixed instants; the rest must be refused. The
// fires of the cases H, the year field and the AWS form made valid are re-derived here
// by a brute-force minute walk that shares no code with src/.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { caseLabel, failures, realWorldCases, runCase } from "../fixtures/check.ts";
import { bruteForce } from "../fixtures/real-world/oracle.ts";

const REFUSED = [
  "0 */48 * * *",
  "*10 * * * * *",
  "*/300 * * * * *",
  "*/1800 * * * * *",
  "00 60 * * * *",
  "0 0 9 1-31 0-11 0-6",
  "0 15 1-31 0-11 0-6",
  "@reboot",
  "0 0 0 L-7 * ?",
  "@every 3s",
  "@every 10s",
  "rate(5 minutes)",
  "@every 8h",
  "@once",
  "every 60 minutes",
  "every 1 minutes",
  "every 24 hours",
  "every 1 hours",
  "@every 1m",
  "@every 30s",
  "every 5 minutes",
  "0 0 31 2 *",
  "0 0 30 2 *",
];

describe("real-world expressions", () => {
  const cases = realWorldCases();

  it("every case gives its expected fires or is refused (1 895 cases)", () => {
    assert.equal(cases.length, 1895);
    const failed = failures(cases, runCase, caseLabel);
    assert.deepEqual(failed.slice(0, 10), [], `${failed.length} of ${cases.length} cases fail`);
  });

  it("refuses only the 23 expressions outside the grammar", () => {
    assert.deepEqual(cases.filter((c) => c.expected === "error").map((c) => c.expr), REFUSED);
  });

  it("the fires of the 47 newly accepted expressions match a brute-force minute walk", () => {
    const walked = cases.filter((c) => c.oracle === true);
    assert.equal(walked.length, 47 * 3);
    for (const c of walked) {
      assert.equal(c.tz, "UTC");
      assert.ok(Array.isArray(c.expected) && c.expected.length === 5, caseLabel(c));
      assert.deepEqual(bruteForce(c.expr, c.options ?? {}, c.after, 5), c.expected, caseLabel(c));
    }
  });
});
