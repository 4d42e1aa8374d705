/** Public types of the engine. */
import type { Schedule, ScheduleSpec } from "../core/types.ts";
import type { JobDef, Outcome, RunRecord, RunStatus, Store } from "../store/types.ts";

/** Time source and timers. Only the engine reads it; tests inject a manual one. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Structured logger. Every method is optional to call and must never throw into the scheduler. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * The claim a run holds: a fencing value for side effects. `until` moves forward with
 * each heartbeat renewal; once `held` is false another node may run the slot, so a
 * side effect that must happen once checks `held` (or writes `attempt` and `until`
 * along with its effect and lets its own store refuse a stale one).
 */
export interface RunLease {
  /** This node's id. */
  readonly node: string;
  /** The attempt this lease is for (the row's attempt). */
  readonly attempt: number;
  /** The lease end (epoch ms) as last written to the store. */
  readonly until: number;
  /** False once the lease has ended or a renewal found the row taken; the signal then aborts too. */
  readonly held: boolean;
}

/** What a handler receives. */
export interface RunContext {
  job: string;
  /** The slot instant (epoch ms) this run is for. */
  slot: number;
  /** 1-based attempt number. */
  attempt: number;
  /** Aborts at the job's timeout, when the scheduler stops, and when this node's lease ends (for example after a pause). */
  signal: AbortSignal;
  /** The fencing value: attempt and lease end; see {@link RunLease}. */
  lease: RunLease;
  payload: unknown;
  /** The scheduler's logger, with `job`, `slot` and `attempt` fields added. */
  log: Logger;
}

export type CatchUpMode = "latest" | "all" | "none";

export interface CatchUpSpec {
  mode?: CatchUpMode;
  /** How far back a tick plans; default `"1h"`. */
  window?: string | number;
  /** For `"none"`: how late a slot may still run; default `"60s"`. */
  tolerance?: string | number;
}

export interface RetrySpec {
  /** Extra attempts after the first (0 = no retries). */
  attempts: number;
  /** Delay before retry k (1-based), doubled each time from this base (at most 2^31-1 ms, about 24.8 days); default `"1s"`. */
  backoff?: string | number;
}

/** A webhook target of a data-defined job. */
export interface WebhookTarget {
  url: string;
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  headers?: Record<string, string>;
  body?: string;
}

/** `SchedulerOptions.webhooks`: SSRF policy of webhook deliveries. */
export interface WebhookOptions {
  /** Internal targets allowed on purpose: http(s) origins, or a predicate; default none. */
  allow?: ((url: URL) => boolean) | readonly string[];
  /** Resolves a host to its addresses before each delivery (the Node, Bun and Deno adapters export one); default: literal checks only. */
  resolve?: (host: string) => Promise<string[]>;
  /** Bytes of a failed delivery's response body kept in the run's error; default 0 (status line only), at most 4096. */
  errorBodyBytes?: number;
}

/** Policy fields shared by code- and data-defined jobs. */
export interface JobPolicy {
  /** Zone for string cron schedules (and `"HH:MM"` anchors); default `"UTC"`. */
  timezone?: string;
  /** Default `"10m"`. */
  timeout?: string | number;
  /** Default `"skip"`. */
  overlap?: "skip" | "allow";
  /** Default `{ mode: "latest", window: "1h" }`. */
  catchUp?: CatchUpSpec;
  retries?: RetrySpec;
  /** Default true. */
  enabled?: boolean;
  payload?: unknown;
  description?: string;
}

/** A code-defined job. */
export interface JobSpec extends JobPolicy {
  schedule: string | ScheduleSpec | Schedule;
  run(ctx: RunContext): unknown | Promise<unknown>;
}

/** A data-defined job, stored in the store; runs by calling its webhook target. */
export interface DataJobSpec extends JobPolicy {
  schedule: string | ScheduleSpec;
  target: WebhookTarget;
}

/** Per-node counters since this scheduler was created. */
export interface JobCounters {
  runs: number;
  ok: number;
  errors: number;
  timeouts: number;
  skipped: number;
  missed: number;
  lost: number;
  abandoned: number;
}

