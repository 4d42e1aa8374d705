/**
 * Yielding to the event loop inside a store. A store whose work is synchronous (the
 * memory store, the embedded libSQL driver) would otherwise run a large `snapshot()` as
 * one block, starving timers (heartbeats, lease renewals) and I/O (HTTP reads).
 */

/** Resolves in a later turn of the event loop, after pending timers and I/O. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
