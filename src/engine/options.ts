/** Scheduler options that need resolving once: the lease settings, capacity, store deadline. */
import { quote, SchedulerError } from "../core/errors.ts";
import { parseDuration } from "../core/duration.ts";
import type { LeasePolicy } from "./run/lease.ts";
import type { SchedulerOptions } from "./types.ts";

/** Default `concurrency`: see README ("Capacity"). */
export const DEFAULT_CONCURRENCY = 200;

type At = (field: string) => { code: "invalid-spec"; field: string; path: string };

/**
 * Resolves `lease` (default 15 s), `heartbeat` (default a third of the lease, at most half
 * of it) and `leaseGrace` (default 5 s: the fencing margin, see `run/policy.ts`).
 *
 * @throws {SchedulerError} `invalid-spec` naming the option.
 */
export function leasePolicy(options: SchedulerOptions, at: At): LeasePolicy {
  const leaseMs = parseDuration(options.lease ?? "15s", { ...at("lease"), min: 2 });
  const heartbeatMs = options.heartbeat === undefined
    ? Math.max(1, Math.floor(leaseMs / 3))
    : parseDuration(options.heartbeat, { ...at("heartbeat"), min: 1 });
  if (heartbeatMs > leaseMs / 2) {
    throw new SchedulerError(
      "invalid-spec",
      `heartbeat: must be at most half of lease (${leaseMs}ms), got ${heartbeatMs}ms`,
      { path: "heartbeat" },
    );
  }
  return { leaseMs, heartbeatMs, graceMs: parseDuration(options.leaseGrace ?? "5s", at("leaseGrace")) };
}

/**
 * Resolves `concurrency` (default {@link DEFAULT_CONCURRENCY}).
 *
 * @throws {SchedulerError} `invalid-spec` unless an integer >= 1.
 */
export function concurrencyOf(options: SchedulerOptions): number {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new SchedulerError("invalid-spec", `concurrency: expected an integer >= 1, got ${quote(concurrency)}`, {
      path: "concurrency",
    });
  }
  return concurrency;
}

/** Resolves `storeTimeout` (default 30 s; `Infinity` for none). @throws {SchedulerError} `invalid-spec`. */
export function storeTimeoutOf(options: SchedulerOptions, at: At): number {
  if (options.storeTimeout === undefined) return 30_000;
  if (options.storeTimeout === Infinity) return Infinity;
  return parseDuration(options.storeTimeout, { ...at("storeTimeout"), min: 1 });
}