/** What `list()` and `get()` describe. */
export interface JobInfo {
  name: string;
  source: "code" | "data";
  description: string | undefined;
  /** `schedule.toString()`. */
  schedule: string;
  spec: ScheduleSpec;
  timezone: string;
  enabled: boolean;
  paused: boolean;
  next: number[];
  lastOutcome: RunRecord | undefined;
  counters: JobCounters;
  /** Slot start of this job's live run on any node, if one is running. */
  runningSince: number | undefined;
  /** For data-defined jobs: the stored definition. */
  def?: JobDef;
  /** With `list({ window })`: rows with slot >= now - window, newest first, at most 50. */
  recent?: RunRecord[];
  /** With `list({ window })`: the slots in (now, now + window]; `slots` holds at most 200, oldest first. */
  upcoming?: { count: number; first: number | undefined; last: number | undefined; slots: number[] };
}

/** Options of `list()`. */
export interface ListOptions {
  /** How many upcoming fire times per job in `next`; default 5, at most 100. */
  next?: number;
  /** Horizon in ms: when set, each JobInfo carries `recent` (rows with slot >= now - window, newest first, at most 50) and `upcoming` for (now, now + window]. */
  window?: number;
  /** Paging: jobs sorted by name, strictly after this name. */
  after?: string;
  /** Page size; default: all jobs. */
  limit?: number;
  /**
   * Default true. `false` leaves `lastOutcome` undefined and reads no run history (one
   * store read per call): for callers that need only the jobs' states, such as `/metrics`.
   * Ignored when `window` is set.
   */
  outcomes?: boolean;
}

/** What one tick did for one job. */
export interface JobTickReport {
  planned: number[];
  won: number[];
  lost: number[];
  run: number[];
  skipped: number[];
  missed: number[];
  abandoned: number[];
  /** Outcome per slot this node ran in this tick (absent while still running in timer mode). */
  outcomes: Record<number, Outcome>;
}

export interface TickReport {
  now: number;
  node: string;
  ok: boolean;
  /** Set when the store failed; then no slot ran. */
  error?: string;
  jobs: Record<string, JobTickReport>;
  /** Due slots left unclaimed because this node was at its `concurrency`; other nodes (or this one's next tick) take them. */
  deferred?: number;
}

export type ManualRunResult =
  | { ok: true; job: string; slot: number; outcome: Outcome }
  | { ok: false; job: string; reason: "unknown job" | "already running" | "not due" | "paused" | "lost" };

export type SchedulerEvent =
  | { type: "tick"; now: number; report: TickReport }
  | { type: "claimed"; job: string; slot: number }
  | { type: "lost"; job: string; slot: number }
  /** A run's outcome could not be recorded: the lease ended (reaped or re-run elsewhere) or the store failed. */
  | { type: "lost"; job: string; slot: number; attempt: number; reason: string }
  | { type: "started"; job: string; slot: number; attempt: number }
  | { type: "succeeded"; job: string; slot: number; attempt: number; durationMs: number }
  | { type: "failed"; job: string; slot: number; attempt: number; error: string; willRetry: boolean }
  | { type: "timed-out"; job: string; slot: number; attempt: number; willRetry: boolean }
  | { type: "skipped"; job: string; slot: number }
  | { type: "missed"; job: string; slot: number }
  | { type: "abandoned"; job: string; slot: number; attempt: number; node: string; willRetry: boolean }
  | { type: "store-error"; error: string }
  | { type: "stuck"; job: string; slot: number; attempt: number; since: number };

export interface HealthReport {
  ok: boolean;
  node: string;
  store: "ok" | "error";
  lastTick: number | undefined;
  lastError: string | undefined;
  jobs: number;
  running: boolean;
}

