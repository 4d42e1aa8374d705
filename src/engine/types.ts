/** Public types of the engine. */
import type { Schedule, ScheduleSpec } from "../core/types.ts";
import type {
  JobDef,
  Outcome,
  OverlapPolicy,
  PauseInfo,
  RunKind,
  RunRecord,
  RunStatus,
  Store,
} from "../store/types.ts";
import type { JobModifiers } from "./jobs/modifiers.ts";

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
 * The claim a run holds: a fencing value for side effects (docs/guarantees.md, "Fencing").
 *
 * The lease's fence is the last renewal the store confirmed (counted from when it was
 * sent) plus `lease`, never past the attempt's start + timeout; the store keeps the lease
 * a `leaseGrace` longer. So while `held` is true, no node whose clock runs at most
 * `leaseGrace` ahead can see the lease as ended, and a handler whose signal aborts has
 * `leaseGrace` − skew to stop before another node may run the slot. A side effect that
 * must happen once checks `held` just before it commits (or writes `attempt` with its
 * effect and lets its own store refuse an older one).
 */
export interface RunLease {
  /** This node's id. */
  readonly node: string;
  /** The attempt this lease is for (the row's attempt). */
  readonly attempt: number;
  /** The fence (epoch ms, this node's clock): `held` is true strictly before it. It moves forward with each confirmed renewal. */
  readonly until: number;
  /**
   * True strictly before the fence while the claim is this attempt's; false from the
   * fence on, once a renewal found the row taken, or once the scheduler gave up on the
   * run. Never true again once false. The signal aborts when it turns false at the fence.
   */
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
  /**
   * How many attempts in all, the first included, as BullMQ's `attempts` and Temporal's
   * `maximumAttempts` count them: `1` = no retry, `3` = the first try and up to two
   * retries. 1-100. (Up to 0.1 it counted the retries only.)
   */
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
  /**
   * Sends a delivery to `address`, the one `resolve` gave and the check passed, keeping
   * the URL's host for `Host` and TLS, so a DNS answer that changes between the check and
   * the connection (rebinding) cannot redirect it (`pinnedFetch` from the Node and Bun
   * adapters); default: the scheduler's `fetch`, which resolves the name again.
   */
  pinnedFetch?: (address: string, url: URL, init: RequestInit) => Promise<Response>;
  /** Bytes of a failed delivery's response body kept in the run's error; default 0 (status line only), at most 4096. */
  errorBodyBytes?: number;
}

/** Policy fields shared by code- and data-defined jobs. */
export interface JobPolicy {
  /** Zone for string cron schedules (and `"HH:MM"` anchors); default `"UTC"`. */
  timezone?: string;
  /** Default `"10m"`. */
  timeout?: string | number;
  /**
   * What a slot does while a run of the job is live on any node (default `"skip"`):
   * `"skip"` records it `skipped`; `"allow"` runs it alongside; `"bufferOne"` keeps it
   * and starts it when the live run settles (later slots meanwhile `skipped`);
   * `"bufferAll"` keeps every one (up to `bufferLimit`) and runs them in slot order;
   * `"cancelOther"` aborts the live run (its row ends `cancelled`) and then starts.
   */
  overlap?: OverlapPolicy;
  /** `overlap: "bufferAll"`: the most slots kept waiting; the excess is `skipped`. Default 100, at most 10 000. */
  bufferLimit?: number;
  /**
   * Pauses the job (on every node) after this many consecutive runs ended `error` or
   * `timeout`, counted from the store across nodes, with the note "paused after n
   * consecutive failures" and a `paused` event. Default: never. 1 to 1000.
   */
  pauseOnFailure?: number;
  /** Default `{ mode: "latest", window: "1h" }`. */
  catchUp?: CatchUpSpec;
  retries?: RetrySpec;
  /** Default true. */
  enabled?: boolean;
  /**
   * Keep at most this many finished rows of the job's run history (the newest by slot),
   * beside the time-based `retention`; pruned with it, at most hourly. Default: no cap.
   * Set it in `defaults` for a cap on every job.
   */
  maxRows?: number;
  payload?: unknown;
  description?: string;
}

