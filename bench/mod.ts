// `npm run bench`: every benchmark in one run, our code beside the peers, with ratios.
// Each part is also runnable alone (`npx tsx bench/core.ts`, ...).
import { benchCore } from "./core.ts";
import { benchExcept } from "./core_except.ts";
import { benchKvStore, benchStore } from "./store.ts";
import { benchTick } from "./tick.ts";

console.log(`edgecron benchmarks: ${process.version} (${process.platform}/${process.arch}), ${new Date().toISOString()}`);
await benchCore();
await benchExcept();
await benchTick();
await benchStore();
await benchKvStore();
