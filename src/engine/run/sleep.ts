import type { Clock } from "../types.ts";
import type { RunTracker } from "./tracker.ts";

/** Waits `ms` on the scheduler's clock; wakes early when the scheduler stops. */
export function sleep(deps: { clock: Clock; tracker: RunTracker }, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const handle = deps.clock.setTimeout(() => {
      deps.tracker.controllers.delete(wake);
      resolve();
    }, ms);
    const wake = new AbortController();
    wake.signal.addEventListener("abort", () => {
      deps.clock.clearTimeout(handle);
      deps.tracker.controllers.delete(wake);
      resolve();
    });
    deps.tracker.controllers.add(wake);
  });
}
