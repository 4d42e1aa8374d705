/** Logging and event delivery that can never throw into the scheduler. */
import { civilDay, civilFromDays, civilMonth, civilYear } from "../core/civil.ts";
import { type ErrorDetail, errorDetail, errorDetailText, errorText, jobLabel, safeJson } from "./text.ts";
import { formatDuration } from "../core/duration.ts";
import type { Logger, SchedulerEvent } from "./types.ts";

type Level = keyof Logger;
type LogMethod = Logger[Level];

// The method of a level nothing is written at. Compared by identity so that event lines
// for that level are not even formatted (10 000 jobs claim 10 000 slots per tick).
const DROPPED: LogMethod = () => {};

/**
 * A logger writing one line per message to the global `console`, prefixed
 * `edgecron:`; fields are appended as JSON. `debug` is dropped unless `debug: true`.
 *
 * @example
 * ```ts
 * import { consoleLogger, createScheduler } from "edgecron";
 *
 * createScheduler({ logger: consoleLogger({ debug: true }) });
 * ```
 */
export function consoleLogger(options: { debug?: boolean } = {}): Logger {
  const debug = options.debug === true;
  return {
    debug: debug ? (m, f) => consoleLine("debug", m, f) : DROPPED,
    info: (m, f) => consoleLine("info", m, f),
    warn: (m, f) => consoleLine("warn", m, f),
    error: (m, f) => consoleLine("error", m, f),
  };
}

function consoleLine(level: Level, message: string, fields?: Record<string, unknown>): void {
  // A thrown error's detail is printed as a stack below the line, not as escaped JSON.
  const detail = fields !== undefined && isErrorDetail(fields["error"]) ? fields["error"] : undefined;
  const rest = detail === undefined
    ? fields
    : Object.fromEntries(Object.entries(fields!).filter(([k]) => k !== "error"));
  const tail = rest === undefined || Object.keys(rest).length === 0 ? "" : ` ${safeJson(rest)}`;
  console[level](`edgecron: ${message}${tail}${detail === undefined ? "" : `\n${errorDetailText(detail)}`}`);
}

function isErrorDetail(value: unknown): value is ErrorDetail {
  return typeof value === "object" && value !== null && typeof (value as ErrorDetail).class === "string" &&
    typeof (value as ErrorDetail).message === "string";
}

/**
 * Wraps a logger so that a throwing method is swallowed, and optionally adds
 * fixed fields to every line (the run context's logger adds job, slot, attempt).
 */
export function safeLogger(inner: Partial<Logger>, extra?: Record<string, unknown>): Logger {
  // A level the logger leaves out (or drops) is dropped here too: its lines are not even formatted.
  const at = (level: Level): LogMethod | undefined =>
    typeof inner[level] === "function" && inner[level] !== DROPPED
      ? (m, f) => callSafely(inner as Logger, level, extra, m, f)
      : undefined;
  return {
    debug: at("debug") ?? DROPPED,
    info: at("info") ?? DROPPED,
    warn: at("warn") ?? DROPPED,
    error: at("error") ?? DROPPED,
  };
}

function callSafely(
  inner: Logger,
  level: Level,
  extra: Record<string, unknown> | undefined,
  message: string,
  fields: Record<string, unknown> | undefined,
): void {
  try {
    const merged = extra === undefined ? fields : { ...extra, ...fields };
    if (merged === undefined) inner[level](message);
    else inner[level](message, merged);
  } catch {
    // A broken logger must not take a run or a tick down with it.
  }
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
      if (result instanceof Promise) {
        result.catch((e: unknown) => log.warn("onEvent listener rejected", { error: errorText(e) }));
      }
    } catch (e) {
      log.warn("onEvent listener threw", { error: errorText(e), event: event.type });
    }
  };
}

/**
 * Logs one line for an event, job names quoted:
 * `job "nightly" failed at 2030-01-01T03:00:00.000Z (attempt 1): boom; will retry`.
 */
