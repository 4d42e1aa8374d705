/**
 * `tally()` for a store without a statement of its own (Postgres, Deno KV): `read()` and
 * `overview()` of the same names, no recent rows, reduced to what `tally()` answers.
 */
import { checkInstant, checkNames } from "./_validate.ts";
import type { JobTally, Store } from "./types.ts";

/** Builds `tally()` from `store`'s `read()` and `overview()` (called at each use, so a wrapped store's own methods are used). */
export function tallyFromReads(store: () => Pick<Store, "read" | "overview">): Store["tally"] {
  return async (names, now): Promise<Record<string, JobTally>> => {
    checkNames(names, "tally.names");
    checkInstant(now, "tally.now");
    const { read, overview } = store();
    const [state, view] = await Promise.all([
      read(names),
      overview(names, { since: Number.MAX_SAFE_INTEGER, perJob: 1 }),
    ]);
    const running = new Map<string, number>();
    for (const r of state.running) {
      if (r.leaseUntil === null || r.leaseUntil < now) continue;
      const seen = running.get(r.job);
      if (seen === undefined || r.slot < seen) running.set(r.job, r.slot);
    }
    const result: Record<string, JobTally> = Object.create(null);
    for (const name of names) {
      const one = Object.hasOwn(view, name) ? view[name] : undefined;
      const last = one?.last;
      result[name] = {
        paused: (Object.hasOwn(state.jobs, name) ? state.jobs[name] : undefined)?.paused ?? false,
        runningSince: running.get(name),
        last: last === undefined
          ? undefined
          : { status: last.status, startedAt: last.startedAt, finishedAt: last.finishedAt },
        counts: { ...one!.counts },
        bufferFull: one?.bufferFull ?? 0,
      };
    }
    return result;
  };
}
