import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { expectedHistory } from "../../../src/engine/jobs/history.ts";
import { resolveJob } from "../../../src/engine/jobs/spec.ts";
import { schedule } from "../../../src/core/mod.ts";
import type { Schedule } from "../../../src/core/types.ts";
import { HOUR, MIN, rows, SEC, setup, T0, tickAt } from "../_helpers.ts";

const DAY = 24 * HOUR;

describe("history caps: maxRows beside the time retention", () => {
  it("a job's maxRows keeps its newest finished rows at each prune; a job without it keeps its retention", async () => {
    const s = setup({ start: T0 - MIN });
    s.scheduler.job("capped", { schedule: "* * * * *", maxRows: 3, run: () => {} });
    s.scheduler.job("free", { schedule: "* * * * *", run: () => {} });
    await tickAt(s, T0 - MIN);
    // Pruning runs at most hourly: the tick at T0 + 59 min (an hour after the first) prunes.
    for (let i = 0; i <= 59; i++) await tickAt(s, T0 + i * MIN);
    assert.deepEqual((await rows(s.store, "capped")).map((r) => (r.slot - T0) / MIN), [57, 58, 59]);
    // The registering tick runs its own slot (a new job plans [registered, now]): T0 - 1 min is kept too.
    const everyMinute = Array.from({ length: 61 }, (_, i) => i - 1);
    assert.deepEqual(
      (await rows(s.store, "free")).map((r) => (r.slot - T0) / MIN),
      everyMinute,
      "every slot from T0 - 1 min to T0 + 59 min",
    );
  });

  it("defaults.maxRows caps every job; a bad maxRows is refused naming the field", () => {
    const s = setup({ defaults: { maxRows: 10 } });
    s.scheduler.job("a", { schedule: "* * * * *", run: () => {} });
    assert.throws(
      () => s.scheduler.job("b", { schedule: "* * * * *", maxRows: 0, run: () => {} }),
      /jobs\.b\.maxRows: expected a whole number 1-1000000000, got "0"/,
    );
    assert.throws(() => setup({ defaults: { maxRows: 1.5 } }), /defaults\.maxRows/);
  });

  it("expectedHistory() scales each schedule's rate to the retention and caps it by maxRows", () => {
    const perSecond = resolveJob("s", { schedule: "* * * * * *", run: () => {} }, {});
    const capped = resolveJob("c", { schedule: "* * * * * *", maxRows: 1000, run: () => {} }, {});
    const hourly = resolveJob("h", { schedule: "0 * * * *", run: () => {} }, {});
    const { total, jobs } = expectedHistory([hourly, perSecond, capped], T0, 7 * DAY);
    assert.deepEqual(jobs.map((j) => [j.name, j.rows]), [["s", 7 * DAY / SEC], ["c", 1000], ["h", 7 * 24]]);
    assert.equal(total, 7 * DAY / SEC + 1000 + 7 * 24);
  });

  it("expectedHistory() samples equal schedules once, and never shares a sample between schedules that differ", () => {
    // Same cron text, one with an exclusion: the modifiers are part of what makes them equal.
    const every = resolveJob("e", { schedule: "0 * * * *", run: () => {} }, {});
    const same = resolveJob("f", { schedule: "0 * * * *", run: () => {} }, {});
    const except = resolveJob("x", { schedule: "0 * * * *", except: "0 0-11 * * *", run: () => {} }, {});
    // Two custom schedules whose spec cannot be told apart (toJSON throws): each is sampled alone.
    const custom = (stepMs: number): Schedule => {
      const base = schedule({ every: `${stepMs / 1000}s`, anchor: T0 });
      return {
        kind: base.kind,
        timezone: base.timezone,
        next: (after) => base.next(after),
        nextRuns: (after, n) => base.nextRuns(after, n),
        prev: (before) => base.prev(before),
        between: (from, to) => base.between(from, to),
        toString: () => "custom",
        toJSON: () => {
          throw new Error("no spec");
        },
      };
    };
    const fast = resolveJob("cf", { schedule: custom(60_000), run: () => {} }, {});
    const slow = resolveJob("cs", { schedule: custom(3_600_000), run: () => {} }, {});
    const { jobs } = expectedHistory([every, same, except, fast, slow], T0, DAY);
    assert.deepEqual(Object.fromEntries(jobs.map((j) => [j.name, j.rows])), { e: 24, f: 24, x: 12, cf: 1440, cs: 24 });
  });

  it("warns once at start when the job set's expected history is above historyWarnRows, naming the largest jobs", async () => {
    const s = setup({ historyWarnRows: 1_000_000 });
    for (let i = 0; i < 2; i++) s.scheduler.job(`sec${i}`, { schedule: "* * * * * *", run: () => {} });
    s.scheduler.job("small", { schedule: "0 * * * *", run: () => {} });
    await tickAt(s, T0);
    await tickAt(s, T0 + MIN);
    const warnings = s.logger.lines.filter((l) => l.includes("run history is expected"));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /~1209768 rows .*largest: "sec0" ~604800, "sec1" ~604800, "small" ~168\. Set maxRows/);
    const quiet = setup({ historyWarnRows: 1_000_000 });
    quiet.scheduler.job("sec", { schedule: "* * * * * *", maxRows: 100_000, run: () => {} });
    await tickAt(quiet, T0);
    assert.equal(quiet.logger.lines.filter((l) => l.includes("run history")).length, 0);
    assert.throws(
      () => setup({ historyWarnRows: -1 }),
      /invalid-spec: historyWarnRows: expected a number >= 0 \(or Infinity\), got "-1"/,
    );
  });
});
