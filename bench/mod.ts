// `npm run bench`: every benchmark in one run, our code beside the peers, with ratios.
// `npm run bench -- --only=procs,stall` runs the named parts only (core, except, tick, store, kv,
// procs, single, stall, postgres); each part is also runnable alone (`npx tsx bench/core.ts`,
// `npx tsx bench/scale.ts procs`, ...). `procs` takes about fourteen minutes.
import { benchCore } from "./core.ts";
import { benchExcept } from "./core_except.ts";
import { benchPostgres } from "./postgres.ts";
import { benchKvStore, benchStore } from "./store.ts";
import { benchTick } from "./tick.ts";
import { benchProcesses, benchSingle, benchStall } from "./scale.ts";

const parts: Record<string, () => Promise<void>> = {
  core: benchCore,
  except: benchExcept,
  tick: benchTick,
  store: benchStore,
  kv: benchKvStore,
  single: () => benchSingle(),
  stall: () => benchStall(),
  // Claiming when due (`claimAhead: 0`), then the default (`"auto"`: the 10 000-job minute
  // 2 s ahead), beside one croner run; then 1 worker: the engine's own cost per slot, no spread.
  procs: () =>
    benchProcesses({
      runs: [{ nodes: 4, claimAhead: "0s" }, { nodes: 4 }, { nodes: 1 }],
    }),
  postgres: () =>
    benchPostgres({ minutes: Number(process.argv.find((a) => a.startsWith("--minutes="))?.slice(10) ?? 2) }),
};
const only = process.argv.slice(2).find((a) => a.startsWith("--only="))?.slice("--only=".length).split(",");
for (const name of only ?? []) {
  if (!(name in parts)) {
    throw new Error(`bench: unknown part ${JSON.stringify(name)} (${Object.keys(parts).join(", ")})`);
  }
}

console.log(
  `edgecron benchmarks: ${process.version} (${process.platform}/${process.arch}), ${new Date().toISOString()}`,
);
// `--postgres` is `--only=postgres` (claims, group commit, lateness beside pg-boss; `--minutes=N`).
const wanted = process.argv.includes("--postgres") ? ["postgres"] : only;
for (const [name, run] of Object.entries(parts)) if (wanted === undefined || wanted.includes(name)) await run();
// The Postgres test server stops on exit; pg-boss may leave timers behind.
process.exit(0);
