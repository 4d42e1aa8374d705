/**
 * edgecron: cron for the edge. The portable entry point: schedules, the scheduler, the
 * in-memory store, `SchedulerError` and the types an application uses.
 *
 * Other subpaths (the list is deno.json `exports`): the stores `edgecron/libsql`
 * (libSQL / Turso), `edgecron/d1` (Cloudflare D1) and `edgecron/deno-kv` (Deno KV);
 * `edgecron/hono` (HTTP API and dashboard), `edgecron/webhook` (signing and verifying
 * webhook deliveries), `edgecron/store` (the `Store` port and its contract suite, for
 * store authors), `edgecron/testing` (the manual clock), and the runtime adapters
 * `edgecron/node`, `/bun`, `/deno`, `/cloudflare`.
 *
 * @module
 */
export { SCHEDULER_ERROR_CODES, SchedulerError } from "./core/errors.ts";
export type { SchedulerErrorCode } from "./core/errors.ts";
export { formatDuration, parseDuration, tryParseDuration } from "./core/duration.ts";
export type { DayMatch, ModifierSpec, Schedule, ScheduleSpec } from "./core/types.ts";
export { assertTimeZone, at, cron, every, jitterDelay, schedule, toEpochMs } from "./core/mod.ts";
export type { CronOptions, EveryOptions, InstantInput, ModifierOptions, ScheduleOptions } from "./core/mod.ts";
export type { JobModifiers } from "./engine/jobs/modifiers.ts";
export { consoleLogger, createScheduler, runAheadUntil, systemClock } from "./engine/mod.ts";
export type {
  BackfillOptions,
  BackfillReport,
  CatchUpMode,
  CatchUpSpec,
  Clock,
  DataJobSpec,
  HealthReport,
  JobCounters,
  JobInfo,
  JobPolicy,
  JobSpec,
  JobSummary,
  JobTickReport,
  ListOptions,
  Logger,
  ManualRunResult,
  PauseOptions,
  RetrySpec,
  RunContext,
  RunLease,
  Scheduler,
  SchedulerEvent,
  SchedulerOptions,
  TickReport,
  WebhookOptions,
  WebhookTarget,
} from "./engine/mod.ts";
export { createMemoryStore, memoryStore } from "./store/mod.ts";
export type {
  MemoryStore,
  MemoryStoreOptions,
  OverlapPolicy,
  PauseInfo,
  RunKind,
  RunQuery,
  RunRecord,
  RunStatus,
  StatusCounts,
  Store,
} from "./store/mod.ts";
