/**
 * The `Store` port: where claims, run outcomes, job state and data-defined jobs live.
 *
 * Every implementation passes the one contract suite, `storeContract` (src/store/contract/,
 * exported from `edgecron/store`). All times are epoch milliseconds. One row per `(job, slot)` in `runs`: the claim is
 * the atomic insert of that row, and its final status is the slot's one outcome.
 */

/**
 * The state of one slot's row. Non-final: `running`; `cancelling` (a running row whose
 * holder was told to stop by a `cancelOther` slot; still live until it settles or its
 * lease ends); `buffered` (claimed, waiting for the job's live run to settle; no lease).
 * `cancelled` is the final status of a superseded run.
 */
export type RunStatus =
  | "running"
  | "cancelling"
  | "buffered"
  | "ok"
  | "error"
  | "timeout"
  | "skipped"
  | "missed"
  | "abandoned"
  | "cancelled";

/** Every status, in a fixed order (counts, validation). */
export const RUN_STATUSES: readonly RunStatus[] = [
  "running",
  "cancelling",
  "buffered",
  "ok",
  "error",
  "timeout",
  "skipped",
  "missed",
  "abandoned",
  "cancelled",
];

/**
 * The final statuses that count as a run toward a job's `maxRuns`: the slot ran (or was
 * started and then superseded). `skipped`, `missed` and `abandoned` never count.
 */
export const COUNTED_STATUSES: readonly RunStatus[] = ["ok", "error", "timeout", "cancelled"];
/** The `error` text of a buffered slot that can never run: its job's `maxRuns` is reached. */
export const SKIP_MAX_RUNS = "maxRuns reached";

/** Final statuses. */
export type Outcome = Exclude<RunStatus, "running" | "cancelling" | "buffered">;

/**
 * `scheduled` slots lie on the job's schedule; `manual` ones come from
 * `run(..., {mode:"force"})`; `backfill` ones from `backfill()` (on the schedule, but
 * never a watermark: planning ignores them).
 */
export type RunKind = "scheduled" | "manual" | "backfill";

/**
 * What a claim does while the job has a live run (on any node):
 * `skip` records `skipped`; `allow` runs anyway; `bufferOne` keeps one slot `buffered`
 * (further ones `skipped`); `bufferAll` keeps every slot `buffered` up to the request's
 * `bufferLimit` (the excess `skipped`); `cancelOther` keeps the slot `buffered`, marks
 * the live runs `cancelling` and supersedes older buffered scheduled slots (`skipped`).
 * Buffered slots run oldest first through `promote()`.
 */
export type OverlapPolicy = "skip" | "allow" | "bufferOne" | "bufferAll" | "cancelOther";

/** One slot's row. */
export interface RunRecord {
  job: string;
  slot: number;
  kind: RunKind;
  status: RunStatus;
  /** 1 for the first attempt; a retry or a re-run after `abandoned` increments it. */
  attempt: number;
  /** The node holding (or that last held) the claim. */
  node: string;
  claimedAt: number;
  /** When the current attempt started (set at claim time and on each retry). */
  startedAt: number;
  finishedAt: number | null;
  /** While `running`: the instant after which any node may record it `abandoned`. */
  leaseUntil: number | null;
  /** The error text of an `error`, `timeout` or `abandoned` outcome. */
  error: string | null;
}

/** One insert attempt in a claim batch. */
export interface ClaimRequest {
  job: string;
  slot: number;
  kind: RunKind;
  /**
   * `running`: try to win the slot to run it; `missed`: record it missed (catch-up).
   */
  status: "running" | "missed";
  /**
   * With `skip`, a `running` request whose job already has a live `running` row
   * (leaseUntil >= now: one boundary everywhere, as reap() and renew() read it) from a DIFFERENT batch is inserted as `skipped` instead,
   * decided inside the same statement as the insert. The buffering policies (see
   * {@link OverlapPolicy}) count as blocked also while the job has `buffered` rows, so
   * buffered slots keep their order; a `cancelling` row counts as live.
   */
  overlap: OverlapPolicy;
  /** `bufferAll`: the most `buffered` rows the job may have (default 100). */
  bufferLimit?: number;
  /**
   * The job's run limit (`maxRuns`). A `running` request is refused, outcome `limit` and
   * nothing written, when the job's used runs already reach it, decided in the same
   * statement (transaction, atomic commit) as the insert. Used runs: rows that reached a
   * counted outcome ({@link COUNTED_STATUSES}), plus the counted rows pruned since
   * ({@link JobState.prunedRuns}), plus the job's open rows (`running` and `cancelling`,
   * a lease that ended included: it may still be retried; and `buffered`), plus the rows
   * this call inserted before it. A request that would be `skipped` or `missed` is
   * never refused: those rows do not count. Omitted: no limit.
   */
  maxRuns?: number | undefined;
  node: string;
  /** Claims sharing a batch id never block one another through the overlap check. */
  batch: string;
  now: number;
  /** Lease end for a `running` row. Ignored for `missed`. */
  leaseUntil: number;
}

