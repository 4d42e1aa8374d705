/** What every contract case file shares: the test context, times, and request helpers. */
import { SchedulerError } from "../../core/errors.ts";
import type { ClaimRequest, StatusCounts, Store } from "../types.ts";
import { assert } from "./assert.ts";

/** A test harness's `it`: registers one named case (node:test, Deno.test steps, Vitest, Bun...). */
export type ItFunction = (name: string, fn: () => Promise<void>) => unknown;

/** What a case file receives. */
export interface ContractContext {
  it: ItFunction;
  /** Runs `fn` on a fresh, initialised store and closes it afterwards. */
  withStore(fn: (store: Store) => Promise<void>): Promise<void>;
}

/** The instant the cases start at. */
export const T0: number = Date.UTC(2026, 0, 1, 12, 0, 0);
/** One minute in ms. */
export const MIN = 60_000;

/** A claim request for `job` at `slot`, overridable field by field. */
export function request(job: string, slot: number, overrides: Partial<ClaimRequest> = {}): ClaimRequest {
  return {
    job,
    slot,
    kind: "scheduled",
    status: "running",
    overlap: "skip",
    node: "node-a",
    batch: `batch-${job}-${slot}`,
    now: slot,
    leaseUntil: slot + 10 * MIN,
    ...overrides,
  };
}

/** Row counts by status of a job with no rows (what `counts()`, `overview()` and `tally()` give it). */
export const ZERO_COUNTS: Readonly<StatusCounts> = Object.freeze({
  running: 0,
  cancelling: 0,
  buffered: 0,
  ok: 0,
  error: 0,
  timeout: 0,
  skipped: 0,
  missed: 0,
  abandoned: 0,
  cancelled: 0,
});

/** The outcomes of a claim call, in order. */
export const outcomes = (results: { outcome: string }[]): string[] => results.map((r) => r.outcome);

/** Asserts that `promise` rejects with a `SchedulerError` of `code` (and message matching `text`). */
export async function rejectsWith(promise: Promise<unknown>, code: string, text?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof SchedulerError, `expected a SchedulerError, got ${String(error)}`);
    assert.equal((error as SchedulerError).code, code);
    if (text) assert.match((error as SchedulerError).message, text);
    return true;
  });
}
