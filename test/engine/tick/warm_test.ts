// Optimised planning code survives the garbage collections between minutes. V8 holds
// weakly what optimised code was specialised on (the maps of objects it saw, the functions
// it saw called); when a minute's last such object is collected, the code is thrown away
// and the next minute compiles it again. Planning walked each schedule through the iterable
// `between()` makes per call, whose map died between minutes: every node recompiled its
// planning every minute (bench/README, thirteenth pass). On V8 (Node) the test asks V8
// whether the code is still optimised after the collections; elsewhere it says why it
// cannot and checks the plan only.
import { it } from "node:test";
import assert from "node:assert/strict";
import { runInNewContext } from "node:vm";
import { planSlots } from "../../../src/engine/tick/plan.ts";
import { cron } from "../../../src/core/mod.ts";

const MIN = 60_000;
const T0 = Date.UTC(2030, 0, 1);

/** V8's natives where the runtime lets a test use them (Node); undefined elsewhere. */
async function natives(): Promise<
  { optimise(f: () => unknown): void; optimised(f: unknown): boolean; gc(): void } | undefined
> {
  try {
    const v8 = await import("node:v8");
    v8.setFlagsFromString("--allow-natives-syntax");
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const status = new Function("f", "return %GetOptimizationStatus(f)") as (f: unknown) => number;
    const prepare = new Function("f", "%PrepareFunctionForOptimization(f)") as (f: unknown) => void;
    const next = new Function("f", "%OptimizeFunctionOnNextCall(f)") as (f: unknown) => void;
    if (typeof gc !== "function" || typeof status(planSlots) !== "number") return undefined;
    return {
      optimise(call) {
        prepare(planSlots);
        call();
        call();
        next(planSlots);
        call();
      },
      // Bit 4 (16) of V8's optimisation status: the function runs optimised code.
      optimised: (f) => (status(f) & 16) !== 0,
      gc,
    };
  } catch {
    return undefined;
  }
}

it("planning stays optimised across the collections between minutes, on V8", async (t) => {
  const schedule = cron("* * * * *");
  const catchUp = { mode: "latest", windowMs: 5 * MIN, toleranceMs: 0 } as const;
  // One minute's planning of 200 jobs: objects made while planning live only for the minute.
  const minute = (m: number) => {
    let run = 0;
    for (let i = 0; i < 200; i++) {
      run +=
        planSlots({ schedule, catchUp, now: T0 + m * MIN, watermark: T0 + (m - 1) * MIN, firstSeen: T0, paused: false })
          .run.length;
    }
    return run;
  };
  const v8 = await natives();
  if (v8 === undefined) {
    t.diagnostic("this runtime has no V8 natives to ask; the plan is checked, its optimisation is not");
    assert.equal(minute(1), 200);
    return;
  }
  v8.optimise(() => minute(1));
  assert.equal(v8.optimised(planSlots), true, "planSlots was optimised");
  for (let m = 2; m <= 4; m++) {
    assert.equal(minute(m), 200);
    for (let k = 0; k < 6; k++) v8.gc();
  }
  assert.equal(v8.optimised(planSlots), true, "planSlots kept its optimised code through the collections");
});
