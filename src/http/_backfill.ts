/** A backfill started from a request: answered once planned, run after the answer. */
import type { Context } from "hono";
import type { BackfillOptions } from "../engine/types.ts";
import type { RouterContext } from "./_context.ts";

/**
 * Starts a backfill and resolves with its planned slots once they are validated (a bad
 * range rejects here, as a 400); the runs go on after the answer, inside the platform's
 * `waitUntil` where there is one. Progress shows in the run history.
 */
export function startBackfill(
  c: Context,
  rc: RouterContext,
  name: string,
  options: Omit<BackfillOptions, "onPlan">,
): Promise<readonly number[]> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const onPlan = (slots: readonly number[]): void => {
      answered = true;
      resolve(slots);
    };
    const done = rc.scheduler.backfill(name, { ...options, onPlan }).then(
      (report) =>
        rc.logger.info(
          `http: backfill of ${JSON.stringify(name)} ${
            report.stopped ? "stopped" : "done"
          }: ${report.ran.length} ran, ${report.skipped.length} skipped${
            report.stopped ? ` of ${report.planned} planned` : ""
          }`,
        ),
      (e: unknown) => {
        // Refused before its plan (a bad range, an unknown job): the caller's answer says so
        // (400, 404), and it is no failure of the server's to log. After the answer the
        // caller hears nothing more: the log is where the failure shows.
        if (!answered) return reject(e);
        rc.logger.error(`http: backfill of ${JSON.stringify(name)} failed`, {
          error: e instanceof Error ? e.message : String(e),
        });
      },
    );
    try {
      c.executionCtx.waitUntil(done);
    } catch {
      // Not on a platform with an execution context: the process keeps running it.
    }
  });
}
