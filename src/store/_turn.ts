/**
 * Yielding to the event loop: the one zero-delay turn of `src/`, used by the stores and,
 * above them, by the engine's tick, sorting and the metrics scrape. A store whose work is
 * synchronous (the memory store, the embedded libSQL driver) would otherwise run a large
 * `snapshot()` as one block, starving timers (heartbeats, lease renewals) and I/O (HTTP reads).
 *
 * The turn is the host's `setImmediate` where it has one (Node, Deno, Bun, workerd with
 * `nodejs_compat`): it resolves after the I/O of the current loop iteration, and the next
 * iteration runs its due timers first, so a chain of turns never starves a timer (a due
 * timer waits at most two turns' work). Without it (workerd's plain globals), a zero-delay
 * timer, which Node would clamp to 1 ms: a 100 000-job scrape yields about 200 times, and
 * those turns idled 150-200 ms of it.
 * (A `MessageChannel` message was tried and dropped: on Deno and Bun due timers did not
 * run between such turns.)
 */

type Immediate = (callback: () => void) => unknown;

const immediate: Immediate | undefined = (() => {
  const found = (globalThis as { setImmediate?: Immediate }).setImmediate;
  return typeof found === "function" ? found.bind(globalThis) : undefined;
})();

/** Resolves in a later turn of the event loop, after pending I/O; a timer already due runs before a second turn resolves. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    if (immediate !== undefined) immediate(resolve);
    else setTimeout(resolve, 0);
  });
}
