// Adversarial: what a handler, a listener or a logger can throw, and what a broken
// user-supplied Schedule can return, must never crash, wedge or loop the scheduler.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Schedule } from "../../src/core/types.ts";
import { MIN, ofType, rows, SEC, setup, T0, tickAt } from "./_helpers.ts";

/** A value whose every conversion to text throws: cyclic, no prototype, throwing toString. */
function unprintable(): unknown {
  const o = Object.create(null) as Record<string, unknown>;
  o.self = o;
  return o;
}

class NastyError extends Error {
  override get message(): string {
    throw new Error("no message for you");
  }
}

describe("adversarial: what gets thrown", () => {
  const thrown: [string, () => unknown][] = [
    ["undefined", () => undefined],
    ["a cyclic object without a prototype", unprintable],
    ["an object whose toString and toJSON throw", () => ({
      toJSON: () => {
        throw new Error("j");
      },
      toString: () => {
        throw new Error("s");
      },
    })],
    ["an Error whose message getter throws", () => new NastyError()],
  ];
  for (const [label, make] of thrown) {
    it(`a handler throwing ${label} is recorded error; the store stays healthy`, async () => {
      const s = setup();
      s.scheduler.job("bad", {
        schedule: "* * * * *",
        run: () => {
          throw make();
        },
      });
      await tickAt(s, T0 + 1);
      const report = await tickAt(s, T0 + MIN);
      assert.equal(report.ok, true);
      assert.equal(report.jobs["bad"]!.outcomes[T0 + MIN], "error");
      const [row] = await rows(s.store, "bad");
      assert.equal(row!.status, "error");
      assert.equal(typeof row!.error, "string");
      assert.equal((await s.scheduler.health()).ok, true);
      assert.equal(ofType(s.events, "store-error").length, 0);
      assert.equal(s.clock.pending().length, 0, "the timeout timer was cleared");
    });
  }

  it("an onEvent listener throwing an unprintable value never rejects tick() nor stops the timer", async () => {
    const s = setup({
      onEvent: () => {
        throw unprintable();
      },
    });
    const slots: number[] = [];
    s.scheduler.job("x", { schedule: "* * * * *", run: (ctx) => void slots.push(ctx.slot) });
    const report = await tickAt(s, T0 + 1);
    assert.equal(report.ok, true);
    s.scheduler.start();
    await s.clock.set(T0 + 3 * MIN);
    assert.deepEqual(slots, [T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN]);
    assert.equal((await s.scheduler.health()).running, true);
    await s.scheduler.stop();
  });

  it("a logger throwing an unprintable value never reaches a run", async () => {
    const boom = (): never => {
      throw unprintable();
    };
    const s = setup({
      logger: { debug: boom, info: boom, warn: boom, error: boom },
      onEvent: () => {
        throw new Error("x");
      },
    });
    s.scheduler.job("x", { schedule: "* * * * *", run: (ctx) => ctx.log.error("hi") });
    await tickAt(s, T0 + 1);
    assert.equal((await tickAt(s, T0 + MIN)).jobs["x"]!.outcomes[T0 + MIN], "ok");
  });
});

/** A Schedule whose `next`/`between` return what `bad` says, on top of a real minutely grid. */
function brokenSchedule(
  bad: { next?: (after: number) => number | null; between?: (from: number, to: number) => Iterable<number> },
): Schedule {
  const minute = (after: number): number => Math.floor(after / MIN) * MIN + MIN;
  return {
    kind: "cron",
    timezone: "UTC",
    next: bad.next ?? minute,
    nextRuns: (after, n) => Array.from({ length: n }, (_, i) => minute(after) + i * MIN),
    prev: (before) => Math.ceil(before / MIN) * MIN - MIN,
    between: bad.between ?? function* (from, to) {
      for (let t = minute(from); t <= to; t += MIN) yield t;
    },
    toString: () => "broken",
    toJSON: () => ({ cron: "* * * * *" }),
  };
}

describe("adversarial: a user Schedule returning garbage", () => {
  const nexts: [string, (after: number) => number | null][] = [
    ["NaN", () => Number.NaN],
    ["a slot before `after`", (after) => after - 5 * SEC],
    ["`after` itself", (after) => after],
    ["a non-integer", (after) => after + 0.5],
    ["Infinity", () => Number.POSITIVE_INFINITY],
  ];
  for (const [label, next] of nexts) {
    it(`next() returning ${label} never spins the timer (at most one wake per second)`, async () => {
      const s = setup();
      s.scheduler.job("broken", { schedule: brokenSchedule({ next }), run: () => {} });
      s.scheduler.job("fine", { schedule: "* * * * *", run: () => {} });
      s.scheduler.start();
      const advanced = s.clock.advance(2 * MIN);
      await advanced;
      const ticks = ofType(s.events, "tick").length;
      assert.ok(ticks <= 4, `${ticks} ticks in 2 minutes`);
      await s.scheduler.stop();
    });
  }

  const betweens: [string, (from: number, to: number) => Iterable<number>][] = [
    ["a non-integer slot", function* (_f, to) {
      yield to - 0.5;
    }],
    ["NaN", function* () {
      yield Number.NaN;
    }],
    ["a future slot", function* (_f, to) {
      yield to + MIN;
    }],
    ["slots at or before `from`", function* (from) {
      yield from;
      yield from - MIN;
    }],
    ["the same slot forever", function* (_f, to) {
      for (;;) yield to;
    }],
    ["descending slots forever", function* (_f, to) {
      for (let t = to;; t -= MIN) yield t;
    }],
  ];
  for (const [label, between] of betweens) {
    it(`between() yielding ${label} plans nothing for that job, never hangs, and other jobs still run`, async () => {
      const s = setup();
      let broken = 0;
      const fine: number[] = [];
      s.scheduler.job("broken", {
        schedule: brokenSchedule({ between }),
        catchUp: { mode: "latest", window: "1h" },
        run: () => void broken++,
      });
      s.scheduler.job("fine", { schedule: "* * * * *", run: (ctx) => void fine.push(ctx.slot) });
      await tickAt(s, T0 + 1);
      const report = await tickAt(s, T0 + MIN);
      assert.equal(report.ok, true, report.error);
      assert.deepEqual(fine, [T0 + MIN]);
      assert.equal(broken, 0);
      assert.deepEqual(await rows(s.store, "broken"), []);
      assert.ok(s.logger.lines.some((l) => l.startsWith('error job "broken"')), s.logger.lines.join("\n"));
    });
  }

  it("a Schedule whose toString throws does not break list()", async () => {
    const s = setup();
    const schedule = {
      ...brokenSchedule({}),
      toString: (): string => {
        throw new Error("s");
      },
    };
    s.scheduler.job("odd", { schedule, run: () => {} });
    const [info] = await s.scheduler.list();
    assert.equal(info!.name, "odd");
    assert.equal(typeof info!.schedule, "string");
  });
});
