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

describe("shared schedules", () => {
  const run = (): void => {};
  const from = Date.UTC(2030, 0, 1);

  it("jobs with the same plain cron string and zone share one schedule", () => {
    const a = resolveJob("a", { schedule: "*/5 * * * *", run }, {});
    const b = resolveJob("b", { schedule: "*/5 * * * *", run }, {});
    assert.equal(a.schedule, b.schedule);
    // Nothing of the first job's name is in what the second shows.
    assert.deepEqual(b.schedule.toJSON(), { cron: "*/5 * * * *", timezone: "UTC" });
    assert.equal(b.schedule.next(from), from + 5 * 60_000);
  });

  it("a zone, a modifier or a hashed field gives the job its own", () => {
    const base = resolveJob("base", { schedule: "0 3 * * *", run }, {});
    const paris = resolveJob("paris", { schedule: "0 3 * * *", timezone: "Europe/Paris", run }, {});
    const except = resolveJob("except", { schedule: "0 3 * * *", except: ["2030-01-02"], run }, {});
    assert.notEqual(paris.schedule, base.schedule);
    assert.equal(paris.schedule.next(from), Date.UTC(2030, 0, 1, 2));
    assert.notEqual(except.schedule, base.schedule);
    assert.equal(except.schedule.next(from), Date.UTC(2030, 0, 1, 3));
    assert.equal(except.schedule.next(Date.UTC(2030, 0, 1, 3)), Date.UTC(2030, 0, 3, 3));
    assert.equal(base.schedule.next(Date.UTC(2030, 0, 1, 3)), Date.UTC(2030, 0, 2, 3));
    // `H` hashes the job's name: two names, two schedules, each keyed by its own name.
    const h1 = resolveJob("report-1", { schedule: "H * * * *", run }, {});
    const h2 = resolveJob("report-2", { schedule: "H * * * *", run }, {});
    assert.notEqual(h1.schedule, h2.schedule);
    assert.equal((h1.schedule.toJSON() as { hashKey?: string }).hashKey, "report-1");
    assert.equal((h2.schedule.toJSON() as { hashKey?: string }).hashKey, "report-2");
  });
});
