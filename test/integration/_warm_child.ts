// Child of warm_test.ts, run by Node with --expose-gc --trace-deopt: minutes of 2 500 jobs
// on the memory store with a manual clock, six full collections after each (as the memory
// reducer does between real minutes). The test counts V8's deopt lines (printed through C's
// buffered stdout, so their order against console.log's lines is not kept).
import { createScheduler } from "../../src/engine/mod.ts";
import { memoryStore } from "../../src/store/memory/mod.ts";
import { createManualClock } from "../../src/engine/clock.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("_warm_child.ts: run it with --expose-gc");
const clock = createManualClock(Date.UTC(2030, 0, 1, 0, 0, 30));
const scheduler = createScheduler({ store: memoryStore(), clock, node: "n1", logger: { warn() {}, error() {} } });
let ran = 0;
for (let i = 0; i < 2_500; i++) {
  scheduler.job(`job-${String(i).padStart(4, "0")}`, { schedule: "* * * * *", run: () => void ran++ });
}
await scheduler.ready();
for (let m = 1; m <= 8; m++) {
  await clock.set(Date.UTC(2030, 0, 1, 0, m, 0));
  await scheduler.tick();
  for (let k = 0; k < 6; k++) gc();
}
await scheduler.close();
console.log(`=== ran ${ran}`);