/**
 * What became of a claim request.
 * `won`: this request inserted a `running` row; run it.
 * `buffered`: this request inserted a `buffered` row; `promote()` starts it later.
 * `skipped` / `missed`: this request inserted a row with that final status.
 * `lost`: a row for `(job, slot)` already existed; nothing was written.
 * `limit`: the request's `maxRuns` is reached (see {@link ClaimRequest.maxRuns}); nothing
 * was written, so the slot has no row.
 */
export type ClaimOutcome = "won" | "buffered" | "skipped" | "missed" | "lost" | "limit";

export interface ClaimResult {
  job: string;
  slot: number;
  outcome: ClaimOutcome;
}

/** Identifies the current attempt of a running row for compare-and-set updates. */
export interface AttemptKey {
  job: string;
  slot: number;
  attempt: number;
  node: string;
}

/** A running attempt's new lease end, for renew(). */
/** One slot of one job: the key of a run row. */
export interface SlotKey {
  job: string;
  slot: number;
}

export interface LeaseRenewal extends AttemptKey {
  leaseUntil: number;
}

/** The fields update() may change on a running row. */
export type RunPatch = Partial<
  Pick<RunRecord, "status" | "attempt" | "startedAt" | "leaseUntil" | "finishedAt" | "error">
>;

/** One compare-and-set of updateMany(). */
export interface RunUpdate {
  key: AttemptKey;
  patch: RunPatch;
}

/** What reclaim() needs: the finished row's key, the new holder and its lease. */
export interface ReclaimRequest {
  job: string;
  slot: number;
  /** The attempt the row is at now; the reclaimed row is at attempt + 1. */
  attempt: number;
  node: string;
  now: number;
  leaseUntil: number;
  /** Default "allow". */
  overlap?: "skip" | "allow";
  /**
   * The job's `maxRuns`: the reclaim also returns false, changing nothing, while the
   * job's used runs other than this slot's row (as {@link ClaimRequest.maxRuns} counts
   * them) reach it, decided in the same statement. An `abandoned` row does not count,
   * so between its reap and its reclaim another slot may take the last run; then this
   * one stays `abandoned`. Omitted: no limit.
   */
  maxRuns?: number | undefined;
}

/** What promote() needs: the job, the node that will run the slot, and its lease. */
export interface PromoteRequest {
  job: string;
  node: string;
  now: number;
  leaseUntil: number;
  /** Only a buffered row of this kind (backfill() promotes its own rows); default any. */
  kind?: RunKind;
  /**
   * The job's `maxRuns`, checked in the same statement: nothing starts while the job's
   * counted rows, pruned counted rows and `running`/`cancelling` rows reach it. When the
   * counted and pruned rows alone reach it and no row runs, the job's buffered rows can
   * never run: they all become `skipped` (error `maxRuns reached`). Omitted: no limit.
   */
  maxRuns?: number | undefined;
}

/** One slot for enqueue() (backfill): inserted `buffered`, or re-buffered with `rerun`. */
export interface EnqueueRequest {
  job: string;
  slot: number;
  kind: RunKind;
  node: string;
  now: number;
  /**
   * When the slot already has a FINAL row that finished at or before `now`, turn it
   * back into `buffered` at attempt + 1 (a re-run; the row keeps its kind, so a
   * scheduled slot stays the job's watermark). A row still open, or finished after
   * `now` (by a concurrent backfill), is left alone.
   */
  rerun: boolean;
}

/** What enqueue() did with one request: `queued` (new row), `requeued` (rerun), `exists` (left alone). */
export type EnqueueOutcome = "queued" | "requeued" | "exists";

