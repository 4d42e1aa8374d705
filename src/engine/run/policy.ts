/**
 * Lease arithmetic, in one place. A lease written at `from` (the writer's clock) holds
 * the run until its fence, `from + lease` (never past the attempt's start + timeout);
 * the store keeps the fence plus the lease grace. Other nodes see the lease end only at
 * the stored end, on their own clocks, so a node whose clock runs up to the grace ahead
 * still sees it live while the writer's handler may run.
 */

/** The lease settings, resolved. */
export interface LeasePolicy {
  /** Length of one lease: how long a run holds its claim after the renewal that was last confirmed. */
  leaseMs: number;
  /** Time between renewals. */
  heartbeatMs: number;
  /** The fencing margin: the stored lease end lies this far past the fence (tolerated clock skew, time to record an outcome). */
  graceMs: number;
}

/**
 * The latest fence of an attempt started at `startedAt`: a millisecond past its timeout,
 * so the timeout (not the fence) is what aborts a run that reaches it.
 */
export function leaseCap(startedAt: number, timeoutMs: number): number {
  return startedAt + timeoutMs + 1;
}

/** THE stored lease end for a lease written at `from`: a fence of one lease (at most `capUntil`) plus the grace. */
export function leaseUntil(policy: LeasePolicy, from: number, capUntil: number): number {
  return Math.min(from + policy.leaseMs, capUntil) + policy.graceMs;
}

/** The fence of a stored lease end: the grace before it. */
export function fenceOf(policy: LeasePolicy, storedUntil: number): number {
  return storedUntil - policy.graceMs;
}
