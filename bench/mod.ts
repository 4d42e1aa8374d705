// `npm run bench`: every benchmark in one run, our code beside the peers, with ratios.
// Each part is also runnable alone (`npx tsx bench/core.ts`, ...).
import { benchCore } from "./core.ts";
import { benchExcept } from "./core_except.ts";
import { benchPostgres } from "./postgres.ts";
import { benchKvStore, benchStore } from "./store.ts";
import { benchTick } from "./tick.ts";

console.log(`edgecron benchmarks: ${process.version} (${process.platform}/${process.arch}), ${new Date().toISOString()}`);
const minutes = Number(process.argv.find((a) => a.startsWith("--minutes="))?.slice(10) ?? 2);
// `npm run bench -- --postgres`: only the Postgres part (claims, group commit, beside pg-boss).
if (!process.argv.includes("--postgres")) {
  await benchCore();
  await benchExcept();
  await benchTick();
  await benchStore();
  await benchKvStore();
}
await benchPostgres({ minutes });
// The test server stops on exit; pg-boss may leave timers behind.
process.exit(0);
