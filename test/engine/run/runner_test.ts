import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { consoleLogger } from "../../../src/engine/events.ts";
import { createManualClock } from "../../../src/engine/clock.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { cancel, type RunnerDeps } from "../../../src/engine/run/runner.ts";
import type { HeldClaim } from "../../../src/engine/run/tracker.ts";
import { deferred, firstAttemptHangs, MIN, ofType, rows, SEC, setup, slowed, T0, tickAt } from "../_helpers.ts";

describe("runs: timeouts", () => {
  it("a handler that never settles is timed out, recorded, and the job runs again at its next slot", async () => {
    const s = setup();
    const calls: { slot: number; signal: AbortSignal }[] = [];
    s.scheduler.job("hang", {
      schedule: "* * * * *",
      timeout: "30s",
      run: (ctx) => {
        calls.push({ slot: ctx.slot, signal: ctx.signal });
        return new Promise(() => {});
      },
    });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + MIN);
    const pending = s.scheduler.tick();
    await s.clock.advance(30 * SEC);
    const report = await pending;
    assert.equal(report.jobs["hang"]!.outcomes[T0 + MIN], "timeout");
    assert.equal(calls[0]!.signal.aborted, true);
    assert.equal((calls[0]!.signal.reason as Error).name, "TimeoutError");
    const [row] = await rows(s.store, "hang");
    assert.equal(row!.status, "timeout");
    assert.match(row!.error ?? "", /timed out after 30s \(the job.s timeout\)/);

    await s.clock.set(T0 + 2 * MIN);
    const next = s.scheduler.tick();
    await s.clock.advance(MIN);
    assert.equal((await next).jobs["hang"]!.outcomes[T0 + 2 * MIN], "timeout");
    assert.deepEqual(calls.map((c) => c.slot), [T0 + MIN, T0 + 2 * MIN]);
    assert.equal(ofType(s.events, "timed-out").length, 2);
  });

  it("emits one stuck event per stuck run, after the lease grace", async () => {
    const s = setup();
    s.scheduler.job("hang", { schedule: "* * * * *", timeout: "10s", run: () => new Promise(() => {}) });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + MIN);
    const pending = s.scheduler.tick();
    await s.clock.advance(10 * SEC);
    await pending;
    assert.equal(ofType(s.events, "stuck").length, 0);
    await s.clock.advance(5 * SEC);
    await s.clock.advance(10 * MIN);
    const stuck = ofType(s.events, "stuck");
    assert.deepEqual(stuck, [{ type: "stuck", job: "hang", slot: T0 + MIN, attempt: 1, since: T0 + MIN }]);
  });

  it("a handler that reads ctx.signal only after its timeout finds it aborted by the timeout", async () => {
    const s = setup();
    let ctxOf: { signal: AbortSignal } | undefined;
    s.scheduler.job("late-reader", {
      schedule: "* * * * *",
      timeout: "10s",
      run: (ctx) => {
        ctxOf = ctx;
        return new Promise(() => {});
      },
    });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + MIN);
    const pending = s.scheduler.tick();
    await s.clock.advance(10 * SEC);
    assert.equal((await pending).jobs["late-reader"]!.outcomes[T0 + MIN], "timeout");
    const late = ctxOf!.signal;
    assert.equal(late.aborted, true);
    assert.equal((late.reason as Error).name, "TimeoutError");
    assert.equal(ctxOf!.signal, late, "the same signal on every read");
  });

  it("no stuck event when the handler honours its signal", async () => {
    const s = setup();
    s.scheduler.job("polite", {
      schedule: "* * * * *",
      timeout: "10s",
      run: (ctx) => new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
    });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + MIN);
    const pending = s.scheduler.tick();
    await s.clock.advance(MIN);
    assert.equal((await pending).jobs["polite"]!.outcomes[T0 + MIN], "timeout");
    assert.equal(ofType(s.events, "stuck").length, 0);
  });
});

describe("runs: failures", () => {
  for (
    const [label, run] of [
      ["throwing", () => {
        throw new Error("boom");
      }],
      ["rejecting", () => Promise.reject(new Error("boom"))],
      ["throwing a non-Error", () => {
        throw "boom";
      }],
    ] as const
  ) {
    it(`a ${label} handler is recorded error with its message and never escapes`, async () => {
      const s = setup();
      s.scheduler.job("bad", { schedule: "* * * * *", run });
      await tickAt(s, T0 + 1);
      const report = await tickAt(s, T0 + MIN);
      assert.equal(report.ok, true);
      assert.equal(report.jobs["bad"]!.outcomes[T0 + MIN], "error");
      const [row] = await rows(s.store, "bad");
      assert.equal(row!.status, "error");
      assert.equal(row!.error, "boom");
      assert.deepEqual(ofType(s.events, "failed").map((e) => [e.error, e.willRetry]), [["boom", false]]);
      const info = await s.scheduler.get("bad");
      assert.equal(info!.counters.errors, 1);
      assert.equal(info!.lastOutcome?.status, "error");
    });
  }
});

