/**
 * Input checks shared by every store implementation, so memory and libSQL refuse the
 * same bad input with the same `SchedulerError` before touching any state.
 */
import { checkWellFormed, quote, SchedulerError, sentence, UNSTORABLE } from "../core/errors.ts";
import { COUNTED_STATUSES, RUN_STATUSES } from "./types.ts";
import type {
  AttemptKey,
  ClaimRequest,
  DefsQuery,
  EnqueueRequest,
  LeaseRenewal,
  PauseInfo,
  PromoteRequest,
  ReclaimRequest,
  RunQuery,
  RunRecord,
  RunStatus,
  RunUpdate,
  SlotKey,
} from "./types.ts";

const STATUSES = RUN_STATUSES;
const KINDS = ["scheduled", "manual", "backfill"] as const;
const POLICIES = ["skip", "allow", "bufferOne", "bufferAll", "cancelOther"] as const;

/** The buffer of a `bufferAll` claim without `bufferLimit`. */
export const DEFAULT_BUFFER_LIMIT = 100;
/** The `error` text of a slot skipped because a run of its job was live. */
export const SKIP_OVERLAP = "overlap";
/** The `error` text of a `bufferAll` slot past the buffer. */
export const SKIP_BUFFER_FULL = "overlap: buffer full";
export { SKIP_MAX_RUNS } from "./types.ts";
/** The `error` texts of slots a full buffer dropped (`bufferOne`, `bufferAll`): `JobOverview.bufferFull`. */
export const BUFFER_FULL_ERRORS: readonly string[] = [SKIP_OVERLAP, SKIP_BUFFER_FULL];
/** The counted statuses as an SQL list, `('ok', 'error', ...)`, for the SQL stores' maxRuns checks (fixed words, no input). */
export const COUNTED_SQL_LIST = `(${COUNTED_STATUSES.map((s) => `'${s}'`).join(", ")})`;
/** The `error` text of a buffered slot a newer `cancelOther` slot replaced. */
export const SKIP_SUPERSEDED = "superseded by a newer slot";
/** The `error` text of a run a `cancelOther` slot cancelled. */
export const CANCELLED_SUPERSEDED = "superseded";

/** Largest page `runs()` returns. */
export const MAX_RUNS_LIMIT = 1000;
/** Page size of `runs()` without a limit. */
export const DEFAULT_RUNS_LIMIT = 50;

/** Returns `value` when it is a finite integer of epoch milliseconds; throws `invalid-instant` otherwise. */
export function checkInstant(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new SchedulerError(
      "invalid-instant",
      `${field}: expected epoch milliseconds (an integer), got ${quote(value)}`,
      {
        path: field,
      },
    );
  }
  return value;
}

/** Returns `value` when it is a non-empty string; throws `invalid-spec` otherwise. */
export function checkText(value: unknown, field: string): string {
  if (typeof value !== "string" || value.length === 0) {
    throw new SchedulerError("invalid-spec", `${field}: expected a non-empty string, got ${quote(value)}`, {
      path: field,
    });
  }
  // A name or key with one was written as U+FFFD by SQLite's driver (two names one row),
  // or as bytes its next read panicked on; Deno KV's keys made two names one key too.
  checkWellFormed(value, field);
  return value;
}

function checkOneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new SchedulerError("invalid-spec", `${field}: expected one of ${allowed.join(", ")}, got ${quote(value)}`, {
      path: field,
    });
  }
  return value as T;
}

