/** `Deno`'s signal API as the `SignalTarget` the shared stop sequence binds. Private to `adapters/deno/`. */
import type { SignalTarget } from "../_lifecycle.ts";

/**
 * A `SignalTarget` over `Deno.addSignalListener`, so Deno stops on a signal as Node and
 * Bun do (`bindSignals`: a line on stderr, a second signal exits 1 with a line saying so).
 * A listener the platform refuses (Deno Deploy; SIGTERM on Windows) is left out: the
 * platform stops the isolate itself.
 */
export function denoSignals(): SignalTarget {
  const bound = new Map<string, () => void>();
  return {
    on(signal, listener) {
      const handler = (): void => listener(signal);
      try {
        Deno.addSignalListener(signal as Deno.Signal, handler);
        bound.set(signal, handler);
      } catch {
        // Refused here: the platform stops us.
      }
    },
    off(signal) {
      const handler = bound.get(signal);
      if (handler === undefined) return;
      bound.delete(signal);
      Deno.removeSignalListener(signal as Deno.Signal, handler);
    },
    exit: (code) => Deno.exit(code),
  };
}
