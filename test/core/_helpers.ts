// Shared by the core tests: instants written as ISO text, read back as epoch ms.
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";

/** Epoch ms of an ISO instant (must carry Z or an offset). */
export function ms(text: string): number {
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw new Error(`bad test instant ${text}`);
  return t;
}

/** ISO text of epoch ms (null stays null), for readable assertion diffs. */
export function iso(t: number | null): string | null {
  return t === null ? null : new Date(t).toISOString();
}

/** Asserts that `run` throws a SchedulerError with this code and, when given, this exact message. */
export function assertSchedulerError(run: () => unknown, code: string, message?: string): void {
  assert.throws(run, (e: unknown) => {
    assert.ok(e instanceof SchedulerError, `expected SchedulerError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (message !== undefined) assert.equal(e.message, message);
    return true;
  });
}