/** Checks every request of a claim batch before any of it is applied. */
export function checkClaims(requests: readonly ClaimRequest[]): void {
  if (!Array.isArray(requests)) {
    throw new SchedulerError("invalid-spec", `claim: expected an array of requests, got ${quote(requests)}`);
  }
  eachItem(requests, "claim", (r) => {
    checkText(r?.job, "job");
    checkInstant(r.slot, "slot");
    checkOneOf(r.kind, KINDS, "kind");
    checkOneOf(r.status, ["running", "missed"], "status");
    checkOneOf(r.overlap, POLICIES, "overlap");
    if (r.bufferLimit !== undefined) checkCount(r.bufferLimit, "bufferLimit");
    if (r.maxRuns !== undefined) checkCount(r.maxRuns, "maxRuns");
    checkText(r.node, "node");
    checkText(r.batch, "batch");
    checkInstant(r.now, "now");
    if (r.status === "running") checkInstant(r.leaseUntil, "leaseUntil");
  });
}

/**
 * Runs `check` on each of `items`, whose failure names a field of the item; the error is
 * raised again with the item's place in front (`claim[3].job`). The places are written
 * only for a failure: a claim batch of 2 000 built 22 000 field names to throw none.
 */
function eachItem<T>(items: readonly T[], list: string, check: (item: T) => void): void {
  for (let i = 0; i < items.length; i++) {
    try {
      check(items[i]!);
    } catch (e) {
      throw placed(e, `${list}[${i}]`);
    }
  }
}

/** A check's failure `e` (its field named relative to `at`) as it reads from outside: `at.field: …`. */
function placed(e: unknown, at: string): unknown {
  if (!(e instanceof SchedulerError)) return e;
  return new SchedulerError(e.code, `${at}.${sentence(e)}`, { path: e.path === undefined ? at : `${at}.${e.path}` });
}

function checkCount(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new SchedulerError("invalid-spec", `${field}: expected a positive integer, got ${quote(value)}`, {
      path: field,
    });
  }
  return value;
}

/** Checks a `promote()` request. */
export function checkPromote(request: PromoteRequest): void {
  if (request === null || typeof request !== "object") {
    throw new SchedulerError("invalid-spec", `promote: expected a request object, got ${quote(request)}`, {
      path: "promote",
    });
  }
  checkText(request.job, "promote.job");
  checkText(request.node, "promote.node");
  checkInstant(request.now, "promote.now");
  checkInstant(request.leaseUntil, "promote.leaseUntil");
  if (request.kind !== undefined) checkOneOf(request.kind, KINDS, "promote.kind");
  if (request.maxRuns !== undefined) checkCount(request.maxRuns, "promote.maxRuns");
}

/**
 * Largest definition spec, in bytes of JSON (UTF-8), that `define()` accepts: what every
 * store keeps (one Deno KV value holds 64 KiB), so a definition moves between stores as it is.
 */
export const MAX_SPEC_BYTES = 60_000;

/** Longest pause note a store keeps. */
export const MAX_NOTE_CHARS = 500;

/** Resolves `setPaused()`'s info: the pause record to store, or undefined when resuming. */
export function pauseRecord(
  paused: boolean,
  now: number,
  info: { note?: string | null; by?: string } | undefined,
): PauseInfo | undefined {
  if (!paused) return undefined;
  if (info !== undefined && (info === null || typeof info !== "object")) {
    throw new SchedulerError("invalid-spec", `setPaused.info: expected an object, got ${quote(info)}`, {
      path: "setPaused.info",
    });
  }
  const note = info?.note ?? null;
  if (note !== null && (typeof note !== "string" || note.length > MAX_NOTE_CHARS)) {
    throw new SchedulerError(
      "invalid-spec",
      `setPaused.note: expected text of at most ${MAX_NOTE_CHARS} characters, got ${quote(note)}`,
      { path: "setPaused.note" },
    );
  }
  checkWellFormed(note, "setPaused.note");
  const by = info?.by === undefined ? "api" : checkText(info.by, "setPaused.by");
  return { note, at: now, by };
}