/** A code-defined job. */
export interface JobSpec extends JobPolicy, JobModifiers {
  schedule: string | ScheduleSpec | Schedule;
  run(ctx: RunContext): unknown | Promise<unknown>;
}

/** A data-defined job, stored in the store; runs by calling its webhook target. */
export interface DataJobSpec extends JobPolicy, JobModifiers {
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
  /** Slots kept waiting behind a live run (overlap `bufferOne`, `bufferAll`, `cancelOther`). */
  buffered: number;
  /** Runs this node ended `cancelled` (a `cancelOther` slot superseded them). */
  cancelled: number;
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
  /** While paused: its note (or null), when, and by whom (`pause(name, { note, by })`; `"api"` by default). */
  pause?: PauseInfo;
  next: number[];
  lastOutcome: RunRecord | undefined;
  counters: JobCounters;
  /** Slot start of this job's live run on any node, if one is running. */
  runningSince: number | undefined;
  /**
   * `"active"`; `"ended"` when no slot is left after now (past `endAt`, or a schedule
   * that has run out); `"completed"` when `maxRuns` is reached.
   */
  state?: "active" | "ended" | "completed";
  /** With `maxRuns`: how many more slots may run (live runs on any node count as used). */
  remainingRuns?: number;
  /** The job's `jitter` in ms, when it has one. */
  jitter?: number;
  /** Rows by status in the store's retained history (every node's). */
  statusCounts?: Readonly<Record<string, number>>;
  /**
   * Of `statusCounts.skipped`, the slots a full buffer dropped: `bufferOne` with a slot
   * already waiting, `bufferAll` past its `bufferLimit` (0 from a store that does not
   * tell them apart). Set with `statusCounts`.
   */
  bufferFull?: number;
  /** For data-defined jobs: the stored definition. */
  def?: JobDef;
  /**
   * Set when the job does not run because one of its stored rows cannot be read or is
   * invalid, naming the row and the column (for example `edgecron_defs row "nightly":
   * column spec is not valid JSON`). Only this job stops; fix or delete the row.
   */
  broken?: string;
  /** With `list({ window })`: rows with slot >= now - window, newest first, at most 50. */
  recent?: RunRecord[];
  /** With `list({ window })`: the slots in (now, now + window]; `slots` holds at most 200, oldest first. */
  upcoming?: { count: number; first: number | undefined; last: number | undefined; slots: number[] };
}

/**
 * What `summaries()` tells of a job: the fields `GET /metrics` reads, from one store read
 * per page (`tally()`), without describing the job in full as `list()` does.
 */
export interface JobSummary {
  name: string;
  enabled: boolean;
  paused: boolean;
  /** Slot start of this job's live run on any node, if one is running. */
  runningSince: number | undefined;
  /** Its next slot; undefined while paused or disabled, after its last slot, or when broken. */
  next: number | undefined;
  /** The newest finished row's status and times (as `JobInfo.lastOutcome`). */
  lastOutcome: { status: RunStatus; startedAt: number; finishedAt: number | null } | undefined;
  /** Rows by status in the store's retained history (every node's); absent for a broken job. */
  statusCounts?: Readonly<Record<string, number>>;
  /** Of `statusCounts.skipped`, the slots a full buffer dropped (as `JobInfo.bufferFull`). */
  bufferFull?: number;
  /** As `JobInfo.broken`: why the job does not run. */
  broken?: string;
}

