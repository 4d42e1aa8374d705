/**
 * Yielding to the event loop: the one zero-delay turn of `src/`, used by the stores and,
 * above them, by the engine's tick, sorting and the metrics scrape. A store whose work is
 * synchronous (the memory store, the embedded libSQL driver) would otherwise run a large
 * `snapshot()` as one block, starving timers (heartbeats, lease renewals) and I/O (HTTP reads).
 */

/**
 * Resolves in a later turn of the event loop, after pending timers and I/O. A message
 * on a fresh `MessageChannel` (every runtime has one) is such a turn without the
 * timers' clamp: Node holds `setTimeout(0)` for at least 1 ms, more on a loaded machine
 * (a metrics scrape at 100 000 jobs takes over a hundred turns). The channel is closed
 * once its message came, so nothing is left to keep the process alive.
 */
export function nextTurn(): Promise<void> {
  if (typeof MessageChannel !== "function") return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}
