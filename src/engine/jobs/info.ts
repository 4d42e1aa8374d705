/**
 * The read side: `list()` and `get()` describe jobs from at most three store reads
 * (`listDefs` for a list, `read` and `overview` of the jobs shown), `summaries()` from
 * two (`listDefs` and `tally` of the page), never a write,
 * whatever the number of jobs; a page or one job reads what it shows, never the whole
 * store. Upcoming slots are cached per job until the next tick or a definition change.
 */
import { redactDef } from "./redact.ts";
import { own } from "../../core/own.ts";
import { quote, SchedulerError, UNSTORABLE } from "../../core/errors.ts";
import { INSTANT_LIMIT } from "../../core/instant.ts";
import type { RunRecord, Store, TickSnapshot } from "../../store/types.ts";
import type { BrokenJob, JobRegistry } from "./registry.ts";
import type { ResolvedJob } from "./spec.ts";
import type { Clock, JobInfo, JobSummary, ListOptions } from "../types.ts";
import { lifeOf } from "./life.ts";
import { hostTurn, sortByNameInSteps } from "./sort.ts";

/** How many next slots `list()` and `get()` show by default. */
export const DEFAULT_NEXT = 5;
/** Rows per job in `recent`. */
const RECENT_PER_JOB = 50;
/** Slots listed in `upcoming.slots`. */
const UPCOMING_SLOTS = 200;
/** Slots walked (by all the jobs of one call) between two host turns. */
const WALK_STEP = 20_000;
/** Definitions of a page resolved between two host turns (a cold resolve costs up to 0.2 ms). */
const RESOLVE_STEP = 100;
/** Counting stops here: a every-second job over a long window would otherwise cost a walk per slot. */
const UPCOMING_COUNT_MAX = 1_000_000;

type Upcoming = NonNullable<JobInfo["upcoming"]>;
type Listed = ResolvedJob | BrokenJob;

/** Describes jobs; `invalidate()` drops the cache (every tick calls it). */
export interface JobViews {
  list(options?: ListOptions): Promise<JobInfo[]>;
  get(name: string, options?: Pick<ListOptions, "next" | "window">): Promise<JobInfo | undefined>;
  summaries(options?: { after?: string; limit?: number }): Promise<JobSummary[]>;
  invalidate(): void;
}