/** Why, when and by whom a job was paused. */
export interface PauseInfo {
  /** The note given with the pause, or null. */
  note: string | null;
  /** When it was paused. */
  at: number;
  /** Who paused it: an API caller's label, `"api"`, `"code"` or `"pauseOnFailure"`. */
  by: string;
}

/** Per-job state the store keeps. */
export interface JobState {
  name: string;
  /** When the store first saw the job (its first `snapshot()` naming it); planning never starts before it. */
  firstSeen: number;
  paused: boolean;
  /** While paused with `setPaused(..., { note, by })`: its note, time and author (absent otherwise). */
  pause?: PauseInfo;
  /**
   * Set when a stored column of this job cannot be read (text in `first_seen`, or in a
   * run row's `slot`), naming the table, the row and the column. Only this job stops
   * planning; its other fields are then placeholders.
   */
  broken?: string;
  /**
   * Rows of this job with a counted status ({@link COUNTED_STATUSES}) that `prune()` or
   * `pruneRows()` deleted, so `maxRuns` still counts them. Absent or 0 when none.
   */
  prunedRuns?: number;
}

/** A data-defined job as stored: its validated spec as plain JSON. */
export interface JobDef {
  name: string;
  spec: Record<string, unknown>;
  /** Starts at 1 and increments on every put, and across deletes (a re-created definition continues above the deleted one), so nodes see every change; used for optimistic concurrency. */
  version: number;
  updatedAt: number;
  /**
   * Set when the stored row cannot be read (its `spec` is not JSON), naming the row and
   * the column; `spec` is then `{}`. Reads never throw for one bad row: the engine
   * disables that job alone.
   */
  broken?: string;
}

/** Everything a tick needs to plan: one round trip for a job set of one page (`Store.snapshot`). */
export interface TickSnapshot {
  /**
   * Per job name asked for and per data-defined job (unknown names are inserted with
   * firstSeen = now; `putDef` already inserts a new definition's state at define time).
   */
  jobs: Record<string, JobState>;
  /** Newest recorded `scheduled` slot per job in `jobs`; absent when none. */
  watermarks: Record<string, number>;
  /** Every data-defined job. */
  defs: JobDef[];
  /**
   * Every open row (any job, any node): `running` and `cancelling` ones, including
   * those whose lease has ended, and `buffered` ones (leaseUntil null).
   */
  running: RunRecord[];
}

/** A page of `listDefs()`: definitions sorted by name. */
export interface DefsQuery {
  /** Only names strictly after this one. */
  after?: string;
  /** At most this many (a whole number >= 1); default all. */
  limit?: number;
}

export interface RunQuery {
  /** Newest first; 1 to 1000, default 50 (a larger limit is refused with `invalid-spec`). */
  limit?: number;
  /** Only slots strictly before this instant. */
  before?: number;
}

/** Counts of rows by status for one job, over the retained history. */
export type StatusCounts = Record<RunStatus, number>;

/** One job's part of overview(). */
export interface JobOverview {
  /** The newest finished row (status other than running), if any. */
  last: RunRecord | undefined;
  /** Row counts by status over the retained history. */
  counts: StatusCounts;
  /** Rows with slot >= since, newest slot first, at most perJob. */
  recent: RunRecord[];
  /**
   * Of `counts.skipped`, the slots a full buffer dropped: `bufferOne` with a slot already
   * waiting (error `overlap`), `bufferAll` past its `bufferLimit` (error `overlap: buffer
   * full`). Absent (read as 0) from a store that does not tell them apart.
   */
  bufferFull?: number;
}

/** One job's part of `tally()`: what a metrics scrape counts, without whole rows. */
export interface JobTally {
  /** The job's paused flag (false for a name the store has not seen). */
  paused: boolean;
  /** The oldest slot among the job's open rows whose lease ends at or after `now`. */
  runningSince: number | undefined;
  /** The newest finished row (as `overview().last`): its status and times only. */
  last: { status: RunStatus; startedAt: number; finishedAt: number | null } | undefined;
  /** Row counts by status over the retained history. */
  counts: StatusCounts;
  /** Of `counts.skipped`, the slots a full buffer dropped (as `overview().bufferFull`). */
  bufferFull: number;
}

/**
 * The storage port. Implementations: `memoryStore()`, `libsqlStore(...)`, `d1Store(db)`, `denoKvStore(kv)`, `postgresStore(...)`.
 * Every method may reject with a `SchedulerError` of code `store-error` when the
 * backend fails; none resolves with partial writes.
 */
