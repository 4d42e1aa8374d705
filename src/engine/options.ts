/**
 * `createScheduler()`'s options resolved once, before anything is built: every default
 * filled in and every value checked, so the parts only ever see the resolved form.
 */
import { quote, SchedulerError } from "../core/errors.ts";
import { parseDuration } from "../core/duration.ts";
import { unknownOption } from "../core/suggest.ts";
import { signingKey } from "../webhook/keys.ts";
import { resolveWebhookPolicy, type WebhookPolicy } from "../webhook/policy.ts";
import { systemClock } from "./clock.ts";
import { historyWarnRowsOf } from "./jobs/history.ts";
import { JOB_NAME } from "./jobs/schema.ts";
import { resolveDefaults } from "./jobs/spec.ts";
import type { LeasePolicy } from "./run/lease.ts";
import type { Clock, JobPolicy, SchedulerOptions } from "./types.ts";
type At = (field: string) => { code: "invalid-spec"; field: string; path: string };
const at: At = (field) => ({ code: "invalid-spec", field, path: field });

/** The options every part of a scheduler reads, resolved. */
export interface ResolvedOptions {
  node: string;
  fetch: typeof fetch;
  webhooks: WebhookPolicy;
  /** The signing key from `webhookSecret` (none: this node cannot sign deliveries). */
  signing: string | undefined;
  clock: Clock;
  defaults: JobPolicy;
  policy: LeasePolicy;
  concurrency: number;
  storeTimeoutMs: number;
  retentionMs: number;
  historyWarnRows: number;
  runAhead: boolean;
  /** `claimAhead` in ms (0: claim when due). */
  claimAheadMs: number;
  /** Claim ahead only for a slot at least this many jobs share (`claimAhead: "auto"`, the default); 0: every slot. */
  claimAheadJobs: number;
}

/** `claimAhead: "auto"` (the default): how far ahead a large slot is claimed. */
export const AUTO_AHEAD_MS = 2_000;
/** `claimAhead: "auto"` (the default): how many jobs make a slot large enough to claim ahead. */
export const AUTO_AHEAD_JOBS = 1_000;

/** Every option of `createScheduler()` (the type makes the list whole). */
const OPTION_NAMES = Object.keys(
  {
    store: 0,
    node: 0,
    clock: 0,
    logger: 0,
    onEvent: 0,
    defaults: 0,
    fetch: 0,
    webhookSecret: 0,
    webhooks: 0,
    leaseGrace: 0,
    lease: 0,
    heartbeat: 0,
    concurrency: 0,
    storeTimeout: 0,
    claimAhead: 0,
    runAhead: 0,
    retention: 0,
    historyWarnRows: 0,
  } satisfies Record<keyof SchedulerOptions, 0>,
);

/**
 * Refuses options that are not an object, and any option `createScheduler()` does not
 * take, naming it and the nearest it does: a misspelt `concurency: 5` was ignored, and
 * the node ran at the default 200.
 *
 * @throws {SchedulerError} `invalid-spec`
 */
export function checkOptionNames(options: unknown): asserts options is SchedulerOptions {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new SchedulerError("invalid-spec", `createScheduler: expected an options object, got ${quote(options)}`);
  }
  const unknown = unknownOption(options, OPTION_NAMES);
  if (unknown !== undefined) {
    throw new SchedulerError("invalid-spec", `${unknown.key}: not an option of createScheduler${unknown.hint}`, {
      path: unknown.key,
    });
  }
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    // The options no later check reads: `store: null` ran on a memory store, a `store`,
    // `clock` or `onEvent` of the wrong kind failed later with a TypeError, if at all.
    const [kind, text, method] = KINDS[key] ?? [];
    if (kind === undefined) continue;
    const v = value as Record<string, unknown> | null;
    if (typeof v !== kind || v === null || (method !== undefined && typeof v[method] !== "function")) {
      throw new SchedulerError("invalid-spec", `${key}: expected ${text}, got ${quote(value)}`, {
        path: key,
      });
    }
  }
}

/** The kind of each option no later check reads, as said in the error, and a method an object must have. */
const KINDS: Record<string, [string, string, string?]> = {
  store: ["object", "a store such as memoryStore()", "claim"],
  clock: ["object", "a clock", "now"],
  logger: ["object", "a logger object"],
  onEvent: ["function", "a function"],
  fetch: ["function", "a function"],
  runAhead: ["boolean", "true or false"],
};

/**
 * Resolves every option but `store`, `logger` and `onEvent` (see `createScheduler()` for
 * the defaults).
 *
 * @throws {SchedulerError} `invalid-name` for `node`; `invalid-spec` naming the option for
 * the others (a bad `webhookSecret` key list fails here, at start-up, not at the first delivery).
 */
