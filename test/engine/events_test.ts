import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { consoleLogger, logEvent, safeLogger } from "../../src/engine/events.ts";
import type { Logger } from "../../src/engine/types.ts";
import { memoryLogger, T0 } from "./_helpers.ts";

type ConsoleLevel = "debug" | "info" | "warn" | "error";

/** Runs `body` with the console's four methods collecting lines; restores them after. */
function withConsole(body: () => void): string[] {
  const lines: string[] = [];
  const levels: ConsoleLevel[] = ["debug", "info", "warn", "error"];
  const saved = levels.map((level) => console[level]);
  for (const level of levels) console[level] = (text: string) => void lines.push(`${level} ${text}`);
  try {
    body();
  } finally {
    levels.forEach((level, i) => (console[level] = saved[i]!));
  }
  return lines;
}

describe("logEvent", () => {
  it("writes a slot as Date's ISO text, for any whole millisecond in years 1970-9999 and beyond", () => {
    const log = memoryLogger();
    const check = (slot: number): void => {
      log.lines.length = 0;
      logEvent(log, { type: "claimed", job: "a", slot });
      assert.deepEqual(log.lines, [`debug job "a" claimed slot ${new Date(slot).toISOString()}`]);
    };
    const edges = [
      0,
      1,
      999,
      86_399_999,
      86_400_000,
      T0,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      253_402_300_799_999,
      253_402_300_800_000,
      8.64e15,
      -1,
      -8.64e15,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      1.5,
      T0 + 0.25,
    ];
    for (const slot of edges) check(slot);
    fc.assert(fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), check), { numRuns: 2000 });
  });

  it("throws for a slot Date cannot write, as Date does", () => {
    assert.throws(() => logEvent(memoryLogger(), { type: "missed", job: "a", slot: Number.NaN }), RangeError);
  });

  it("formats each event type's line", () => {
    const log = memoryLogger();
    const slot = T0;
    logEvent(log, { type: "started", job: "a", slot, attempt: 2, kind: "scheduled" });
    logEvent(log, { type: "succeeded", job: "a", slot, attempt: 1, durationMs: 12 });
    logEvent(log, { type: "failed", job: "a", slot, attempt: 1, error: "boom", willRetry: true });
    logEvent(log, { type: "abandoned", job: "a", slot, attempt: 1, node: "n1", willRetry: false });
    assert.deepEqual(log.lines, [
      'debug job "a" started slot 2030-01-01T00:00:00.000Z (attempt 2)',
      'info job "a" succeeded at 2030-01-01T00:00:00.000Z in 12ms',
      'warn job "a" failed at 2030-01-01T00:00:00.000Z (attempt 1): boom; will retry',
      'warn job "a" slot 2030-01-01T00:00:00.000Z abandoned by node "n1" (attempt 1)',
    ]);
  });
});

describe("consoleLogger", () => {
  it("drops debug lines unless asked, and writes the others with their fields", () => {
    const lines = withConsole(() => {
      const quiet = safeLogger(consoleLogger());
      logEvent(quiet, { type: "claimed", job: "a", slot: T0 });
      logEvent(quiet, { type: "tick", now: T0, report: { now: T0, node: "n", ok: true, jobs: {} } });
      logEvent(quiet, { type: "missed", job: "a", slot: T0 });
      quiet.warn("careful", { n: 1 });
      const loud = safeLogger(consoleLogger({ debug: true }));
      logEvent(loud, { type: "claimed", job: "a", slot: T0 });
      loud.debug("plain");
    });
    assert.deepEqual(lines, [
      'info edgecron: job "a" missed slot 2030-01-01T00:00:00.000Z',
      'warn edgecron: careful {"n":1}',
      'debug edgecron: job "a" claimed slot 2030-01-01T00:00:00.000Z',
      "debug edgecron: plain",
    ]);
  });
});

describe("safeLogger", () => {
  it("adds its fixed fields and swallows a throwing logger", () => {
    const seen: unknown[] = [];
    const inner: Logger = {
      debug: (m, f) => void seen.push(["debug", m, f]),
      info: (m, f) => void seen.push(["info", m, f]),
      warn: () => {
        throw new Error("broken");
      },
      error: (m, f) => void seen.push(["error", m, f]),
    };
    const log = safeLogger(inner, { job: "a" });
    log.debug("d");
    log.info("i", { slot: 1 });
    assert.doesNotThrow(() => log.warn("w"));
    log.error("e", { job: "b" });
    assert.deepEqual(seen, [["debug", "d", { job: "a" }], ["info", "i", { job: "a", slot: 1 }], ["error", "e", {
      job: "b",
    }]]);
    const bare: unknown[] = [];
    safeLogger({ ...inner, info: (...args: unknown[]) => void bare.push(args) }).info("x");
    assert.deepEqual(bare, [["x"]]);
  });

  it("drops the levels a partial logger leaves out, without formatting their event lines", () => {
    const seen: string[] = [];
    const log = safeLogger({ error: (m) => void seen.push(`error ${m}`) });
    assert.doesNotThrow(() => {
      log.debug("d");
      log.info("i");
      log.warn("w");
    });
    // A slot the formatter would throw on: a dropped level never formats it.
    assert.doesNotThrow(() =>
      logEvent(log, { type: "succeeded", job: "a", slot: Number.NaN, attempt: 1, durationMs: 1 })
    );
    assert.doesNotThrow(() => logEvent(log, { type: "missed", job: "a", slot: Number.NaN }));
    logEvent(log, { type: "failed", job: "a", slot: T0, attempt: 1, error: "boom", willRetry: false });
    assert.deepEqual(seen, [`error job "a" failed at ${new Date(T0).toISOString()} (attempt 1): boom`]);
  });
});