export interface Store {
  /** Creates or migrates the schema. Idempotent; safe when several processes call it at once. */
  init(): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;

  /**
   * Inserts missing job names (asked for or data-defined) with firstSeen = now, then reads
   * the planning state. A store may read first and write only when a name has no state row
   * yet, so that ticks of known jobs take no write lock. A store whose work blocks the
   * event loop (in memory, an embedded driver) should read many names in pages with a
   * turn of the event loop between them (the bundled ones do: 100 000 jobs in one step
   * blocked it for up to 3 s); pages are separate reads, not one view, which planning
   * allows since the claim decides every slot.
   */
  snapshot(names: readonly string[], now: number): Promise<TickSnapshot>;

  /**
   * Read-only planning state of the NAMED jobs only, in one round trip: snapshot()'s
   * shape, but it NEVER writes (no job-state rows are inserted) and it returns nothing
   * of any other job: `jobs` and `watermarks` of the names the store has seen, `defs`
   * the definitions of the named data-defined jobs, `running` the open rows of the named
   * jobs. Its cost follows the names asked for, not the store's size, so a page of a
   * large job list costs a page. Names never seen are absent from `jobs` and `watermarks`.
   */
  read(names: readonly string[]): Promise<TickSnapshot>;

  /**
   * Optional, read-only: for each `(job, slot)` asked, whether the store has a row for it
   * (of any status or kind), in request order, in one round trip. A node helping with
   * other nodes' share of a large minute asks this first, so that the jobs their owners
   * already claimed cost one primary-key probe each instead of a `read()` of their state.
   * Without it the engine reads the jobs' state instead.
   */
  recorded?(slots: readonly SlotKey[]): Promise<boolean[]>;

  /** Applies a batch of claims atomically, in order, in one round trip. Results in request order. */
  claim(requests: readonly ClaimRequest[]): Promise<ClaimResult[]>;

  /**
   * Compare-and-set on a `running` (or `cancelling`) row held by `key` (same job, slot, attempt, node).
   * Applies `patch` (status, attempt, startedAt, leaseUntil, finishedAt, error) and
   * returns true; returns false when the row is no longer that running attempt
   * (for example it was reaped as `abandoned`).
   */
  update(key: AttemptKey, patch: RunPatch): Promise<boolean>;

  /**
   * Extends running leases in ONE write (one batch / transaction). An item is renewed
   * only while its row is still `running` at that attempt, held by that node, with a
   * current leaseUntil >= now: a lease that has ended is never revived (it belongs to
   * the reaper). Results in request order: true when renewed.
   */
  renew(items: readonly LeaseRenewal[], now: number): Promise<boolean[]>;

  /**
   * Group commit: applies many update() compare-and-sets, in order, in as few write
   * transactions as the store's limits allow (a large group may go in several: Deno KV
   * commits up to 48 rows at once, the SQL stores 1 000 writes). Results in request
   * order, each what update() would have returned alone. A rejection leaves the group's
   * fate unknown, as a timeout does: some writes may have landed (read them back). A
   * store that splits the group may attach the results of the transactions that did
   * commit before the failure (`landedOf()` in `src/store/_landed.ts`), so only the rest is read back.
   */
  updateMany(writes: readonly RunUpdate[]): Promise<boolean[]>;

  /**
   * Atomically marks every `running` row with leaseUntil < now as `abandoned`, and every
   * `cancelling` one as `cancelled`; returns the rows this call changed (new status set).
   */
  reap(now: number): Promise<RunRecord[]>;

  /**
   * Re-claims a finished slot for another attempt: turns the row from `abandoned`
   * (or `error`/`timeout`) at `attempt` into `running` at `attempt + 1` held by `node`.
   * Returns false when another node did it first or the row changed.
   * With `overlap: "skip"` (default `"allow"`) it also returns false, changing nothing,
   * while the job has another live `running` row (leaseUntil >= now), decided in the same
   * statement as the update, as `claim()` decides its overlap check.
   */
  reclaim(request: ReclaimRequest): Promise<boolean>;