/** Checks every request of `enqueue()` before any is applied. */
export function checkEnqueue(requests: readonly EnqueueRequest[]): void {
  if (!Array.isArray(requests)) {
    throw new SchedulerError("invalid-spec", `enqueue: expected an array of requests, got ${quote(requests)}`, {
      path: "enqueue",
    });
  }
  eachItem(requests, "enqueue", (r) => {
    checkText(r?.job, "job");
    checkInstant(r.slot, "slot");
    checkOneOf(r.kind, KINDS, "kind");
    checkText(r.node, "node");
    checkInstant(r.now, "now");
    checkBoolean(r.rerun, "rerun");
  });
}

/** @throws {SchedulerError} `invalid-spec` unless a setting's value is a string every store keeps as given. */
export function checkSettingValue(value: unknown): asserts value is string {
  if (typeof value !== "string") {
    throw new SchedulerError("invalid-spec", `putSetting.value: expected a string, got ${quote(value)}`, {
      path: "putSetting.value",
    });
  }
  checkWellFormed(value, "putSetting.value");
}

/** Checks an attempt key and an `update` patch; `at` names them (`updateMany[2]` for a write of a batch). */
export function checkUpdate(key: AttemptKey, patch: Partial<RunRecord>, at = "update"): void {
  try {
    checkUpdateFields(key, patch);
  } catch (e) {
    throw placed(e, at);
  }
}

/**
 * {@link checkUpdate} with each field named relative to the write: the name of a place is
 * made for a failure only (a minute's `updateMany()` checks thousands of writes).
 */
function checkUpdateFields(key: AttemptKey, patch: Partial<RunRecord>): void {
  checkText(key?.job, "key.job");
  checkInstant(key.slot, "key.slot");
  checkInstant(key.attempt, "key.attempt");
  checkText(key.node, "key.node");
  if (patch === null || typeof patch !== "object") {
    throw new SchedulerError("invalid-spec", `patch: expected an object, got ${quote(patch)}`, { path: "patch" });
  }
  if (patch.status !== undefined) checkOneOf(patch.status, STATUSES, "patch.status");
  if (patch.attempt !== undefined) checkInstant(patch.attempt, "patch.attempt");
  if (patch.startedAt !== undefined) checkInstant(patch.startedAt, "patch.startedAt");
  if (patch.leaseUntil !== undefined && patch.leaseUntil !== null) checkInstant(patch.leaseUntil, "patch.leaseUntil");
  if (patch.finishedAt !== undefined && patch.finishedAt !== null) checkInstant(patch.finishedAt, "patch.finishedAt");
  if (patch.error !== undefined && patch.error !== null && typeof patch.error !== "string") {
    throw new SchedulerError("invalid-spec", `patch.error: expected a string or null, got ${quote(patch.error)}`, {
      path: "patch.error",
    });
  }
  // The engine writes error texts well-formed; SQLite kept a lone surrogate sent through
  // JSON as bytes its driver's next read of the row panicked on.
  checkWellFormed(patch.error, "patch.error");
}

/** Checks the arguments of `reclaim()`. */
export function checkReclaim(
  key: { job: string; slot: number; attempt: number },
  node: string,
  now: number,
  leaseUntil: number,
  options: { overlap?: "skip" | "allow"; maxRuns?: number | undefined } = {},
): "skip" | "allow" {
  checkText(key?.job, "reclaim.key.job");
  if (options?.maxRuns !== undefined) checkCount(options.maxRuns, "reclaim.maxRuns");
  checkInstant(key.slot, "reclaim.key.slot");
  checkInstant(key.attempt, "reclaim.key.attempt");
  checkText(node, "reclaim.node");
  checkInstant(now, "reclaim.now");
  checkInstant(leaseUntil, "reclaim.leaseUntil");
  return options?.overlap === undefined
    ? "allow"
    : checkOneOf(options.overlap, ["skip", "allow"], "reclaim.options.overlap");
}

