import type { Clock } from "../types.ts";
import type { RunTracker } from "./tracker.ts";

/** Waits `ms` on the scheduler's clock; wakes early when the scheduler stops, or when `signal` aborts. */
export function sleep(deps: { clock: Clock; tracker: RunTracker }, ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted === true) return Promise.resolve();
  return new Promise((resolve) => {
    const wake = new AbortController();
    const end = (): void => {
      deps.tracker.controllers.delete(wake);
      signal?.removeEventListener("abort", early);
      resolve();
    };
    const handle = deps.clock.setTimeout(end, ms);
    const early = (): void => {
      deps.clock.clearTimeout(handle);
      end();
    };
    wake.signal.addEventListener("abort", early);
    signal?.addEventListener("abort", early, { once: true });
    deps.tracker.controllers.add(wake);
  });
}
