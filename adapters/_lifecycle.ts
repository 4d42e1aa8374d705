/**
 * The shutdown sequence the long-lived adapters share (portable: the adapters bind it to
 * their runtime's signals). Private to `adapters/`.
 */
import type { Scheduler } from "../src/engine/types.ts";

/** Options of a graceful stop. */
export interface ShutdownOptions {
  /**
   * Until this, slots already claimed still start (one claimed ahead at its slot); then
   * handlers get their `AbortSignal` aborted and what has not started is released; default `"10s"`.
   */
  grace?: string | number;
  /** Stop waiting for runs after this; default `"30s"`. */
  deadline?: string | number;
}

/** Closes whatever serves HTTP; resolves once it stopped accepting requests. */
export type CloseServer = () => Promise<void> | void;

/**
 * Returns an idempotent `shutdown()`: stop claiming, let the slots already won start
 * (within the grace) and the runs settle (within the deadline), then close the HTTP
 * server, then close the store. Every
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
      await step("close store", () => scheduler.close());
    })();
    return done;
  };
}

/** How long closing the HTTP server waits for answers still being written before it cuts them. */
export const CLOSE_GRACE_MS = 2_000;

/**
 * Closes a server: `close(cut)` (no new connections; idle ones closed; answers in flight
 * finish: a manual run's outcome, which the stop just waited for) for at most
 * {@link CLOSE_GRACE_MS}, then `force()` cuts what is left (a client that trickles its
 * request must not hold the process). `cut` aborts then, so a `close()` that polls stops.
 * Cutting at once lost the answer of a manual run that had just ended `ok`.
 */
export async function closeGracefully(
  close: (cut: AbortSignal) => Promise<unknown> | void,
  force: () => void,
): Promise<void> {
  const cut = new AbortController();
  const timer = setTimeout(() => cut.abort(), CLOSE_GRACE_MS);
  try {
    await Promise.race([close(cut.signal), new Promise((resolve) => cut.signal.addEventListener("abort", resolve))]);
  } finally {
    clearTimeout(timer);
    cut.abort();
    force();
  }
}

/** The options the long-lived server adapters (Node, Bun) share. */
export interface ServerOptions extends ShutdownOptions {
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Default `"127.0.0.1"` (loopback, as the examples); `"0.0.0.0"` for all interfaces (in a container). */
  hostname?: string;
  /** Run timer mode (`scheduler.start()`); default true. */
  timer?: boolean;
  /** Signals that trigger the graceful stop; default `["SIGINT", "SIGTERM"]`, `[]` for none. */
  signals?: ("SIGINT" | "SIGTERM" | "SIGHUP")[];
  /** Exit the process (code 0) after a signal-triggered stop; default true. */
  exit?: boolean;
  /** Called once listening (the adapter also logs one `listening on <url>` line through the scheduler's logger). */
  onListen?: (info: { url: string; port: number }) => void;
}

/** A running server. */
export interface ServerHandle {
  url: string;
  port: number;
  /** The graceful stop (idempotent): scheduler, then HTTP server, then store. */
  shutdown(): Promise<void>;
}

/** The slice of a process object signal handling needs (Node's and Bun's `process`). */
export interface SignalTarget {
  on(signal: string, listener: (signal: string) => void): unknown;
  off(signal: string, listener: (signal: string) => void): unknown;
  exit(code: number): void;
}

/**
 * Runs `shutdown()` on the first of `signals`, then exits 0 when `exit`; a second signal
 * while runs settle exits 1 at once (the operator insists). Reports on stderr via `log`.
 */
export function bindSignals(
  target: SignalTarget,
  shutdown: () => Promise<void>,
  options: { signals: readonly string[]; exit: boolean; log: (line: string) => void },
): void {
  const { signals, exit, log } = options;
  let signalled = false;
  const onSignal = (signal: string): void => {
    if (signalled) {
      log(`edgecron: ${signal} again, exiting now`);
      target.exit(1);
      return;
    }
    signalled = true;
    log(`edgecron: ${signal}: stopping (runs settle, then the store closes)`);
    void shutdown().then(() => {
      for (const s of signals) target.off(s, onSignal);
      if (exit) target.exit(0);
    });
  };
  for (const signal of signals) target.on(signal, onSignal);
}
