import type { TickReport } from "../types.ts";

/** Adds a later round's job reports to the first round's (a `tick()` in rounds). */
export function mergeRounds(into: TickReport, round: TickReport): void {
  for (const [name, r] of Object.entries(round.jobs)) {
    const target = into.jobs[name];
    if (target === undefined) {
      into.jobs[name] = r;
      continue;
    }
    for (const key of ["planned", "won", "lost", "run", "skipped", "missed", "abandoned", "buffered"] as const) {
      target[key].push(...r[key]);
    }
    Object.assign(target.outcomes, r.outcomes);
  }
}
