// Resolved jobs share one shape. The tick reads job fields in loops over every job (10 000
// and more); when each job object had a hidden class of its own (a spread copy of the
// resolved fields, which V8 gave a fresh map per object once it optimised the copy), every
// such read missed V8's inline caches and each job carried a 432-byte descriptor array.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { resolveDataJob, resolveJob, withRun } from "../../../src/engine/jobs/spec.ts";
import { createJobRegistry } from "../../../src/engine/jobs/registry.ts";
import type { ResolvedJob } from "../../../src/engine/jobs/spec.ts";

/** V8's own answer where the runtime lets a test ask (Node); undefined elsewhere (Bun's JSC, Deno). */
async function sameMapCheck(): Promise<((a: object, b: object) => boolean) | undefined> {
  try {
    const v8 = await import("node:v8");
    v8.setFlagsFromString("--allow-natives-syntax");
    const check = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;
    return check({}, {}) === true ? check : undefined;
  } catch {
    return undefined;
  }
}

describe("resolved job shape", () => {
  const target = { url: "https://example.com/hook" };

  it("code and data jobs have the same fields in the same order", () => {
    const code = resolveJob("a", { schedule: "* * * * *", run: () => {} }, {});
    const data = withRun(resolveDataJob("b", { schedule: "* * * * *", target }, {}), () => {});
    assert.deepEqual(Object.keys(data), Object.keys(code));
    assert.equal(code.source, "code");
    assert.equal(data.source, "data");
    assert.deepEqual(data.target, target);
  });

  it("a data job refuses to run before its delivery is attached", () => {
    const data = resolveDataJob("b", { schedule: "* * * * *", target }, {}) as ResolvedJob;
    assert.throws(() => data.run({} as never), /before its delivery was attached/);
  });

  it("jobs registered in a loop share one hidden class, on V8", async (t) => {
    const registry = createJobRegistry({ defaults: {}, log: {} as never, deliver: () => undefined });
    // Enough registrations for V8 to optimise the code that builds them (the spread copy
    // diverged after about eight).
    for (let i = 0; i < 200; i++) {
      registry.addCode(`job-${i}`, { schedule: i % 2 === 0 ? "* * * * *" : "0 3 * * *", run: () => i });
    }
    const jobs = registry.all();
    assert.equal(jobs.length, 200);
    const keys = Object.keys(jobs[0]!);
    for (const job of jobs) assert.deepEqual(Object.keys(job), keys);
    const same = await sameMapCheck();
    if (same === undefined) {
      t.diagnostic("this runtime does not answer %HaveSameMap; the field order above is what it checks");
      return;
    }
    const apart = jobs.filter((job) => !same(job, jobs[0]!)).map((job) => job.name);
    assert.deepEqual(apart, []);
  });
});