describe("runs: retries", () => {
  it("retries error with doubling backoff and records the final attempt", async () => {
    const s = setup();
    const starts: number[] = [];
    s.scheduler.job("flaky", {
      schedule: "* * * * *",
      retries: { attempts: 4, backoff: "10s" },
      run: (ctx) => {
        starts.push(s.clock.now());
        if (ctx.attempt < 3) throw new Error(`fail ${ctx.attempt}`);
      },
    });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + MIN);
    const pending = s.scheduler.tick();
    await s.clock.advance(MIN);
    const report = await pending;
    assert.deepEqual(starts, [T0 + MIN, T0 + MIN + 10 * SEC, T0 + MIN + 30 * SEC]);
    assert.equal(report.jobs["flaky"]!.outcomes[T0 + MIN], "ok");
    const [row] = await rows(s.store, "flaky");
    assert.equal(row!.status, "ok");
    assert.equal(row!.attempt, 3);
    assert.deepEqual(ofType(s.events, "failed").map((e) => e.willRetry), [true, true]);
  });

  it("gives up after the last attempt and retries timeouts too", async () => {
    const s = setup();
    let calls = 0;
    s.scheduler.job("slow", {
      schedule: "* * * * *",
      timeout: "5s",
      retries: { attempts: 2, backoff: "1s" },
      run: () => {
        calls++;
        return new Promise(() => {});
      },
    });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + MIN);
    const pending = s.scheduler.tick();
    await s.clock.advance(MIN);
    assert.equal((await pending).jobs["slow"]!.outcomes[T0 + MIN], "timeout");
    assert.equal(calls, 2);
    assert.deepEqual(ofType(s.events, "timed-out").map((e) => [e.attempt, e.willRetry]), [[1, true], [2, false]]);
    // The log line names the limit it hit, and how to change it.
    assert.ok(
      s.logger.lines.some((l) =>
        /^error job "slow" timed out at .* \(attempt 2\) after 5s \(its timeout; raise it with the job's `timeout` option\)$/
          .test(l)
      ),
      s.logger.lines.join("\n"),
    );
  });

  for (const honours of [false, true]) {
    it(`retries a timeout when the store's writes take time${honours ? ", the handler honouring its signal" : ""}`, async () => {
      // Each lease write takes 5 ms, as a remote store's does. The fence sits at the
      // timeout's cap (1 ms after it): the heartbeat used to fence the claim while the
      // retry's lease write was in flight (retry given up: `lost`), or before the timeout's
      // timer (a handler that honours its signal was recorded `error`, "lease ended").
      const store = createMemoryStore();
      const clock = createManualClock(T0);
      slowed(store, clock, 5, ["update"]);
      const s = setup({ store, clock });
      const attempts: number[] = [];
      s.scheduler.job("slow", {
        schedule: "* * * * *",
        timeout: "200ms",
        retries: { attempts: 2, backoff: "100ms" },
        run: firstAttemptHangs(honours, (ctx) => void attempts.push(ctx.attempt)),
      });
      await tickAt(s, T0 + 1);
      await s.clock.set(T0 + MIN);
      const pending = s.scheduler.tick();
      await s.clock.advance(5 * SEC);
      assert.equal((await pending).jobs["slow"]!.outcomes[T0 + MIN], "ok");
      assert.deepEqual(attempts, [1, 2]);
      assert.deepEqual(ofType(s.events, "timed-out").map((e) => [e.attempt, e.willRetry]), [[1, true]]);
      assert.deepEqual(ofType(s.events, "lost"), []);
      assert.deepEqual(ofType(s.events, "failed"), []);
      const [row] = await rows(store, "slow");
      assert.deepEqual([row?.status, row?.attempt], ["ok", 2]);
    });
  }

  it("attempts counts every attempt: attempts 2 calls an always-failing handler exactly twice, attempts 1 once", async () => {
    for (const [attempts, expected] of [[2, 2], [1, 1]] as const) {
      const s = setup({ start: T0 + 1 });
      let calls = 0;
      s.scheduler.job("broken", {
        schedule: "* * * * *",
        retries: { attempts, backoff: "1s" },
        run: () => {
          calls++;
          throw new Error("always");
        },
      });
      await tickAt(s, T0 + 1);
      await s.clock.set(T0 + MIN);
      const pending = s.scheduler.tick();
      await s.clock.advance(MIN);
      assert.equal((await pending).jobs["broken"]!.outcomes[T0 + MIN], "error");
      assert.equal(calls, expected, `attempts: ${attempts}`);
      assert.equal((await rows(s.store, "broken"))[0]!.attempt, expected);
      assert.deepEqual(ofType(s.events, "failed").map((e) => e.willRetry), [...Array(expected - 1).fill(true), false]);
    }
  });
});

