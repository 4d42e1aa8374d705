/** Logging and event delivery that can never throw into the scheduler. */
import type { Logger, SchedulerEvent } from "./types.ts";

type Level = keyof Logger;
const LEVELS: readonly Level[] = ["debug", "info", "warn", "error"];

/**
 * A logger writing one line per message to the global `console`, prefixed
 * `edgecron:`; fields are appended as JSON. `debug` is dropped unless `debug: true`.
 *
 * @example createScheduler({ logger: consoleLogger({ debug: true }) })
 */
export function consoleLogger(options: { debug?: boolean } = {}): Logger {
  const line = (level: Level, message: string, fields?: Record<string, unknown>): void => {
    if (level === "debug" && options.debug !== true) return;
    const tail = fields === undefined || Object.keys(fields).length === 0 ? "" : ` ${safeJson(fields)}`;
    console[level](`edgecron: ${message}${tail}`);
  };
  return {
    debug: (m, f) => line("debug", m, f),
    info: (m, f) => line("info", m, f),
    warn: (m, f) => line("warn", m, f),
    error: (m, f) => line("error", m, f),
  };
}

/**
 * Wraps a logger so that a throwing method is swallowed, and optionally adds
 * fixed fields to every line (the run context's logger adds job, slot, attempt).
 */
export function safeLogger(inner: Logger, extra?: Record<string, unknown>): Logger {
  const wrap = (level: Level) => (message: string, fields?: Record<string, unknown>): void => {
    try {
      const merged = extra === undefined ? fields : { ...extra, ...fields };
      if (merged === undefined) inner[level](message);
      else inner[level](message, merged);
    } catch {
      // A broken logger must not take a run or a tick down with it.
    }
  };
  const out = {} as Logger;
  for (const level of LEVELS) out[level] = wrap(level);
  return out;
}

/** Quotes a job name for a log line: `job "nightly"`. */
export function jobLabel(name: string): string {
  return `job ${JSON.stringify(name)}`;
}

/** Delivers events to a listener; a throwing listener is logged once per event and ignored. */
export function createEmitter(
  listener: ((event: SchedulerEvent) => void) | undefined,
  log: Logger,
): (event: SchedulerEvent) => void {
  return (event) => {
    if (listener === undefined) return;
    try {
      const result: unknown = listener(event);
      // An async listener's rejection must not surface as an unhandled rejection.
      if (result instanceof Promise) result.catch((e: unknown) => log.warn("onEvent listener rejected", { error: errorText(e) }));
    } catch (e) {
      log.warn("onEvent listener threw", { error: errorText(e), event: event.type });
    }
  };
}

/** The readable text of anything thrown; never throws itself. */
export function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message || error.name);
    if (typeof error === "string") return error;
    return safeJson(error);
  } catch {
    // A value whose getters or conversions throw must not turn a failed run into a crash.
    return "unprintable thrown value";
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Logs one line for an event, job names quoted:
 * `job "nightly" failed at 2030-01-01T03:00:00.000Z (attempt 1): boom; will retry`.
 */
export function logEvent(log: Logger, event: SchedulerEvent): void {
  const at = (slot: number): string => new Date(slot).toISOString();
  switch (event.type) {
    case "tick":
      return log.debug(`tick at ${at(event.now)}`, { ok: event.report.ok, jobs: Object.keys(event.report.jobs).length });
    case "claimed":
    case "lost":
      return log.debug(`${jobLabel(event.job)} ${event.type} slot ${at(event.slot)}`);
    case "started":
      return log.debug(`${jobLabel(event.job)} started slot ${at(event.slot)} (attempt ${event.attempt})`);
    case "succeeded":
      return log.info(`${jobLabel(event.job)} succeeded at ${at(event.slot)} in ${event.durationMs}ms`);
    case "failed":
      return log[event.willRetry ? "warn" : "error"](
        `${jobLabel(event.job)} failed at ${at(event.slot)} (attempt ${event.attempt}): ${event.error}${event.willRetry ? "; will retry" : ""}`,
      );
    case "timed-out":
      return log[event.willRetry ? "warn" : "error"](
        `${jobLabel(event.job)} timed out at ${at(event.slot)} (attempt ${event.attempt})${event.willRetry ? "; will retry" : ""}`,
      );
    case "skipped":
      return log.info(`${jobLabel(event.job)} skipped slot ${at(event.slot)}: still running`);
    case "missed":
      return log.info(`${jobLabel(event.job)} missed slot ${at(event.slot)}`);
    case "abandoned":
      return log.warn(
        `${jobLabel(event.job)} slot ${at(event.slot)} abandoned by node ${JSON.stringify(event.node)} (attempt ${event.attempt})${event.willRetry ? "; re-running" : ""}`,
      );
    case "store-error":
      return log.error(`store error: ${event.error}; no slot runs until it recovers`);
    case "stuck":
      return log.warn(
        `${jobLabel(event.job)} slot ${at(event.slot)} is stuck: its handler ignored the abort and is still running (attempt ${event.attempt})`,
      );
  }
}
