/**
 * Share marks: a node that claimed its whole rendezvous share of a tick notes so in one
 * shared setting, `{ node: [tick's now, digest of the share] }`. A node about to help
 * with the others' shares skips the share of every owner whose mark is for the same tick
 * and whose digest matches the share as it sees it (same jobs, same schedules, same
 * nodes), instead of probing each of those jobs' newest slots (7 500 probes a minute per
 * node at 10 000 jobs on four nodes). A mark is only ever written true, by its own node;
 * a mark lost to another node's write, stale, or unreadable costs the probe, never a slot.
 */
import { errorText } from "../text.ts";
import type { Store } from "../../store/types.ts";
import type { Logger } from "../types.ts";
import type { ResolvedJob } from "../jobs/spec.ts";
import { PRESENCE_TTL_MS, storedEntries } from "./presence.ts";
import { hashText, mix } from "./spread.ts";

/** The setting that holds the marks. */
export const SHARES_KEY = "edgecron.shares";
/**
 * The fewest due jobs of its share a node notes, and the fewest of the others' jobs for
 * which a helper reads the marks: a mark costs a settings read and write, a probe a few
 * microseconds a job (7 500 jobs, about 20 ms), so a few hundred are as cheap to probe.
 */
export const MARKED_SHARE = 500;

/** The marks of one scheduler's node. */
export interface ShareMarks {
  /** Notes that this node claimed all of its share `digest` of the tick at `now`. Never rejects. */
  note(now: number, digest: string): Promise<void>;
  /** Of `owners` (node → digest of its share as this node sees it), those whose mark is for `now` with that digest. Never rejects. */
  claimed(now: number, owners: ReadonlyMap<string, string>): Promise<Set<string>>;
}

/** Creates the marks of `node` over `store`'s settings. */
export function createShareMarks(deps: { store: Store; node: string; log: Logger }): ShareMarks {
  const { store, node, log } = deps;
  const unavailable = (e: unknown): void =>
    log.debug("share marks unavailable; helping probes every share", { error: errorText(e) });
  const read = async (): Promise<Map<string, [number, string]>> => parse(await store.getSetting(SHARES_KEY));
  return {
    async note(now, digest) {
      try {
        const marks = await read();
        // Another node's entry this old belongs to a node long gone: the setting stays small.
        for (const [name, [at]] of marks) if (Math.abs(now - at) > PRESENCE_TTL_MS) marks.delete(name);
        marks.set(node, [now, digest]);
        await store.putSetting(SHARES_KEY, JSON.stringify(Object.fromEntries(marks)));
      } catch (e) {
        unavailable(e);
      }
    },
    async claimed(now, owners) {
      const out = new Set<string>();
      try {
        const marks = await read();
        for (const [name, digest] of owners) {
          const mark = marks.get(name);
          if (name !== node && mark !== undefined && mark[0] === now && mark[1] === digest) out.add(name);
        }
      } catch (e) {
        unavailable(e);
      }
      return out;
    },
  };
}

/**
 * A digest of a share that does not depend on its order: the count and two sums of each
 * job's hash over its name, schedule and whether it is enabled (a node deployed with
 * another schedule for a job sees another share).
 */
export function shareDigest(jobs: readonly ResolvedJob[]): string {
  let a = 0;
  let b = 0;
  for (const job of jobs) {
    const h = hashText(`${job.name}\n${scheduleText(job)}\n${job.enabled}`);
    a = (a + mix(h)) >>> 0;
    b = (b + mix(h ^ 0x5bd1e995)) >>> 0;
  }
  return `${jobs.length}.${a.toString(36)}.${b.toString(36)}`;
}

function scheduleText(job: ResolvedJob): string {
  try {
    return JSON.stringify(job.schedule.toJSON());
  } catch {
    // A custom schedule object without a usable toJSON: its name stands for it.
    return "?";
  }
}

/** The stored marks, tolerating anything: a bad value or entry means no mark. */
function parse(text: string | undefined): Map<string, [number, string]> {
  const out = new Map<string, [number, string]>();
  for (const [name, mark] of storedEntries(text)) {
    if (Array.isArray(mark) && typeof mark[0] === "number" && typeof mark[1] === "string") {
      out.set(name, [mark[0], mark[1]]);
    }
  }
  return out;
}