/** A logger that keeps what is logged at error level, and drops the rest. */
function errorRecords() {
  const records: { message: string; fields: Record<string, unknown> | undefined }[] = [];
  const logger = {
    debug() {},
    info() {},
    warn() {},
    error: (message: string, fields?: Record<string, unknown>) => void records.push({ message, fields }),
  };
  return { records, logger };
}

describe("runs: a throwing handler's log record", () => {
  it("carries the error's class, message, stack and cause; run history keeps the one-line summary", async () => {
    const { records, logger } = errorRecords();
    const s = setup({ start: T0 + 1, logger });
    s.scheduler.job("boom", {
      schedule: "* * * * *",
      run: () => {
        throw new TypeError("Expected property name", { cause: new RangeError("offset 3") });
      },
    });
    await tickAt(s, T0 + MIN);
    const record = records.find((r) => r.message.startsWith('job "boom" failed'));
    assert.ok(record, JSON.stringify(records));
    const detail = record.fields?.["error"] as {
      class: string;
      message: string;
      stack: string;
      cause: { class: string; message: string };
    };
    assert.equal(detail.class, "TypeError");
    assert.equal(detail.message, "Expected property name");
    assert.match(detail.stack, /TypeError: Expected property name\n\s+at /);
    assert.deepEqual([detail.cause.class, detail.cause.message], ["RangeError", "offset 3"]);
    const [row] = await rows(s.store, "boom");
    assert.equal(row!.error, "Expected property name");
  });

  it("run history keeps at most 2 000 characters of a long message; the log record keeps it whole", async () => {
    // A 1 MB message (a response body in an HTTP client's error) was stored whole on every
    // failed run's row in the SQL and Postgres stores (Deno KV alone cut it).
    const { records, logger } = errorRecords();
    const s = setup({ start: T0 + 1, logger });
    // An emoji pair straddles the cut: it is not split into a lone surrogate.
    const message = `${"x".repeat(1_959)}\u{1F642}${"y".repeat(1_000_000)}`;
    s.scheduler.job("big", {
      schedule: "* * * * *",
      run: () => {
        throw new Error(message);
      },
    });
    await tickAt(s, T0 + MIN);
    const [row] = await rows(s.store, "big");
    assert.equal(row!.status, "error");
    assert.ok(row!.error!.length <= 2_000, `${row!.error!.length} characters`);
    assert.ok(row!.error!.startsWith(`${"x".repeat(1_959)}\ufffd…`), row!.error!.slice(1_950));
    assert.match(row!.error!, /… \(cut from 1001961 characters\)$/);
    assert.doesNotMatch(row!.error!, /[\ud800-\udfff]/);
    assert.equal((records[0]?.fields?.["error"] as { message: string }).message, message);
  });

  it("the console logger prints the stack and the cause under the line", async () => {
    const printed: string[] = [];
    const original = console.error;
    console.error = (line: string) => void printed.push(line);
    try {
      const s = setup({ start: T0 + 1, logger: consoleLogger() });
      s.scheduler.job("boom", {
        schedule: "* * * * *",
        run: () => {
          throw new TypeError("bad input", { cause: new Error("root cause") });
        },
      });
      await tickAt(s, T0 + MIN);
    } finally {
      console.error = original;
    }
    const text = printed.join("\n");
    assert.match(text, /edgecron: job "boom" failed at .*: bad input\nTypeError: bad input\n\s+at /);
    assert.match(text, /Caused by: Error: root cause\n\s+at /);
  });

  it("a thrown non-Error is described by its type", async () => {
    const records: Record<string, unknown>[] = [];
    const logger = {
      debug() {},
      info() {},
      warn() {},
      error: (_m: string, fields?: Record<string, unknown>) => void records.push(fields ?? {}),
    };
    const s = setup({ start: T0 + 1, logger });
    s.scheduler.job("str", {
      schedule: "* * * * *",
      run: () => {
        throw "plain text";
      },
    });
    await tickAt(s, T0 + MIN);
    assert.deepEqual(records[0]!["error"], { class: "string", message: "plain text" });
  });
});