/** Options of `list()`. */
export interface ListOptions {
  /** How many upcoming fire times per job in `next`: a whole number 0-100, default 5 (more is refused). */
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

/**
 * What one tick did for one job. Its empty lists are one shared frozen array (a large
 * minute reports thousands of jobs): copy a list before adding to it.
 */
export interface JobTickReport {
  planned: number[];
  won: number[];
  lost: number[];
  run: number[];
  skipped: number[];
  missed: number[];
  abandoned: number[];
  /** Slots this tick kept waiting behind a live run (overlap `bufferOne`, `bufferAll`, `cancelOther`). */
  buffered: number[];
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
  /**
   * Due slots left unclaimed because this node was at its `concurrency`; other nodes (or this
   * one's next tick) take them. Other nodes' jobs this node has not read yet count one each
   * (a bound: some may have no slot due).
   */
  deferred?: number;
}

export type ManualRunResult =
  | { ok: true; job: string; slot: number; outcome: Outcome }
  | { ok: false; job: string; reason: "unknown job" | "already running" | "not due" | "paused" | "lost" | "broken" };

export type SchedulerEvent =
  | { type: "tick"; now: number; report: TickReport }
  | { type: "claimed"; job: string; slot: number }
  | { type: "lost"; job: string; slot: number }
  /** A run's outcome could not be recorded: the lease ended (reaped or re-run elsewhere) or the store failed. */
  | { type: "lost"; job: string; slot: number; attempt: number; reason: string }
  /** `kind`: a scheduled slot, a manual run (`run()`) or a backfill's slot. */
  | { type: "started"; job: string; slot: number; attempt: number; kind: RunKind }
  | { type: "succeeded"; job: string; slot: number; attempt: number; durationMs: number }
  /** `error` is the one-line summary kept in run history; `thrown` is what the handler threw (logged with its class, stack and cause). */
  | { type: "failed"; job: string; slot: number; attempt: number; error: string; willRetry: boolean; thrown?: unknown }
  /** `timeoutMs` is the job's `timeout`, the limit the attempt hit. */
  | { type: "timed-out"; job: string; slot: number; attempt: number; willRetry: boolean; timeoutMs?: number }
  | { type: "skipped"; job: string; slot: number }
  | { type: "missed"; job: string; slot: number }
  /** The job was paused by the scheduler itself (`pauseOnFailure`); `reason` is its note. */
  | { type: "paused"; job: string; reason: string; by: string }
  /** The slot waits behind a live run of its job (a buffering overlap policy) and starts when it settles. */
  | { type: "buffered"; job: string; slot: number }
  /** A run ended `cancelled`: a newer slot superseded it (`overlap: "cancelOther"`); `node` ran it. */
  | { type: "cancelled"; job: string; slot: number; attempt: number; node: string; reason: string }
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
  /**
   * Default: `consoleLogger()`. A level left out is dropped, and its lines are not even
   * formatted: `{ warn, error }` keeps a scheduler of 10 000 jobs from building a
   * `succeeded` line per run.
   */
  logger?: Partial<Logger>;
  onEvent?: (event: SchedulerEvent) => void;
  /** Defaults for every job's policy fields. */
  defaults?: JobPolicy;
  /** Used for webhook deliveries of data-defined jobs; default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /**
   * HMAC secret signing webhook deliveries. Required to run data-defined jobs. A list
   * rotates keys: deliveries are signed with the first; receivers accept any they hold.
   */
  webhookSecret?: string | readonly string[];
  /** Which webhook targets are allowed (internal addresses are refused by default). */
  webhooks?: WebhookOptions;
  /**
   * The fencing margin; default `"5s"`. The store keeps each lease this much longer than
   * the running node holds it (its fence), so exactly-once holds while the clock skew
   * between nodes is below it; it is also the time an outcome write has after the
   * timeout. A dead node's slot is re-run `lease` + `leaseGrace` after its last renewal.
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
   * Timer mode only: claim a slot's runs this long before the slot, and start the runs
   * won at the slot, so a large minute (thousands of jobs over several nodes) starts on
   * time instead of after its claims. Default `"auto"`: 2 s ahead for a slot at least
   * 1 000 jobs share, when due for the others; a duration applies to every slot; 0 claims
   * every slot when due. At most `lease` less `heartbeat` (10 s with the defaults). A
   * claim made ahead checks overlap and pause then: a job with a run in flight at that
   * moment is left to the tick at its slot, and a pause made in the last `claimAhead`
   * before a slot takes effect from the next slot. See docs/operations.md ("Claiming ahead").
   */
  claimAhead?: string | number;
  /**
   * Run-ahead for platform triggers that fire once a minute: `tick(now, { until })`
   * runs the sub-minute slots before `until`. Default true; false runs only `now`'s slots.
   */
  runAhead?: boolean;
  /** Run history retention; default `"7d"`, never shorter than the longest catch-up window. */
  retention?: string | number;
  /**
   * At start (the first tick or `start()`) the node estimates the history rows its jobs
   * keep under `retention` and each job's `maxRows`, and logs a warning naming the largest
   * jobs when the total is above this; default 1 000 000, `Infinity` for none.
   */
  historyWarnRows?: number;
}