export function resolveOptions(options: SchedulerOptions): ResolvedOptions {
  const node = nodeOf(options);
  const fetcher = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  const webhooks = resolveWebhookPolicy(options.webhooks);
  const signing = options.webhookSecret === undefined ? undefined : signingKey(options.webhookSecret);
  const clock = options.clock ?? systemClock();
  const defaults = resolveDefaults(options.defaults);
  const policy = leasePolicy(options, at);
  const concurrency = concurrencyOf(options);
  const storeTimeoutMs = storeTimeoutOf(options, at);
  const retentionMs = parseDuration(options.retention ?? "7d", { ...at("retention"), min: 1 });
  const historyWarnRows = historyWarnRowsOf(options.historyWarnRows);
  return {
    node,
    fetch: fetcher,
    webhooks,
    signing,
    clock,
    defaults,
    policy,
    concurrency,
    storeTimeoutMs,
    retentionMs,
    historyWarnRows,
    runAhead: options.runAhead ?? true,
    ...claimAheadOf(options, policy, at),
  };
}

/**
 * Resolves `node` (default a random UUID).
 *
 * @throws {SchedulerError} `invalid-name` unless 1-128 characters of A-Z a-z 0-9 . _ : -.
 */
function nodeOf(options: SchedulerOptions): string {
  const node = options.node ?? crypto.randomUUID();
  if (typeof node !== "string" || !JOB_NAME.test(node)) {
    throw new SchedulerError(
      "invalid-name",
      `node: expected 1-128 characters of A-Z a-z 0-9 . _ : -, got ${quote(String(node))}`,
      { path: "node" },
    );
  }
  return node;
}

/** Default `concurrency`: see README ("Capacity"). */
export const DEFAULT_CONCURRENCY = 200;

/**
 * Resolves `lease` (default 15 s), `heartbeat` (default a third of the lease, at most half
 * of it) and `leaseGrace` (default 5 s: the fencing margin, see `run/policy.ts`).
 *
 * @throws {SchedulerError} `invalid-spec` naming the option.
 */
function leasePolicy(options: SchedulerOptions, at: At): LeasePolicy {
  const leaseMs = parseDuration(options.lease ?? "15s", { ...at("lease"), min: 2 });
  const heartbeatMs = options.heartbeat === undefined
    ? Math.max(1, Math.floor(leaseMs / 3))
    : parseDuration(options.heartbeat, { ...at("heartbeat"), min: 1 });
  if (heartbeatMs > leaseMs / 2) {
    throw new SchedulerError(
      "invalid-spec",
      `heartbeat: must be at most half of lease (${leaseMs}ms), got ${heartbeatMs}ms`,
      { path: "heartbeat" },
    );
  }
  return { leaseMs, heartbeatMs, graceMs: parseDuration(options.leaseGrace ?? "5s", at("leaseGrace")) };
}

/**
 * Resolves `concurrency` (default {@link DEFAULT_CONCURRENCY}).
 *
 * @throws {SchedulerError} `invalid-spec` unless an integer >= 1.
 */
function concurrencyOf(options: SchedulerOptions): number {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new SchedulerError("invalid-spec", `concurrency: expected an integer >= 1, got ${quote(concurrency)}`, {
      path: "concurrency",
    });
  }
  return concurrency;
}

/** Resolves `storeTimeout` (default 30 s; `Infinity` for none). @throws {SchedulerError} `invalid-spec`. */
function storeTimeoutOf(options: SchedulerOptions, at: At): number {
  if (options.storeTimeout === undefined) return 30_000;
  if (options.storeTimeout === Infinity) return Infinity;
  return parseDuration(options.storeTimeout, { ...at("storeTimeout"), min: 1 });
}

/**
 * Resolves `claimAhead` (default `"auto"`: 2 s, or lease less heartbeat when that is
 * shorter, for slots at least {@link AUTO_AHEAD_JOBS} jobs share). A claim made ahead judges the other runs of its job
 * live at the slot (`leaseUntil >= slot`): a live run's lease reaches at least `lease`
 * less `heartbeat` past the clock, so that is the longest lead at which it reads right.
 *
 * @throws {SchedulerError} `invalid-spec` naming `claimAhead`.
 */
function claimAheadOf(
  options: SchedulerOptions,
  policy: LeasePolicy,
  at: At,
): { claimAheadMs: number; claimAheadJobs: number } {
  const most = policy.leaseMs - policy.heartbeatMs;
  if (options.claimAhead === undefined || options.claimAhead === "auto") {
    return { claimAheadMs: Math.max(0, Math.min(AUTO_AHEAD_MS, most)), claimAheadJobs: AUTO_AHEAD_JOBS };
  }
  const ms = parseDuration(options.claimAhead, at("claimAhead"));
  if (ms > most) {
    throw new SchedulerError(
      "invalid-spec",
      `claimAhead: must be at most lease less heartbeat (${most}ms), got ${ms}ms; shorten it or lengthen lease`,
      { path: "claimAhead" },
    );
  }
  return { claimAheadMs: ms, claimAheadJobs: 0 };
}
