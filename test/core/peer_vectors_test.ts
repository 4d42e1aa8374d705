// The facts of croner's and cron-parser's own test suites where they agree with our
// semantics (test/fixtures/peer-vectors), replayed against cron().
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { agreeingVectors, failures, runVector, vectorLabel } from "../fixtures/check.ts";

describe("peer vectors", () => {
  const vectors = agreeingVectors();

  it("are all present (533 agreeing vectors: 537 before the year field, less four that now differ)", () => {
    assert.equal(vectors.length, 533);
  });

  it("croner's and cron-parser's agreeing facts all hold for cron()", () => {
    const failed = failures(vectors, runVector, vectorLabel);
    assert.deepEqual(failed.slice(0, 10), [], `${failed.length} of ${vectors.length} vectors fail`);
  });
});
