/**
 * Deterministic jitter: the delay of a slot's start is a hash of the job's key and the
 * slot, so every node and every restart computes the same start for the same slot.
 */
import { fnv1a32 } from "../cron/hash.ts";
import { quote, SchedulerError } from "../errors.ts";

/** The share of the gap to the next slot a delay may take, at most. */
export const JITTER_GAP_SHARE = 0.9;

// A 32-bit finaliser (murmur3 fmix32): FNV-1a alone spreads close inputs poorly in the low bits.
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The delay (ms) of the start of `slot` for a job hashed by `key`: uniform over
 * `[0, min(jitterMs, 0.9 × gapMs))`, an integer; 0 when either bound is 0 or less.
 * `gapMs` is the time to the next slot (`Infinity` when there is none).
 *
 * @throws {SchedulerError} `invalid-duration` for a `jitterMs` that is not a finite number
 *
 * The value is `floor(u × range)` with `u = h / 2^32`, where `h` is murmur3's fmix32 of
 * FNV-1a 32 (`key + "\u0000jitter\u0000" + slot`, the slot in decimal epoch ms) mixed
 * with a second such hash — stable across nodes, runtimes and versions.
 *
 * @example
 * ```ts
 * import { jitterDelay } from "edgecron";
 *
 * jitterDelay("nightly", Date.UTC(2027, 0, 1), 600_000, 86_400_000); // same value on every node, < 600 000
 * ```
 */
export function jitterDelay(key: string, slot: number, jitterMs: number, gapMs: number): number {
  // Infinity (with no next slot) gave a delay of Infinity, or NaN; NaN gave 0.
  if (typeof jitterMs !== "number" || !(jitterMs < Infinity)) {
    throw new SchedulerError("invalid-duration", `jitter: expected finite milliseconds, got ${quote(jitterMs)}`);
  }
  const range = Math.min(jitterMs, JITTER_GAP_SHARE * gapMs);
  if (!(range > 0)) return 0;
  const text = `${key}\u0000jitter\u0000${slot}`;
  const hi = mix(fnv1a32(text));
  const lo = mix(fnv1a32(`${text}\u0000lo`));
  // 53 bits of the two hashes: uniform enough for ranges of any length in ms.
  const u = (hi * 2 ** 21 + (lo >>> 11)) / 2 ** 53;
  return Math.min(Math.floor(u * range), Math.ceil(range) - 1);
}