describe("runs: the run context", () => {
  it("carries job, slot, attempt, payload, and a logger that adds the run's fields", async () => {
    const s = setup();
    let seen: unknown;
    s.scheduler.job("ctx", {
      schedule: "* * * * *",
      payload: { to: "ops" },
      run: (ctx) => {
        ctx.log.info("hello");
        seen = {
          job: ctx.job,
          slot: ctx.slot,
          attempt: ctx.attempt,
          payload: ctx.payload,
          aborted: ctx.signal.aborted,
        };
      },
    });
    await tickAt(s, T0 + 1);
    await tickAt(s, T0 + MIN);
    assert.deepEqual(seen, { job: "ctx", slot: T0 + MIN, attempt: 1, payload: { to: "ops" }, aborted: false });
    assert.ok(s.logger.lines.includes("info hello"));
  });

  it("a handler that returns nothing arms no timeout timer; one that returns a promise has it due at start + timeout", async () => {
    const s = setup();
    const timeoutAt = T0 + MIN + 30 * SEC;
    const armed = (): boolean => s.clock.pending().some((t) => t.at === timeoutAt);
    const seen: Record<string, boolean[]> = { sync: [], async: [] };
    s.scheduler.job("sync", { schedule: "* * * * *", timeout: "30s", run: () => void seen["sync"]!.push(armed()) });
    const release = deferred();
    s.scheduler.job("async", {
      schedule: "* * * * *",
      timeout: "30s",
      run: async () => {
        await null;
        seen["async"]!.push(armed());
        await release.promise;
      },
    });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + MIN);
    const tick = s.scheduler.tick();
    await s.clock.settle();
    assert.deepEqual(
      seen["sync"],
      [false],
      "the timer would be armed and cleared at once: a Timeout per run of a large minute",
    );
    assert.deepEqual(seen["async"], [true]);
    release.resolve();
    const report = await tick;
    assert.equal(report.jobs["sync"]!.outcomes[T0 + MIN], "ok");
    assert.equal(report.jobs["async"]!.outcomes[T0 + MIN], "ok");
    assert.equal(armed(), false, "the async run's timer is cleared when it settles");
  });

  it("reads signal, lease and log from the context by destructuring, as handlers do", async () => {
    const s = setup();
    let seen: unknown;
    s.scheduler.job("parts", {
      schedule: "* * * * *",
      run: ({ job, slot, attempt, signal, lease, log }) => {
        log.warn("parts");
        seen = { job, slot, attempt, aborted: signal.aborted, held: lease.held, node: lease.node };
      },
    });
    await tickAt(s, T0 + 1);
    await tickAt(s, T0 + MIN);
    assert.deepEqual(seen, {
      job: "parts",
      slot: T0 + MIN,
      attempt: 1,
      aborted: false,
      held: true,
      node: s.scheduler.node,
    });
    assert.ok(s.logger.lines.includes("warn parts"));
  });
});

describe("runs: a cancelled slot's outcome write", () => {
  it("a store that fails for good while a superseded slot records `cancelled` ends in a lost event, not a rejection", async () => {
    // A queued slot superseded before it started is recorded `cancelled` by `cancel()`
    // (runs.ts). Its write rejected once the store had failed past the lease, and the
    // rejection reached the run queue unhandled: on Node, a crash in a store outage.
    const events: { type: string; reason?: string }[] = [];
    const errors: string[] = [];
    const released: unknown[] = [];
    const deps = {
      registry: { counters: () => ({ cancelled: 0 }) },
      emit: (e: { type: string; reason?: string }) => void events.push(e),
      // The write fails for good, a turn later (as the writer says it).
      lease: {
        endTo: (_c: unknown, _p: unknown, sink: { failed(e: unknown): void }) =>
          queueMicrotask(() => sink.failed(new Error("store down"))),
      },
      tracker: { release: (c: unknown) => void released.push(c) },
      log: { debug() {}, info() {}, warn() {}, error: (m: string) => void errors.push(m) },
    } as unknown as RunnerDeps;
    const claim = { job: "j", slot: T0, attempt: 1, node: "n1", lost: true } as unknown as HeldClaim;
    assert.equal(await cancel(deps, claim, T0 + SEC), undefined);
    assert.deepEqual(events.map((e) => e.type), ["cancelled", "lost"]);
    assert.match(events[1]!.reason ?? "", /the store failed: store down/);
    assert.match(
      errors[0] ?? "",
      /"j": could not record the outcome of slot \d{4}-\d\d-\d\dT[\d:.]+Z; its lease will expire/,
    );
    assert.deepEqual(released, [claim]);
  });
});