export function logEvent(log: Logger, event: SchedulerEvent): void {
  switch (event.type) {
    case "tick":
      if (log.debug === DROPPED) return;
      return log.debug(`tick at ${isoText(event.now)}`, {
        ok: event.report.ok,
        jobs: Object.keys(event.report.jobs).length,
      });
    case "lost":
      if ("reason" in event) {
        return log.warn(
          `${jobLabel(event.job)} slot ${
            isoText(event.slot)
          } (attempt ${event.attempt}): outcome not recorded: ${event.reason}`,
        );
      }
      if (log.debug === DROPPED) return;
      return log.debug(`${jobLabel(event.job)} lost slot ${isoText(event.slot)}`);
    case "claimed":
      if (log.debug === DROPPED) return;
      return log.debug(`${jobLabel(event.job)} ${event.type} slot ${isoText(event.slot)}`);
    case "started":
      if (log.debug === DROPPED) return;
      return log.debug(`${jobLabel(event.job)} started slot ${isoText(event.slot)} (attempt ${event.attempt})`);
    case "succeeded":
      if (log.info === DROPPED) return;
      return log.info(`${jobLabel(event.job)} succeeded at ${isoText(event.slot)} in ${event.durationMs}ms`);
    case "failed": {
      const line = `${jobLabel(event.job)} failed at ${isoText(event.slot)} (attempt ${event.attempt}): ${event.error}${
        event.willRetry ? "; will retry" : ""
      }`;
      const level = event.willRetry ? "warn" : "error";
      return "thrown" in event ? log[level](line, { error: errorDetail(event.thrown) }) : log[level](line);
    }
    case "timed-out": {
      const limit = event.timeoutMs === undefined
        ? ""
        : ` after ${formatDuration(event.timeoutMs)} (its timeout; raise it with the job's \`timeout\` option)`;
      return log[event.willRetry ? "warn" : "error"](
        `${jobLabel(event.job)} timed out at ${isoText(event.slot)} (attempt ${event.attempt})${limit}${
          event.willRetry ? "; will retry" : ""
        }`,
      );
    }
    case "skipped":
      if (log.info === DROPPED) return;
      return log.info(`${jobLabel(event.job)} skipped slot ${isoText(event.slot)}: still running`);
    case "missed":
      if (log.info === DROPPED) return;
      return log.info(`${jobLabel(event.job)} missed slot ${isoText(event.slot)}`);
    case "paused":
      return log.warn(`${jobLabel(event.job)} paused by ${event.by}: ${event.reason}`);
    case "buffered":
      if (log.info === DROPPED) return;
      return log.info(`${jobLabel(event.job)} slot ${isoText(event.slot)} waits for the live run to settle`);
    case "cancelled":
      return log.warn(
        `${jobLabel(event.job)} slot ${isoText(event.slot)} cancelled (attempt ${event.attempt}): ${event.reason}`,
      );
    case "abandoned":
      return log.warn(
        `${jobLabel(event.job)} slot ${isoText(event.slot)} abandoned by node ${
          JSON.stringify(event.node)
        } (attempt ${event.attempt})${event.willRetry ? "; re-running" : ""}`,
      );
    case "store-error":
      return log.error(storeErrorLine(event.error));
    case "stuck":
      return log.warn(
        `${jobLabel(event.job)} slot ${
          isoText(event.slot)
        } is stuck: its handler ignored the abort and is still running (attempt ${event.attempt})`,
      );
  }
}

const MS_PER_DAY = 86_400_000;
// 10000-01-01T00:00:00Z: from here on toISOString writes a six-digit signed year.
const FIVE_DIGIT_YEARS = 253_402_300_800_000;

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/**
 * `new Date(ms).toISOString()`, by integer arithmetic for whole milliseconds in
 * 1970–9999 (formatting the slot of every event line through Date costs more than the
 * rest of the line); anything else still goes through Date, throwing as it does.
 */
function isoText(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= FIVE_DIGIT_YEARS) return new Date(ms).toISOString();
  const days = Math.floor(ms / MS_PER_DAY);
  const date = civilFromDays(days);
  const t = ms - days * MS_PER_DAY;
  const time = `${pad(Math.floor(t / 3_600_000), 2)}:${pad(Math.floor(t / 60_000) % 60, 2)}:${
    pad(Math.floor(t / 1000) % 60, 2)
  }`;
  return `${civilYear(date)}-${pad(civilMonth(date), 2)}-${pad(civilDay(date), 2)}T${time}.${pad(t % 1000, 3)}Z`;
}

/**
 * The log line of a failed store call. A store's refusal reads `store-error: …` (its code
 * first): said once, not `store error: store-error: …`.
 */
export function storeErrorLine(error: string): string {
  return `store error: ${error.replace(/^store-error: /, "")}; no slot runs until it recovers`;
}
