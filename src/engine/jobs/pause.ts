/** Pausing and resuming a job, on every node through the store; `pause()`'s options checked once. */
import { checkWellFormed, quote, SchedulerError } from "../../core/errors.ts";
import type { Store } from "../../store/types.ts";
import { type JobRegistry, storedDef } from "./registry.ts";
import type { Clock, PauseOptions, Scheduler } from "../types.ts";

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/** Longest pause note. */
export const MAX_PAUSE_NOTE = 500;

/**
 * The store's pause info from `pause()`'s options (undefined: none given).
 *
 * @throws {SchedulerError} `invalid-spec` naming `note` or `by`.
 */
export function pauseInfo(options: PauseOptions | undefined): { note?: string; by?: string } | undefined {
  if (options === undefined) return undefined;
  if (options === null || typeof options !== "object") {
    throw new SchedulerError("invalid-spec", `pause: expected { note?, by? }, got ${quote(String(options))}`, {
      path: "options",
    });
  }
  const { note, by } = options;
  if (note !== undefined && (typeof note !== "string" || note.length > MAX_PAUSE_NOTE || CONTROL.test(note))) {
    throw new SchedulerError(
      "invalid-spec",
      `note: expected text of at most ${MAX_PAUSE_NOTE} characters without control characters, got ${
        quote(String(note))
      }`,
      { path: "note" },
    );
  }
  if (by !== undefined && (typeof by !== "string" || by.length === 0 || by.length > 128 || CONTROL.test(by))) {
    throw new SchedulerError(
      "invalid-spec",
      `by: expected 1-128 characters without control characters, got ${quote(String(by))}`,
      { path: "by" },
    );
  }
  checkWellFormed(note, "note");
  checkWellFormed(by, "by");
  return { ...(note === undefined ? {} : { note }), ...(by === undefined ? {} : { by }) };
}

/** What pausing uses: the store (where the flag lives), the registry, the clock and store initialisation. */
export interface PauseDeps {
  store: Store;
  registry: JobRegistry;
  clock: Clock;
  ready: () => Promise<void>;
}

/**
 * `scheduler.pause(name, { note, by })` and `scheduler.resume(name)`: the flag is written
 * to the store, so every node reads it at its next tick. A job this node does not know is
 * looked up among the store's definitions first.
 *
 * @throws {SchedulerError} `unknown-job` for a name no job has; `invalid-spec` for bad options.
 */
export function createPauses(deps: PauseDeps): Pick<Scheduler, "pause" | "resume"> {
  const setPaused = async (name: string, paused: boolean, options?: PauseOptions): Promise<void> => {
    await deps.ready();
    if (deps.registry.get(name) === undefined) {
      const def = await storedDef(deps.store, name);
      if (def === undefined) {
        throw new SchedulerError("unknown-job", `no job named ${JSON.stringify(name)}`, { path: "name" });
      }
    }
    const info = pauseInfo(options);
    await deps.store.setPaused(name, paused, deps.clock.now(), info);
  };
  return {
    pause: (name, options) => setPaused(name, true, options),
    resume: (name) => setPaused(name, false),
  };
}