  /**
   * Starts the job's oldest `buffered` row (of `kind`, when given): turns it `running`,
   * held by `node` with `leaseUntil`, at the same attempt, in ONE statement that also
   * checks the job has no live row (`running` or `cancelling` with leaseUntil >= now)
   * and is not paused. Returns the row as started, or undefined (nothing buffered, a
   * run is live, or the job is paused: its buffered slots wait for `resume`).
   */
  promote(request: PromoteRequest): Promise<RunRecord | undefined>;

  /**
   * Inserts `buffered` rows for a backfill in one write, in request order; see
   * {@link EnqueueRequest}. Results in request order.
   */
  enqueue(requests: readonly EnqueueRequest[]): Promise<EnqueueOutcome[]>;

  /** One row, or undefined. */
  getRun(job: string, slot: number): Promise<RunRecord | undefined>;
  /** A job's rows, newest slot first. */
  runs(job: string, query?: RunQuery): Promise<RunRecord[]>;
  /** The newest finished row per job (a final status). */
  lastOutcomes(jobs: readonly string[]): Promise<Record<string, RunRecord>>;
  /** Row counts by status per job. */
  counts(jobs: readonly string[]): Promise<Record<string, StatusCounts>>;

  /** Last outcome, counts and recent rows for many jobs in ONE read; never writes. Names with no rows get { last: undefined, counts: all zero, recent: [] }. perJob 1 to 1000, default 50 (a larger one is refused with `invalid-spec`). */
  overview(names: readonly string[], query: { since: number; perJob?: number }): Promise<Record<string, JobOverview>>;

  /**
   * For each named job, in ONE read that never writes: its paused flag, the oldest slot
   * of its live runs at `now`, its newest finished row's status and times, its row
   * counts by status and its buffer-full skips. What `GET /metrics` reads per page of
   * jobs: overview() and read() together, without the rows. Names with no rows and no
   * state get `{ paused: false, runningSince: undefined, last: undefined, counts: all
   * zero, bufferFull: 0 }`.
   */
  tally(names: readonly string[], now: number): Promise<Record<string, JobTally>>;

  /**
   * Sets a job's paused flag (inserting its state with firstSeen = now if missing).
   * Pausing records `{ note, at: now, by }` (note default null, by default `"api"`),
   * shown as `JobState.pause`; resuming clears it.
   */
  setPaused(name: string, paused: boolean, now: number, info?: { note?: string | null; by?: string }): Promise<void>;

  /**
   * Data-defined jobs, sorted by name (code-unit order, as SQLite's BINARY collation and
   * Postgres's `"C"` collation sort ASCII). With a query, one page: the names strictly
   * after `after`, at most `limit` of them.
   */
  listDefs(query?: DefsQuery): Promise<JobDef[]>;
  getDef(name: string): Promise<JobDef | undefined>;
  /**
   * Inserts or replaces a definition. With `ifVersion`, replaces only when the stored
   * version equals it (0 = must not exist); otherwise rejects with code `conflict`. One
   * that creates a definition deletes the finished rows and state left under the name
   * first (never an open row: a slot a node holds) and starts the job's state at `now`.
   */
  putDef(name: string, spec: Record<string, unknown>, now: number, options?: { ifVersion?: number }): Promise<JobDef>;
  /**
   * Deletes a definition and, in the same transaction where the store has one, the job's
   * finished run rows, counts, watermark and state (open rows stay until they end: a held
   * slot must keep blocking its claim by a job defined again); false when there was none
   * (then nothing is deleted). A job defined again under the name starts afresh.
   */
  deleteDef(name: string): Promise<boolean>;

  /**
   * Deletes finished rows with slot < before; returns how many. Each deleted row with a
   * counted status adds one to its job's `prunedRuns`, in the same transaction.
   */
  prune(before: number): Promise<number>;

  /**
   * Deletes the finished rows of `job` beyond its newest `keep` (by slot), never its
   * newest `scheduled` row (the watermark planning starts from) nor a running row;
   * returns how many (counted ones add to `prunedRuns`, as prune() does). `keep` is an
   * integer >= 1.
   */
  pruneRows(job: string, keep: number): Promise<number>;

  /** A small shared setting (for example the session revocation epoch); undefined when unset. */
  getSetting(key: string): Promise<string | undefined>;
  /** Sets a shared setting. */
  putSetting(key: string, value: string): Promise<void>;

  /** Optional: the caller's deadline per call, in ms (the scheduler passes its storeTimeout). A store bounds its internal retries by it, so no retry outlives the call that started it. */
  setCallTimeout?(ms: number): void;
}