/** Options of `scheduler.pause()`. */
export interface PauseOptions {
  /** Why (shown with the job; at most 500 characters). */
  note?: string;
  /** Who: an API caller's label; default `"api"`. */
  by?: string;
}

/** Options of `scheduler.backfill()`. */
export interface BackfillOptions {
  /** First instant of the range (inclusive): epoch ms, a `Date` or an ISO instant with offset. */
  from: number | Date | string;
  /** End of the range (exclusive). */
  to: number | Date | string;
  /**
   * How a slot meets a live run of the job (default `"bufferAll"`: it waits for it, so
   * the backfill runs one slot at a time in order). `"skip"` records it `skipped`;
   * `"allow"` runs it beside the live run. `"bufferOne"` is the same as `"bufferAll"`.
   */
  overlap?: "bufferAll" | "bufferOne" | "skip" | "allow";
  /** Re-run slots that already have a final row, as a new attempt (default false: they are skipped). */
  rerun?: boolean;
  /** Stops the backfill: no slot after the current one starts. */
  signal?: AbortSignal;
  /** Called with the planned slots once the range is validated, before any slot runs. */
  onPlan?: (slots: readonly number[]) => void;
}

/** What `scheduler.backfill()` did. */
export interface BackfillReport {
  job: string;
  from: number;
  to: number;
  /** Slots of the schedule in `[from, to)`. */
  planned: number;
  /** Slots that ran for this backfill (here or on another node), in order. */
  ran: number[];
  /**
   * Slots not run: `exists` (a row was there and `rerun` was off, or another node took
   * it), `overlap` (with `overlap: "skip"`), `maxRuns` (with `skip` or `allow`: the job's
   * limit is reached; no row. Buffered slots past it end `skipped` instead).
   */
  skipped: { slot: number; reason: "exists" | "overlap" | "maxRuns" }[];
  /** The final outcome of each slot that ran (or was skipped for overlap). */
  outcomes: Record<number, Outcome>;
  /**
   * True when `signal`, `stop()`, or the job's deletion or redefinition (on any node) ended
   * it before the last slot.
   */
  stopped: boolean;
}