/** Checks a `reclaim()` request object; returns its overlap mode (default `allow`). */
export function checkReclaimRequest(request: ReclaimRequest): "skip" | "allow" {
  if (request === null || typeof request !== "object") {
    throw new SchedulerError("invalid-spec", `reclaim: expected a request object, got ${quote(request)}`, {
      path: "reclaim",
    });
  }
  const { job, slot, attempt, node, now, leaseUntil, overlap, maxRuns } = request;
  return checkReclaim({ job, slot, attempt }, node, now, leaseUntil, {
    ...(overlap === undefined ? {} : { overlap }),
    ...(maxRuns === undefined ? {} : { maxRuns }),
  });
}

/** Checks every item of `renew()` (and `now`) before any is applied. */
export function checkRenewals(items: readonly LeaseRenewal[], now: number): void {
  if (!Array.isArray(items)) {
    throw new SchedulerError("invalid-spec", `renew: expected an array of renewals, got ${quote(items)}`, {
      path: "renew",
    });
  }
  checkInstant(now, "renew.now");
  eachItem(items, "renew", (item) => {
    checkText(item?.job, "job");
    checkInstant(item.slot, "slot");
    checkInstant(item.attempt, "attempt");
    checkText(item.node, "node");
    checkInstant(item.leaseUntil, "leaseUntil");
  });
}

/** Checks the slots of `recorded()`. */
export function checkSlotKeys(slots: readonly SlotKey[]): void {
  if (!Array.isArray(slots)) {
    throw new SchedulerError("invalid-spec", `recorded: expected an array of slots, got ${quote(slots)}`, {
      path: "recorded",
    });
  }
  eachItem(slots, "recorded", (s) => {
    checkText(s?.job, "job");
    checkInstant(s.slot, "slot");
  });
}

/** Checks every write of `updateMany()` before any is applied. */
export function checkUpdates(writes: readonly RunUpdate[]): void {
  if (!Array.isArray(writes)) {
    throw new SchedulerError("invalid-spec", `updateMany: expected an array of writes, got ${quote(writes)}`, {
      path: "updateMany",
    });
  }
  eachItem(writes, "updateMany", (write) => checkUpdateFields(write?.key, write?.patch));
}

/** Resolves an `overview()` query: `since` an instant, `perJob` 1 to 1000, default 50 (a larger one is refused). */
export function resolveOverviewQuery(query: { since: number; perJob?: number }): { since: number; perJob: number } {
  const since = checkInstant(query?.since, "overview.since");
  return { since, perJob: checkPageSize(query.perJob, "overview.perJob") };
}

/** A page of run rows (`runs()` limit, `overview()` perJob): 1 to {@link MAX_RUNS_LIMIT}, default 50; more is refused, not cut. */
function checkPageSize(value: number | undefined, field: string): number {
  const size = value ?? DEFAULT_RUNS_LIMIT;
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_RUNS_LIMIT) {
    throw new SchedulerError(
      "invalid-spec",
      `${field}: expected a whole number from 1 to ${MAX_RUNS_LIMIT}, got ${quote(size)}`,
      { path: field },
    );
  }
  return size;
}

/** Sets `record[key]` as an own data property, so a job named `__proto__` is an ordinary key. */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  // Only "__proto__" needs defineProperty; plain assignment is many times faster on a large record.
  if (key === "__proto__") {
    Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  } else record[key] = value;
}

/** Resolves a `runs()` query: limit 1 to 1000, default 50 (a larger one is refused). */
export function resolveRunQuery(query: RunQuery | undefined): { limit: number; before: number | undefined } {
  const limit = checkPageSize(query?.limit, "runs.limit");
  const before = query?.before === undefined ? undefined : checkInstant(query.before, "runs.before");
  return { limit, before };
}

/** Resolves a `listDefs()` query: `after` a name or undefined, `limit` a whole number >= 1 or undefined (all). */
export function resolveDefsQuery(
  query: DefsQuery | undefined,
): { after: string | undefined; limit: number | undefined } {
  if (query === undefined) return { after: undefined, limit: undefined };
  if (typeof query !== "object" || query === null) {
    throw new SchedulerError("invalid-spec", `listDefs: expected a query object, got ${quote(query)}`, {
      path: "listDefs",
    });
  }
  const after = query.after === undefined ? undefined : checkText(query.after, "listDefs.after");
  const limit = query.limit;
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw new SchedulerError("invalid-spec", `listDefs.limit: expected a positive integer, got ${quote(limit)}`, {
      path: "listDefs.limit",
    });
  }
  return { after, limit };
}