/** Creates the read side over the (deadline-guarded) store. */
export function createJobViews(deps: { store: Store; clock: Clock; registry: JobRegistry }): JobViews {
  const { store, clock, registry } = deps;
  let cache = new Map<string, { job: ResolvedJob; from: number; window: number; value: Upcoming }>();
  let cacheVersion = registry.version;
  // Jobs by name, sorted once per registry version (a broken row bumps it too): every
  // page after that is a binary search. A large list is sorted in steps, so a request
  // after a change never holds the event loop for the whole sort.
  let byName: { version: number; jobs: Listed[] } | undefined;
  // Requests that arrive while a sort runs wait for it rather than start their own.
  let sorting: { version: number; jobs: Promise<Listed[]> } | undefined;
  const sortedJobs = async (): Promise<Listed[]> => {
    const version = registry.version;
    if (byName?.version === version) return byName.jobs;
    if (sorting?.version === version) return sorting.jobs;
    const all: Listed[] = registry.all();
    for (const broken of registry.broken()) all.push(broken);
    const jobs = sortByNameInSteps(all, hostTurn);
    sorting = { version, jobs };
    try {
      // Kept even if the registry changed meanwhile: the next call sorts again.
      byName = { version, jobs: await jobs };
      return byName.jobs;
    } finally {
      if (sorting?.jobs === jobs) sorting = undefined;
    }
  };

  // Counting a window's slots walks them (86 400 a day for an every-second job): the
  // walk pauses for a host turn every WALK_STEP slots, counted across the jobs of a
  // call, so a page of busy jobs never holds the event loop for all of them.
  let walked = 0;
  const due = (): boolean => ++walked % WALK_STEP === 0;
  const upcoming = async (job: ResolvedJob, now: number, window: number): Promise<Upcoming> => {
    if (cacheVersion !== registry.version) {
      cache = new Map();
      cacheVersion = registry.version;
    }
    const hit = cache.get(job.name);
    if (hit !== undefined && hit.job === job && hit.window === window && hit.from <= now) {
      // Slots that came due since are dropped; the far end moves on at the next tick.
      const gone = hit.value.slots.findIndex((s) => s > now);
      if (gone === 0) return hit.value;
      if (gone > 0 && gone < hit.value.slots.length) {
        const slots = hit.value.slots.slice(gone);
        return { count: hit.value.count - gone, first: slots[0], last: hit.value.last, slots };
      }
    }
    const value = await computeUpcoming(job, now, window, due);
    cache.set(job.name, { job, from: now, window, value });
    return value;
  };

  // A page's jobs by name after `after` (at most `size`), once the registry has the
  // definitions of the page's name range (so a job another node defined shows at once).
  const pageJobs = async (after: string | undefined, size: number | undefined): Promise<Listed[]> => {
    // The definitions of the page's name range (a store that ignores the query returns
    // more: only the range is kept), so a job another node defined shows at once.
    const page = size === undefined ? {} : { limit: size };
    const defs = sortByName(
      (await store.listDefs(after === undefined ? page : { ...page, after })).filter((d) =>
        after === undefined || d.name > after
      ),
    ).slice(0, size);
    const upTo = size !== undefined && defs.length === size ? defs.at(-1)!.name : undefined;
    // A data job this node would show on the page, within the range read, that the store
    // no longer has was deleted. Only the page is checked (new definitions can only push
    // known jobs off it), so the check costs a page, not the registry; a job further on
    // is checked when its own page is read.
    // With no data job known and none read, nothing can be gone (a large code-only page skips the check).
    if (defs.length === 0 && !registry.hasData()) return pageOf(await sortedJobs(), after, size);
    const found = new Set(defs.map((d) => d.name));
    const gone = pageOf(await sortedJobs(), after, size)
      .filter((j) =>
        j.source === "data" && !found.has(j.name) && !registry.isCode(j.name) && (upTo === undefined || j.name <= upTo)
      )
      .map((j) => j.name);
    // Synced RESOLVE_STEP names at a time, with a host turn after a step that changed the
    // registry: a page of new definitions (the first read after another node stored them)
    // resolves each one, and a thousand at once held the event loop for 100-190 ms. A page
    // whose definitions are all known costs a version check each and no turn.
    const covered = [...found, ...gone];
    let changed = false;
    for (let i = 0; i < covered.length; i += RESOLVE_STEP) {
      if (changed) await hostTurn();
      const names = new Set(covered.slice(i, i + RESOLVE_STEP));
      const version = registry.version;
      registry.syncPart({ defs: defs.filter((d) => names.has(d.name)) }, names);
      changed = registry.version !== version;
    }
    return pageOf(await sortedJobs(), after, size);
  };

  // Which jobs a call describes, with their planning state. Each form reads what it shows:
  // one job reads one job; a page reads the definitions in its name range and the state
  // of its own jobs, so paging through N jobs costs N, not N²; the whole list reads all.
  const select = async (
    only: string | undefined,
    options: ListOptions,
  ): Promise<{ jobs: Listed[]; snapshot: TickSnapshot }> => {
    if (only !== undefined) {
      // A name no store can hold (a NUL, a lone surrogate) is no job: nothing to read.
      const snapshot = UNSTORABLE.test(only)
        ? { jobs: {}, watermarks: {}, defs: [], running: [] }
        : await store.read([only]);
      registry.syncPart(snapshot, new Set([only]));
      return { jobs: lookup(only), snapshot };
    }
    // `limit` is a whole number from 0 (checkViewOptions).
    const { after, limit: size } = options;
    if (after === undefined && size === undefined) {
      // Broken jobs are listed too (marked), after the ones that run; code jobs first, as registered.
      registry.sync({ defs: await store.listDefs() });
      const snapshot = await store.read(registry.names());
      registry.sync({ jobs: snapshot.jobs });
      return { jobs: [...registry.all(), ...registry.broken()], snapshot };
    }
    if (size === 0) return { jobs: [], snapshot: { jobs: {}, watermarks: {}, defs: [], running: [] } };
    let jobs = await pageJobs(after, size);
    const version = registry.version;
    let snapshot = await store.read(jobs.map((j) => j.name));
    registry.syncPart(snapshot, new Set(jobs.map((j) => j.name)));
    if (registry.version !== version) {
      // A definition changed between the two reads, or a row turned out broken: read the new page.
      jobs = pageOf(await sortedJobs(), after, size);
      snapshot = await store.read(jobs.map((j) => j.name));
    }
    return { jobs, snapshot };
  };

  // One job by name, broken or not, without walking the registry.
  const lookup = (name: string): Listed[] => {
    const broken = registry.broken().find((b) => b.name === name);
    if (broken !== undefined) return [broken];
    const job = registry.get(name);
    return job === undefined ? [] : [job];
  };

  const describe = async (only: string | undefined, options: ListOptions): Promise<JobInfo[]> => {
    const now = clock.now();
    checkViewOptions(options, now);
    const count = options.next ?? DEFAULT_NEXT;
    const { jobs, snapshot } = await select(only, options);
    if (jobs.length === 0) return [];
    const window = options.window;
    const since = window === undefined ? now + 1 : now - window;
    const overview = window === undefined && options.outcomes === false
      ? {}
      : await store.overview(jobs.map((j) => j.name), { since, perJob: RECENT_PER_JOB });
    const live = liveSince(snapshot, now);
    const out: JobInfo[] = [];
    for (const listed of jobs) {
      if ("reason" in listed) {
        out.push(describeBroken(
          listed,
          registry,
          own(snapshot.jobs, listed.name)?.paused ?? false,
          own(overview, listed.name)?.last,
        ));
        continue;
      }
      const job = listed;
      const paused = own(snapshot.jobs, job.name)?.paused ?? false;
      const fires = job.enabled && !paused;
      const info = describeJob(job, registry, {
        paused,
        runningSince: live.get(job.name),
        lastOutcome: own(overview, job.name)?.last,
        next: fires ? nextRuns(job, now, count) : [],
      });
      const pause = own(snapshot.jobs, job.name)?.pause;
      if (paused && pause !== undefined) info.pause = { ...pause };
      const counts = own(overview, job.name)?.counts;
      Object.assign(info, lifeOf(job, now, counts, snapshot.running, own(snapshot.jobs, job.name)?.prunedRuns));
      if (counts !== undefined) {
        info.statusCounts = counts;
        info.bufferFull = own(overview, job.name)?.bufferFull ?? 0;
      }
      if (window !== undefined) {
        info.recent = overview[job.name]?.recent ?? [];
        info.upcoming = fires
          ? await upcoming(job, now, window)
          : { count: 0, first: undefined, last: undefined, slots: [] };
      }
      out.push(info);
    }
    return out;
  };

  // Each job's next slot as summaries() last computed it, by position in the name-sorted
  // list it was computed on (typed arrays, read in page order: no lookup by name). A slot
  // computed at `from` is the job's next one for any `now` in [from, slot), as the timer's
  // wake cache holds; so a later scrape steps no schedule until the slot passes (stepping
  // 100 000 cron schedules was about 150 ms of a scrape).
  let slots: { jobs: readonly Listed[]; from: Float64Array; next: Float64Array } | undefined;
  // The slots of the page that starts at `jobs[0]`, when that page lies in the current sorted list.
  const slotsOf = (jobs: readonly Listed[], after: string | undefined): { at: number; cache: typeof slots } => {
    const sorted = byName?.jobs;
    if (sorted === undefined) return { at: 0, cache: undefined };
    const at = firstAfter(sorted, after);
    if (sorted[at] !== jobs[0]) return { at: 0, cache: undefined };
    if (slots?.jobs !== sorted) {
      slots = { jobs: sorted, from: new Float64Array(sorted.length).fill(NaN), next: new Float64Array(sorted.length) };
    }
    return { at, cache: slots };
  };

  // A page of jobs with what `GET /metrics` reads: the definitions of the page's range
  // and one tally() of its jobs; nothing is described beyond that.
  const summaries = async (options: { after?: string; limit?: number } = {}): Promise<JobSummary[]> => {
    const now = clock.now();
    checkViewOptions(options, now);
    const { after, limit: size } = options;
    if (size === 0) return [];
    const jobs = await pageJobs(after, size);
    if (jobs.length === 0) return [];
    const tally = await store.tally(jobs.map((j) => j.name), now);
    // After the tally's await: the slots of the list the page is in now.
    const { at, cache } = slotsOf(jobs, after);
    const nextOf = (job: ResolvedJob, i: number): number | undefined => {
      if (cache !== undefined && cache.from[at + i]! <= now && now < cache.next[at + i]!) return cache.next[at + i];
      const next = nextRuns(job, now, 1)[0];
      if (cache !== undefined) {
        cache.from[at + i] = next === undefined ? NaN : now;
        cache.next[at + i] = next ?? 0;
      }
      return next;
    };
    const out: JobSummary[] = [];
    for (let i = 0; i < jobs.length; i++) {
      const listed = jobs[i]!;
      const t = own(tally, listed.name);
      const paused = t?.paused ?? false;
      if ("reason" in listed) {
        out.push({
          name: listed.name,
          enabled: listed.job?.enabled ?? false,
          paused,
          runningSince: undefined,
          next: undefined,
          lastOutcome: t?.last,
          broken: listed.reason,
        });
        continue;
      }
      const fires = listed.enabled && !paused;
      const summary: JobSummary = {
        name: listed.name,
        enabled: listed.enabled,
        paused,
        runningSince: t?.runningSince,
        next: fires ? nextOf(listed, i) : undefined,
        lastOutcome: t?.last,
      };
      if (t !== undefined) {
        summary.statusCounts = t.counts;
        summary.bufferFull = t.bufferFull;
      }
      out.push(summary);
    }
    return out;
  };

  return {
    summaries,
    list: (options = {}) => describe(undefined, options),
    async get(name, options = {}) {
      return (await describe(name, options))[0];
    },
    invalidate() {
      cache = new Map();
    },
  };
}

