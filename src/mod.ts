/**
 * edgecron: cron for the edge. The portable entry point: schedules, the engine and
 * the in-memory store. `edgecron/libsql`, `edgecron/hono` and the runtime adapters
 * are separate subpaths.
 *
 * @module
 */
export { SchedulerError } from "./core/errors.ts";
export { formatDuration, parseDuration, tryParseDuration } from "./core/duration.ts";
export type { DayMatch, Schedule, ScheduleSpec } from "./core/types.ts";
export { assertTimeZone, at, cron, every, schedule, toEpochMs } from "./core/mod.ts";
export type { CronOptions, EveryOptions, InstantInput, ScheduleOptions } from "./core/mod.ts";
export { consoleLogger, createManualClock, createScheduler, MAX_TIMER_MS, planSlots, systemClock, timerDelay } from "./engine/mod.ts";
export type {
  CatchUpMode,
  CatchUpSpec,
  Clock,
  DataJobSpec,
  HealthReport,
  JobCounters,
  JobInfo,
  JobPolicy,
  JobSpec,
  JobTickReport,
  Logger,
  ManualClock,
  ManualRunResult,
  RetrySpec,
  RunContext,
  Scheduler,
  SchedulerEvent,
  SchedulerOptions,
  WebhookOptions,
  TickReport,
  WebhookTarget,
} from "./engine/mod.ts";
export { createDeduper, deliveryKey, signDelivery, signPayload, verifySignature } from "./engine/signature.ts";
export type { Deduper, DeduperOptions, SignedDelivery, VerifyOptions, VerifyResult } from "./engine/signature.ts";
export { createMemoryStore } from "./store/mod.ts";
export type {
  AttemptKey,
  ClaimOutcome,
  ClaimRequest,
  ClaimResult,
  JobDef,
  JobState,
  MemoryStore,
  MemoryStoreOptions,
  Outcome,
  RunKind,
  RunQuery,
  RunRecord,
  RunStatus,
  StatusCounts,
  Store,
  TickSnapshot,
} from "./store/mod.ts";