/** Returns `value` when it is a boolean; throws `invalid-spec` otherwise. */
export function checkBoolean(value: unknown, field: string): boolean {
  if (typeof value !== "boolean") {
    throw new SchedulerError("invalid-spec", `${field}: expected true or false, got ${quote(value)}`, { path: field });
  }
  return value;
}

/** Returns `ms` when it is a number of milliseconds > 0 (a store's `setCallTimeout`); throws `invalid-spec` otherwise. */
export function checkCallTimeout(ms: unknown): number {
  if (typeof ms !== "number" || !(ms > 0)) {
    throw new SchedulerError("invalid-spec", `setCallTimeout: expected milliseconds > 0, got ${String(ms)}`);
  }
  return ms;
}

/** Returns `value` when it is an integer >= 0 (an `ifVersion`); throws `invalid-spec` otherwise. */
export function checkVersion(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new SchedulerError("invalid-spec", `${field}: expected an integer >= 0, got ${quote(value)}`, {
      path: field,
    });
  }
  return value;
}

/** The `conflict` error of a `putDef` whose `ifVersion` does not match. */
export function versionConflict(name: string, current: number, expected: number): SchedulerError {
  return new SchedulerError(
    "conflict",
    `job definition ${quote(name)} is at version ${current}, expected version ${expected}`,
    { path: "ifVersion" },
  );
}

/** Checks a list of job names. */
export function checkNames(names: readonly string[], field: string): void {
  if (!Array.isArray(names)) {
    throw new SchedulerError("invalid-spec", `${field}: expected an array of job names, got ${quote(names)}`, {
      path: field,
    });
  }
  // The name of a place only for a failure (a snapshot page reads 1 000 names).
  for (let i = 0; i < names.length; i++) {
    const n = names[i];
    if (typeof n !== "string" || n.length === 0 || UNSTORABLE.test(n)) checkText(n, `${field}[${i}]`);
  }
}

/**
 * Serialises a definition's spec to JSON text (both stores keep it as text, so both
 * refuse the same specs); throws `invalid-spec` for a non-object or unserialisable spec.
 */
export function specText(spec: Record<string, unknown>): string {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
    throw new SchedulerError("invalid-spec", `putDef.spec: expected a JSON object, got ${quote(spec)}`, {
      path: "spec",
    });
  }
  try {
    return JSON.stringify(spec);
  } catch (cause) {
    throw new SchedulerError("invalid-spec", `putDef.spec: not serialisable as JSON (${String(cause)})`, {
      path: "spec",
      cause,
    });
  }
}

/** The error text written on rows `reap()` records `abandoned`. */
export const LEASE_EXPIRED = "lease expired before the run finished (its node stopped or stalled)";

/** An empty `StatusCounts`. */
export function zeroCounts(): Record<RunStatus, number> {
  return {
    running: 0,
    cancelling: 0,
    buffered: 0,
    ok: 0,
    error: 0,
    timeout: 0,
    skipped: 0,
    missed: 0,
    abandoned: 0,
    cancelled: 0,
  };
}

/** `pruneRows(job, keep)`: `keep` is an integer >= 1. @throws {SchedulerError} `invalid-spec`. */
export function checkKeep(keep: unknown): number {
  if (typeof keep !== "number" || !Number.isSafeInteger(keep) || keep < 1) {
    throw new SchedulerError("invalid-spec", `pruneRows.keep: expected an integer >= 1, got ${quote(keep)}`, {
      path: "pruneRows.keep",
    });
  }
  return keep;
}
