// Child of warm_test.ts, run by Node with --expose-gc --trace-deopt: minutes of 1 000 jobs
// on the memory store with a manual clock, six full collections after each (as the memory
// reducer does between real minutes). Prints `=== minute N` before each tick, so the test
// can tell which deopts came after the code had warmed up.
import { createScheduler } from "../../../src/engine/mod.ts";
import { memoryStore } from "../../../src/store/memory/mod.ts";
import { createManualClock } from "../../../src/engine/clock.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("_warm_child.ts: run it with --expose-gc");
const clock = createManualClock(Date.UTC(2030, 0, 1, 0, 0, 30));
const scheduler = createScheduler({ store: memoryStore(), clock, node: "n1", logger: { warn() {}, error() {} } });
let ran = 0;
for (let i = 0; i < 1_000; i++) {
  scheduler.job(`job-${String(i).padStart(4, "0")}`, { schedule: "* * * * *", run: () => void ran++ });
}
await scheduler.ready();
for (let m = 1; m <= 6; m++) {
  console.log(`=== minute ${m}`);
  await clock.set(Date.UTC(2030, 0, 1, 0, m, 0));
  await scheduler.tick();
  for (let k = 0; k < 6; k++) gc();
}
await scheduler.close();
console.log(`=== ran ${ran}`);