function sortByName<T extends { name: string }>(items: T[]): T[] {
  return items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The position of the first of name-sorted `jobs` strictly after `after`: a binary search, not a pass. */
function firstAfter(sorted: readonly { name: string }[], after: string | undefined): number {
  let lo = 0;
  if (after !== undefined) {
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (sorted[mid]!.name > after) hi = mid;
      else lo = mid + 1;
    }
  }
  return lo;
}

/** The page of name-sorted `jobs` strictly after `after`, at most `limit` (a whole number from 0) long. */
function pageOf<T extends { name: string }>(
  sorted: readonly T[],
  after: string | undefined,
  limit: number | undefined,
): T[] {
  const lo = firstAfter(sorted, after);
  return sorted.slice(lo, limit === undefined ? undefined : lo + limit);
}

/**
 * Refuses by name the options of `list()`, `get()` and `summaries()` that are not what
 * their types say. They were taken anyway: `limit: -1` listed nothing, `next: 1e9` gave
 * 100, and `window: 1e20` failed naming the store's `overview.since`.
 */
function checkViewOptions(o: ListOptions, now: number): void {
  const whole = (n: unknown, max: number): boolean => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= max;
  const why: [keyof ListOptions, string] | undefined = o.next !== undefined && !whole(o.next, 100)
    ? ["next", "a whole number 0-100"]
    : o.window !== undefined && !whole(o.window, INSTANT_LIMIT - Math.abs(now))
    ? ["window", "whole ms from 0 within the instants a Date holds"]
    : o.limit !== undefined && !whole(o.limit, Infinity)
    ? ["limit", "a whole number from 0"]
    : o.after !== undefined && (typeof o.after !== "string" || UNSTORABLE.test(o.after))
    ? ["after", "a job name (no NUL character or lone surrogate)"]
    : o.outcomes !== undefined && typeof o.outcomes !== "boolean"
    ? ["outcomes", "true or false"]
    : undefined;
  if (why !== undefined) {
    throw new SchedulerError("invalid-spec", `${why[0]}: expected ${why[1]}, got ${quote(o[why[0]])}`, {
      path: why[0],
    });
  }
}

