/**
 * The shutdown sequence the long-lived adapters share (portable: the adapters bind it to
 * their runtime's signals). Private to `adapters/`.
 */
import type { Scheduler } from "../src/engine/types.ts";

/** Options of a graceful stop. */
export interface ShutdownOptions {
  /** Handlers get their `AbortSignal` aborted after this; default `"10s"`. */
  grace?: string | number;
  /** Stop waiting for runs after this; default `"30s"`. */
  deadline?: string | number;
}

/** Closes whatever serves HTTP; resolves once it stopped accepting requests. */
export type CloseServer = () => Promise<void> | void;

/**
 * Returns an idempotent `shutdown()`: stop arming timers and let running handlers
 * settle within the deadline, then close the HTTP server, then close the store. Every
 * call returns the same promise; failures are reported through `onError`, never thrown,
 * so a process can always exit.
 *
 * @example const shutdown = createShutdown(scheduler, () => server.close(), { deadline: "20s" })
 */
export function createShutdown(
  scheduler: Scheduler,
  closeServer: CloseServer,
  options: ShutdownOptions & { onError?: (step: string, error: unknown) => void } = {},
): () => Promise<void> {
  const { grace = "10s", deadline = "30s", onError = () => {} } = options;
  let done: Promise<void> | undefined;
  const step = async (name: string, fn: () => Promise<void> | void): Promise<void> => {
    try {
      await fn();
    } catch (error) {
      onError(name, error);
    }
  };
  return () => {
    done ??= (async () => {
      // The scheduler first: a run still in flight may be serving an HTTP call's
      // manual run, and its outcome must reach the store before the store closes.
      await step("stop scheduler", () => scheduler.stop({ grace, deadline }));
      await step("close server", closeServer);
      await step("close store", () => scheduler.store.close());
    })();
    return done;
  };
}
