import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../../src/core/errors.ts";
import { resolveDataJob, resolveJob } from "../../../src/engine/jobs/spec.ts";
import type { JobSpec } from "../../../src/engine/types.ts";
import { setup } from "../_helpers.ts";

const run = (): void => {};

function refused(fn: () => unknown, code: string, path: string, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof SchedulerError, `expected a SchedulerError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.equal(e.path, path);
    assert.equal(e.message, message);
    return true;
  });
}

describe("job spec validation", () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    [
      "a bad timeout",
      { timeout: "soon" },
      "jobs.nightly.timeout",
      'invalid-spec: jobs.nightly.timeout: expected a duration like "30s", got "soon"',
    ],
    [
      "an unknown field",
      { timeot: "5m" },
      "jobs.nightly.timeot",
      'invalid-spec: jobs.nightly.timeot: unknown field; did you mean "timeout"?',
    ],
    [
      "a bad overlap",
      { overlap: "never" },
      "jobs.nightly.overlap",
      'invalid-spec: jobs.nightly.overlap: expected "skip" or "allow" or "bufferOne" or "bufferAll" or "cancelOther", got "never"',
    ],
    [
      "a bad catch-up mode",
      { catchUp: { mode: "some" } },
      "jobs.nightly.catchUp.mode",
      'invalid-spec: jobs.nightly.catchUp.mode: expected "latest" or "all" or "none", got "some"',
    ],
    [
      "a bad catch-up window",
      { catchUp: { window: "-1h" } },
      "jobs.nightly.catchUp.window",
      'invalid-spec: jobs.nightly.catchUp.window: expected a duration like "30s", got "-1h"',
    ],
    [
      "fractional retry attempts",
      { retries: { attempts: 1.5 } },
      "jobs.nightly.retries.attempts",
      'invalid-spec: jobs.nightly.retries.attempts: expected a whole number 1-100 (every attempt, the first included: 1 = no retry), got "1.5"',
    ],
    [
      "zero retry attempts",
      { retries: { attempts: 0 } },
      "jobs.nightly.retries.attempts",
      'invalid-spec: jobs.nightly.retries.attempts: expected a whole number 1-100 (every attempt, the first included: 1 = no retry), got "0"',
    ],
    [
      "missing retry attempts",
      { retries: {} },
      "jobs.nightly.retries.attempts",
      "invalid-spec: jobs.nightly.retries.attempts: required field is missing",
    ],
    [
      "a non-boolean enabled",
      { enabled: "yes" },
      "jobs.nightly.enabled",
      'invalid-spec: jobs.nightly.enabled: expected true or false, got "yes"',
    ],
    [
      "a missing run",
      { run: undefined },
      "jobs.nightly.run",
      'invalid-spec: jobs.nightly.run: expected a function, got "undefined"',
    ],
    [
      "a zero timeout",
      { timeout: 0 },
      "jobs.nightly.timeout",
      'invalid-spec: jobs.nightly.timeout: must be at least 1ms, got "0"',
    ],
  ];
  for (const [label, patch, path, message] of cases) {
    it(`refuses ${label}, naming the field path`, () => {
      const spec = { schedule: "0 3 * * *", run, ...patch } as unknown as JobSpec;
      refused(() => resolveJob("nightly", spec, {}), "invalid-spec", path, message);
    });
  }

  it("refuses a bad cron with the core's reason under the schedule path", () => {
    assert.throws(() => resolveJob("nightly", { schedule: "61 * * * *", run }, {}), (e: unknown) => {
      assert.ok(e instanceof SchedulerError);
      assert.equal(e.code, "invalid-spec");
      assert.equal(e.path, "jobs.nightly.schedule");
      // One code and one path; the core's code and field label are not stacked inside.
      assert.equal(e.message, 'invalid-spec: jobs.nightly.schedule: minute must be 0-59, got "61"');
      assert.ok(e.cause instanceof SchedulerError && e.cause.code === "invalid-cron");
      return true;
    });
  });

  it("names a field of an { every } schedule once: no `interval:` label of every()'s after schedule.every", () => {
    // It said `jobs.pulse.schedule.every: interval: expected a duration like "30s", got "1x"`.
    const cases = [
      [{ every: "1x" }, 'expected a duration like "30s", got "1x"'],
      [{ every: "500ms" }, 'must be at least 1s, got "500ms"'],
      [{ every: "7m", anchor: "09:00" }, '"7m" does not divide 24h, which an "HH:MM" anchor needs'],
    ] as const;
    for (const [schedule, rule] of cases) {
      const path = "jobs.pulse.schedule.every";
      refused(() => resolveJob("pulse", { schedule, run }, {}), "invalid-spec", path, `invalid-spec: ${path}: ${rule}`);
    }
    // In a string the part is no field of its own: `interval` says which part it is.
    refused(
      () => resolveJob("pulse", { schedule: "@every 1x", run }, {}),
      "invalid-spec",
      "jobs.pulse.schedule",
      'invalid-spec: jobs.pulse.schedule: interval: expected a duration like "30s", got "1x"',
    );
  });

  it("refuses an unknown zone under the timezone path", () => {
    assert.throws(
      () => resolveJob("nightly", { schedule: "0 3 * * *", timezone: "Mars/Olympus", run }, {}),
      (e: unknown) => {
        assert.ok(e instanceof SchedulerError);
        assert.equal(e.path, "jobs.nightly.timezone");
        assert.match(e.message, /Mars\/Olympus/);
        return true;
      },
    );
  });

  it("an unknown zone suggests the nearest valid names, once, under one code", () => {
    assert.throws(
      () => resolveJob("nightly", { schedule: "0 3 * * *", timezone: "Europe/Pariss", run }, {}),
      (e: unknown) => {
        assert.ok(e instanceof SchedulerError);
        assert.equal(
          e.message,
          'invalid-spec: jobs.nightly.timezone: unknown time zone "Europe/Pariss"; did you mean "Europe/Paris"?',
        );
        return true;
      },
    );
  });

  it("an unknown field suggests the name it probably meant (tz → timezone, timeot → timeout), and nothing far off", () => {
    const message = (spec: Record<string, unknown>): string => {
      try {
        resolveJob("j", { schedule: "0 3 * * *", run, ...spec } as never, {});
      } catch (e) {
        return (e as Error).message;
      }
      return "accepted";
    };
    assert.equal(message({ tz: "UTC" }), 'invalid-spec: jobs.j.tz: unknown field; did you mean "timezone"?');
    assert.equal(
      message({ retry: { attempts: 2 } }),
      'invalid-spec: jobs.j.retry: unknown field; did you mean "retries"?',
    );
    assert.equal(message({ zzzzzz: 1 }), "invalid-spec: jobs.j.zzzzzz: unknown field");
  });

  for (const name of ["", "a b", "x".repeat(129), "tab\there", "ünï", "new\nline"]) {
    it(`refuses the name ${JSON.stringify(name).slice(0, 20)} with invalid-name`, () => {
      assert.throws(() => resolveJob(name, { schedule: "* * * * *", run }, {}), (e: unknown) => {
        assert.ok(e instanceof SchedulerError);
        assert.equal(e.code, "invalid-name");
        assert.equal(e.path, "name");
        return true;
      });
    });
  }

  it("resolves defaults once: durations in ms, catch-up merged field by field, job zone on string cron", () => {
    const job = resolveJob("nightly", {
      schedule: "0 3 * * *",
      timezone: "Europe/Paris",
      catchUp: { mode: "all" },
      run,
    }, { timeout: "2m", catchUp: { window: "6h" }, overlap: "allow" });
    assert.equal(job.timeoutMs, 120_000);
    assert.deepEqual(job.catchUp, { mode: "all", windowMs: 21_600_000, toleranceMs: 60_000 });
    assert.deepEqual(job.retries, { attempts: 1, backoffMs: 1_000 });
    assert.equal(job.overlap, "allow");
    assert.equal(job.timezone, "Europe/Paris");
    assert.equal(job.schedule.next(Date.UTC(2030, 0, 1)), Date.UTC(2030, 0, 1, 2));
  });

  it("a data-defined job needs an http(s) target and refuses unknown target fields", () => {
    const base = { schedule: "* * * * *", target: { url: "https://example.com/hook" } };
    assert.equal(resolveDataJob("hook", base, {}).target?.url, "https://example.com/hook");
    refused(
      () => resolveDataJob("hook", { ...base, target: { url: "ftp://example.com" } }, {}),
      "invalid-spec",
      "jobs.hook.target.url",
      'invalid-spec: jobs.hook.target.url: expected an http or https URL, got "ftp://example.com"',
    );
    refused(
      () => resolveDataJob("hook", { ...base, target: { url: "https://x.test", verb: "GET" } } as never, {}),
      "invalid-spec",
      "jobs.hook.target.verb",
      'invalid-spec: jobs.hook.target.verb: unknown field; did you mean "method"?',
    );
  });

  it("scheduler.job refuses a duplicate name", () => {
    const { scheduler } = setup();
    scheduler.job("once", { schedule: "* * * * *", run });
    refused(
      () => scheduler.job("once", { schedule: "* * * * *", run }),
      "invalid-name",
      "name",
      'invalid-name: job "once" is already registered',
    );
  });

  it("createScheduler refuses bad defaults with a defaults.* path", () => {
    refused(
      () => setup({ defaults: { timeout: "soon" } }),
      "invalid-spec",
      "defaults.timeout",
      'invalid-spec: defaults.timeout: expected a duration like "30s", got "soon"',
    );
  });
});
