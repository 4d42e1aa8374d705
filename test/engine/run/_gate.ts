/** Test handlers released by hand, for the overlap and backfill tests. */
import assert from "node:assert/strict";
import type { ManualClock } from "../../../src/engine/clock.ts";
import type { RunContext } from "../../../src/engine/types.ts";
import { deferred, T0 } from "../_helpers.ts";

/** A handler whose runs end only when the test says so; it tracks runs live at once. */
export function gate(clock: ManualClock, options: { ignoreAbort?: boolean } = {}) {
  const state = { started: [] as number[], startedAt: [] as number[], live: 0, peak: 0, reasons: [] as string[] };
  const pending = new Map<number, { resolve: () => void; reject: (e: unknown) => void }>();
  const run = (ctx: RunContext): Promise<void> => {
    state.started.push(ctx.slot);
    state.startedAt.push(clock.now());
    state.peak = Math.max(state.peak, ++state.live);
    const d = deferred();
    pending.set(ctx.slot, d);
    ctx.signal.addEventListener("abort", () => {
      const reason = ctx.signal.reason as { message?: string };
      state.reasons.push(String(reason?.message ?? reason));
      if (!options.ignoreAbort) d.reject(ctx.signal.reason);
    });
    return d.promise.finally(() => state.live--);
  };
  const release = async (slot: number): Promise<void> => {
    const d = pending.get(slot);
    assert.ok(d, `slot ${new Date(slot).toISOString()} is not running`);
    pending.delete(slot);
    d.resolve();
    await clock.settle();
  };
  /** Settles the host until `ready()` holds (store I/O may take more than one turn); fails after many tries. */
  const until = async (ready: () => boolean, what: string): Promise<void> => {
    for (let i = 0; i < 500 && !ready(); i++) await clock.settle();
    assert.ok(ready(), what);
  };
  return { state, run, release, until };
}

/**
 * The store first sees the job at the clock's time (set it just after T0 - 1 min: a new job
 * plans [registered, now], so the registering tick runs no slot), then the T0 slot is due at T0.
 */
export async function register(s: { clock: ManualClock; scheduler: { tick(): Promise<unknown> } }): Promise<void> {
  await s.scheduler.tick();
  await s.clock.set(T0);
}