async function computeUpcoming(
  job: ResolvedJob,
  now: number,
  window: number,
  due: () => boolean,
): Promise<Upcoming> {
  const slots: number[] = [];
  let count = 0;
  let last: number | undefined;
  try {
    for (const slot of job.schedule.between(now, now + window)) {
      if (slots.length < UPCOMING_SLOTS) slots.push(slot);
      last = slot;
      if (++count >= UPCOMING_COUNT_MAX) break;
      if (due()) await hostTurn();
    }
  } catch {
    // A broken user-supplied Schedule: ticks log it.
  }
  return { count, first: slots[0], last, slots };
}

function nextRuns(job: ResolvedJob, now: number, count: number): number[] {
  try {
    return job.schedule.nextRuns(now, count);
  } catch {
    return []; // a broken user-supplied Schedule; ticks log it
  }
}

/** The oldest slot of each job's live runs, one pass over the running rows. */
function liveSince(snapshot: TickSnapshot, now: number): Map<string, number> {
  const since = new Map<string, number>();
  for (const r of snapshot.running) {
    if (r.leaseUntil === null || r.leaseUntil < now) continue;
    const seen = since.get(r.job);
    if (seen === undefined || r.slot < seen) since.set(r.job, r.slot);
  }
  return since;
}

function describeJob(
  job: ResolvedJob,
  registry: JobRegistry,
  live: { paused: boolean; runningSince: number | undefined; lastOutcome: RunRecord | undefined; next: number[] },
): JobInfo {
  const out: JobInfo = {
    name: job.name,
    source: job.source,
    description: job.description,
    schedule: job.schedule.toString(),
    spec: job.schedule.toJSON(),
    timezone: job.timezone,
    enabled: job.enabled,
    ...live,
    counters: { ...registry.counters(job.name) },
  };
  if (job.source === "data" && job.def !== undefined) out.def = redactDef(job.def);
  if (job.jitterMs > 0) out.jitter = job.jitterMs;
  return out;
}

/**
 * A job that does not run because a stored row is unreadable: what is known of it, with
 * `broken` saying why. A definition that cannot be read at all shows an empty schedule.
 */
function describeBroken(
  b: BrokenJob,
  registry: JobRegistry,
  paused: boolean,
  lastOutcome: RunRecord | undefined,
): JobInfo {
  const live = { paused, runningSince: undefined, lastOutcome, next: [] };
  if (b.job !== undefined) return { ...describeJob(b.job, registry, live), broken: b.reason };
  const out: JobInfo = {
    name: b.name,
    source: b.source,
    description: undefined,
    schedule: "",
    spec: { cron: "" },
    timezone: "UTC",
    enabled: false,
    ...live,
    counters: { ...registry.counters(b.name) },
    broken: b.reason,
  };
  if (b.def !== undefined) out.def = redactDef(b.def);
  return out;
}