export interface Scheduler {
  readonly node: string;
  /** The scheduler's logger (the `logger` option, made safe): adapters log through it, so a silent logger silences them too. */
  readonly log: Logger;
  /** Initialises the store (through `storeTimeout`); idempotent, retried after a failure. */
  ready(): Promise<void>;
  /**
   * Closes the store (through `storeTimeout`). Call it after `stop()`: without one, it stops
   * the node at once (handlers' signals abort, and what is still running is given up, a
   * `lost` event each).
   */
  close(): Promise<void>;
  /** Registers a code-defined job; throws `SchedulerError` (`invalid-spec`, `invalid-name`) naming the field path. Returns the scheduler. */
  job(name: string, spec: JobSpec): Scheduler;
  /**
   * Plans, claims and runs due slots. Store failures (a failed `init()` too: nothing is
   * planned, and the next tick tries it again) are in the report; it rejects only
   * when `now` or `until` is not whole epoch milliseconds (`invalid-instant`).
   * A `now` ahead of the clock is ticked at the clock (a warning says so), and its
   * run-ahead lasts `until - now` from the clock: no slot runs before its time. One older than the last tick decides its own slots only and leaves
   * `health().lastTick`.
   * With `until` (a platform trigger's minute end), it then runs ahead: it ticks again at
   * each slot in `(now, until)` as its time comes, claiming each only when due, and
   * resolves when those runs are recorded too (the returned report is the first tick's).
   */
  tick(now?: number, options?: { until?: number }): Promise<TickReport>;
  /** Timer mode. During a `stop()`, ends it: nothing more is aborted, released or given up, and it resolves. */
  start(): void;
  /**
   * Stops claiming; what this node has won still starts until `grace` (default "10s"): a
   * slot claimed ahead at its time, a queued claim as capacity frees; what has not started
   * then is released. Aborts running handlers at `grace`, resolves when runs settled or
   * `deadline` (default "30s") passed.
   */
  stop(options?: { grace?: string | number; deadline?: string | number }): Promise<void>;
  /** Describes the jobs: at most two store reads, never a write, whatever the number of jobs. */
  list(options?: ListOptions): Promise<JobInfo[]>;
  /**
   * The jobs by name in pages (`after`, `limit`; default all), each with only what
   * `GET /metrics` reads: one definitions page and one `tally()` per call, never a write.
   */
  summaries(options?: { after?: string; limit?: number }): Promise<JobSummary[]>;
  /** One job as `list()` describes it (with `recent` and `upcoming` when `window` is given). */
  get(name: string, options?: Pick<ListOptions, "next" | "window">): Promise<JobInfo | undefined>;
  run(name: string, options?: { mode?: "force" | "due" }): Promise<ManualRunResult>;
  /**
   * Pauses the job on every node; `note` (at most 500 characters) and `by` (default
   * `"api"`) show in `get()`'s `pause` with the time. `resume` clears them.
   */
  pause(name: string, options?: PauseOptions): Promise<void>;
  resume(name: string): Promise<void>;
  /**
   * Runs the job for every slot of its schedule in `[from, to)`, in slot order, each
   * claimed exactly once (rows of kind `backfill`); resolves with a report when the last
   * slot has settled. Throws `unknown-job`, `invalid-instant`, or `invalid-spec` (a
   * reversed range, more than 10 000 slots, a bad option) before running anything.
   */
  backfill(name: string, options: BackfillOptions): Promise<BackfillReport>;
  /** The job's run rows, newest first: `limit` 1 to 1000 (default 50; more is refused with `invalid-spec`), slots strictly `before` an instant. */
  runs(name: string, query?: { limit?: number; before?: number }): Promise<RunRecord[]>;
  /** Validates and stores a data-defined job (every node sees it on its next tick). */
  define(name: string, spec: DataJobSpec, options?: { ifVersion?: number }): Promise<JobInfo>;
  undefine(name: string): Promise<boolean>;
  /**
   * Reads a small setting shared by every node through the store (the router keeps its
   * session epoch there). Rejects with `invalid-spec` naming `key` when it holds a lone surrogate or a NUL.
   */
  getSetting(key: string): Promise<string | undefined>;
  /** Writes a shared setting; a key or value with a lone surrogate or a NUL is refused (`invalid-spec`), never stored changed. */
  putSetting(key: string, value: string): Promise<void>;
  /**
   * The node and its store as the last calls left them. A failed store call makes it
   * unhealthy; a failed write stays so until a write succeeds (reads answer beside another
   * process's write lock), and while it does, `health()` tries one setting write
   * (`edgecron.health-probe`), waiting at most 2 s for it.
   */
  health(): Promise<HealthReport>;
}

export type { RunStatus };