export interface SchedulerOptions {
  /** Default: `createMemoryStore()`. */
  store?: Store;
  /** This node's id; default random. */
  node?: string;
  /** Default: the system clock and timers. */
  clock?: Clock;
  logger?: Logger;
  onEvent?: (event: SchedulerEvent) => void;
  /** Defaults for every job's policy fields. */
  defaults?: JobPolicy;
  /** Used for webhook deliveries of data-defined jobs; default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** HMAC secret signing webhook deliveries. Required to run data-defined jobs. */
  webhookSecret?: string;
  /** Which webhook targets are allowed (internal addresses are refused by default). */
  webhooks?: WebhookOptions;
  /**
   * How far past a job's timeout a lease may be renewed (the time an outcome write has
   * after the timeout); default `"30s"`. Exactly-once needs it larger than the clock
   * skew between nodes.
   */
  leaseGrace?: string | number;
  /**
   * Length of a claim's lease; default `"15s"`. A running claim is renewed every
   * `heartbeat` while its handler runs (all of a node's claims in one store write), so
   * a dead node's claim ends within one lease, whatever the job's timeout.
   */
  lease?: string | number;
  /** How often running leases are renewed; default a third of `lease`, at most half of it. */
  heartbeat?: string | number;
  /**
   * Runs in flight on this node (a job's catch-up queue counts once); default 200. A tick claims
   * no more than the free capacity and leaves the rest to other nodes' ticks.
   */
  concurrency?: number;
  /**
   * How long any store call may take before it fails as `store-error` (the tick fails
   * closed and the next one retries); default `"30s"`, `Infinity` for no deadline.
   */
  storeTimeout?: string | number;
  /**
   * Run-ahead for platform triggers that fire once a minute: `tick(now, { until })`
   * runs the sub-minute slots before `until`. Default true; false runs only `now`'s slots.
   */
  runAhead?: boolean;
  /** Run history retention; default `"7d"`, never shorter than the longest catch-up window. */
  retention?: string | number;
}

export interface Scheduler {
  readonly node: string;
  /** Initialises the store (through `storeTimeout`); idempotent, retried after a failure. */
  ready(): Promise<void>;
  /** Closes the store (through `storeTimeout`); call after `stop()`. */
  close(): Promise<void>;
  /** Registers a code-defined job; throws `SchedulerError` (`invalid-spec`, `invalid-name`) naming the field path. Returns the scheduler. */
  job(name: string, spec: JobSpec): Scheduler;
  /**
   * Plans, claims and runs due slots. Never rejects: store failures are in the report.
   * With `until` (a platform trigger's minute end), it then runs ahead: it ticks again at
   * each slot in `(now, until)` as its time comes, claiming each only when due, and
   * resolves when those runs are recorded too (the returned report is the first tick's).
   */
  tick(now?: number, options?: { until?: number }): Promise<TickReport>;
  /** Timer mode. */
  start(): void;
  /** Stops arming, aborts running handlers after `grace` (default "10s"), resolves when runs settled or `deadline` (default "30s") passed. */
  stop(options?: { grace?: string | number; deadline?: string | number }): Promise<void>;
  /** Describes the jobs: at most two store reads, never a write, whatever the number of jobs. */
  list(options?: ListOptions): Promise<JobInfo[]>;
  /** One job as `list()` describes it (with `recent` and `upcoming` when `window` is given). */
  get(name: string, options?: Pick<ListOptions, "next" | "window">): Promise<JobInfo | undefined>;
  run(name: string, options?: { mode?: "force" | "due" }): Promise<ManualRunResult>;
  pause(name: string): Promise<void>;
  resume(name: string): Promise<void>;
  runs(name: string, query?: { limit?: number; before?: number }): Promise<RunRecord[]>;
  /** Validates and stores a data-defined job (every node sees it on its next tick). */
  define(name: string, spec: DataJobSpec, options?: { ifVersion?: number }): Promise<JobInfo>;
  undefine(name: string): Promise<boolean>;
  /** Reads a small setting shared by every node through the store (the router keeps its session epoch there). */
  getSetting(key: string): Promise<string | undefined>;
  /** Writes a shared setting. */
  putSetting(key: string, value: string): Promise<void>;
  health(): Promise<HealthReport>;
}

export type { RunStatus };
