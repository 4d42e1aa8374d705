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

/**
 * Creates a controller that makes its `AbortController` on first use of `signal`. One
 * object per run, its methods on the prototype: a minute of 10 000 runs makes no closures
 * for it.
 */
export function lazyAbort(): LazyAbort {
  return new Lazy();
}

class Lazy implements LazyAbort {
  /**
   * One controller kept for the life of the module. V8 makes the hidden classes a class's
   * fields give its instances when the first instance gets them, and holds them weakly:
   * once a minute's last controller was collected they went too, and so did the run path's
   * optimised code, which was specialised on them. Every minute compiled it again
   * (test/integration/warm_test.ts).
   */
  static readonly kept: Lazy = new Lazy();
  #controller: AbortController | undefined = undefined;
  #aborted = false;
  #reason: unknown = undefined;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  abort(why?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = why;
    this.#controller?.abort(why);
  }
}
