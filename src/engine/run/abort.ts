/**
 * An abort controller whose `AbortSignal` is made only when someone asks for it: a minute
 * of 10 000 runs whose handlers never read `ctx.signal` builds no signal (an
 * `AbortController` and its `EventTarget` cost more than the rest of a no-op run's start).
 * An abort before the signal exists is kept and applied when it is made.
 */

/** What the scheduler aborts: a running handler, or a wait it must end early. */
export interface Abortable {
  abort(reason?: unknown): void;
}

/** A lazily made `AbortController`. */
export interface LazyAbort extends Abortable {
  /** The signal, made on first use (already aborted, with the reason, when `abort()` came first). */
  readonly signal: AbortSignal;
  /** Whether `abort()` was called. */
  readonly aborted: boolean;
}

/** Creates a controller that makes its `AbortController` on first use of `signal`. */
export function lazyAbort(): LazyAbort {
  let controller: AbortController | undefined;
  let aborted = false;
  let reason: unknown;
  return {
    get signal(): AbortSignal {
      if (controller === undefined) {
        controller = new AbortController();
        if (aborted) controller.abort(reason);
      }
      return controller.signal;
    },
    get aborted(): boolean {
      return aborted;
    },
    abort(why?: unknown): void {
      if (aborted) return;
      aborted = true;
      reason = why;
      controller?.abort(why);
    },
  };
}
