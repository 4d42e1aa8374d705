import type { Clock } from "../types.ts";
import type { RunTracker } from "./tracker.ts";
import { keepShape } from "../../core/kept.ts";

/**
 * An abort listener kept for the life of the module: on Node, a signal's listener records
 * have hidden classes of their own, freed once no signal has a listener (between minutes),
 * and the event code optimised for them with them (`core/kept.ts`). Made on first use:
 * workerd refuses an AbortController made at global scope.
 */
let kept: AbortController | undefined;

/** Waits `ms` on the scheduler's clock; wakes early when the scheduler stops, or when `signal` aborts. */
export function sleep(deps: { clock: Clock; tracker: RunTracker }, ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted === true) return Promise.resolve();
  if (kept === undefined) {
    kept = keepShape(new AbortController());
    kept.signal.addEventListener("abort", () => {});
  }
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
