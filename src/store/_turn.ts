/**
 * Yielding to the event loop: the one zero-delay turn of `src/`, used by the stores and,
 * above them, by the engine's tick, sorting and the metrics scrape. A store whose work is
 * synchronous (the memory store, the embedded libSQL driver) would otherwise run a large
 * `snapshot()` as one block, starving timers (heartbeats, lease renewals) and I/O (HTTP reads).
 */

/** Resolves in a later turn of the event loop, after pending timers and I/O. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
