// Scale: punctuality of a large minute and event-loop stalls at 100 000 jobs.
//
// - `procs`: 4 worker processes in timer mode on ONE libSQL file, 10 000 no-op `* * * * *`
//   jobs, over `--minutes` minute slots (default 2); in the same run, croner 11 in one
//   process (no coordination) as the floor. Prints start lateness p50/p99/max and CPU
//   per minute (edgecron: the sum of the 4 workers) and the ratios the targets are
//   stated in. `--prof` writes a `--cpu-prof` profile of worker n1 to $TMPDIR/edgecron-profiles;
//   `--stats` prints each worker's driver CPU per kind of statement batch (bench/_driver_stats.ts);
//   `--schedule="0 0 1 1 *" --no-croner` gives the jobs another schedule: the idle cost per minute;
//   `--claim-ahead=0,auto,2s` runs edgecron once per value of `claimAhead` (0: claim when due;
//   auto, the default: the option left out), and
//   `--nodes=4,1` once per number of workers (every pair of the two lists). `npm run bench`
//   runs 4 workers claiming when due and with the default (`"auto"`: 2 s ahead for a slot of
//   1 000 jobs or more), then 1 worker with the default: the
//   engine's own cost per slot with no spread, beside the spread's. Each worker also prints its CPU per minute by phase of the minute
//   (claim, starts, help, the rest). The workers run bundled by esbuild, as plain JavaScript
//   (`--tsx`: through tsx, whose transform names every closure). With croner, the store
//   floor is printed too: the store calls alone that a row per slot needs (`storeFloor`).
// - `single`: one node, 10 000 due jobs on a libSQL file, default concurrency: time from
//   tick() until the last claim is made (target: under 1 s), store calls of the tick.
// - `stall`: 100 000 jobs (memory store and libSQL file): per HTTP read (`GET /metrics`
//   twice, the first and the last page of `GET /jobs`, the dashboard overview, `GET /jobs/:name`)
//   its total time and the longest event-loop block while it ran; a whole minute tick
//   (concurrency 20 000: 5 rounds), and timer re-arms (`nextWake` over every job, then the wake cache's heap).
//
// Run one part: `npx tsx bench/scale.ts procs|single|stall [--minutes=N] [--nodes=4,1] [--prof] [--stats] [--no-croner]
// [--claim-ahead=0,auto,2s]` (one edgecron run per pair of values; claim-ahead 0 claims when due);
// `npm run bench` runs all three (`npm run bench -- --only=procs` for one).
import { spawn } from "node:child_process";
import { build } from "esbuild";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createScheduler } from "../src/engine/mod.ts";
import { createMetrics, edgecronRouter } from "../src/http/mod.ts";
import { createMemoryStore } from "../src/store/memory/mod.ts";
import { libsqlStore } from "../src/store/libsql/mod.ts";
import type { Store } from "../src/store/types.ts";
import type { Scheduler } from "../src/engine/types.ts";
import { createWakeCache } from "../src/engine/tick/wake.ts";
import { nextWake } from "../src/engine/tick/plan.ts";
import { cron } from "../src/core/mod.ts";
import type { DriverStats } from "./_driver_stats.ts";

const cronSchedule = (i: number) => cron(`${i % 60} * * * * *`);

const ROOT = new URL("..", import.meta.url).pathname;
const MIN = 60_000;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const fmt = (ms: number): string => `${ms < 10 ? ms.toFixed(2) : ms.toFixed(0)} ms`;

// Extra Node/V8 flags for every worker, croner's too (`BENCH_NODE_FLAGS="--trace-gc"`): flags
// such as `--no-memory-reducer` are refused in NODE_OPTIONS.
const NODE_FLAGS = (process.env["BENCH_NODE_FLAGS"] ?? "").split(" ").filter((f) => f !== "");
// `BENCH_DUMP=<dir>`: each worker's standard output (a flag's trace, such as `--trace-gc`) is
// written to <dir>/<worker>.log.
const DUMP = process.env["BENCH_DUMP"];

function run(args: string[], label: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("close", (code) => {
      if (DUMP !== undefined) writeFileSync(join(DUMP, `${label.replace(/[^a-z0-9]/gi, "_")}.log`), out);
      // The report is the last line that is a JSON object: a flag's trace (`--trace-gc`) may
      // print after it, during the worker's exit.
      const line = out.trim().split("\n").findLast((l) => l.startsWith("{")) ?? "";
      if (code !== 0 || !line.startsWith("{")) {
        reject(new Error(`${label} exited ${code}: ${out.slice(-500)}${err.slice(-2000)}`));
      } else {
        // The retention warning at registration is expected (10 000 minutely jobs); anything else is shown.
        const lines = err.trim().split("\n").filter((l) => l !== "" && !l.includes("run history is expected"));
        if (lines.length > 0) console.log(`  [${label} stderr] ${lines.slice(0, 5).join(" | ").slice(0, 800)}`);
        resolve(JSON.parse(line));
      }
    });
  });
}

function summary(lateness: number[]): string {
  const s = [...lateness].sort((a, b) => a - b);
  return `p50 ${pct(s, 0.5)} / p99 ${pct(s, 0.99)} / max ${s.at(-1)} ms`;
}

/**
 * The CPU per minute of the store calls alone that a minute of `jobs` job-slots needs with
 * a row per slot (DESIGN: a claim is an insert keyed by (job, slot), and every slot gets an
 * outcome row), split over `shares` nodes as the engine splits it: each share's snapshot
 * (in pages), one claim batch, and its outcomes in batches. One process, no engine, no
 * other writer (no lock waits): a lower bound for edgecron's CPU on this workload. The
 * median of 5 minutes after a first one (the history grows as in a real run).
 */
export async function storeFloor(file: string, jobs: number, shares: number): Promise<number> {
  const store = libsqlStore({ url: pathToFileURL(file).href });
  await store.init();
  const names = Array.from({ length: jobs }, (_, i) => `job-${String(i).padStart(6, "0")}`);
  const parts = Array.from({ length: shares }, (_, k) => names.filter((_, i) => i % shares === k));
  const t0 = Math.floor(Date.now() / MIN) * MIN;
  await store.snapshot(names, t0);
  const cpu = (): number => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };
  const minutes: number[] = [];
  try {
    for (let m = 1; m <= 6; m++) {
      const slot = t0 + m * MIN;
      const c0 = cpu();
      for (const [k, share] of parts.entries()) {
        const node = `n${k}`;
        for (let i = 0; i < share.length; i += 1_000) await store.snapshot(share.slice(i, i + 1_000), slot);
        const won = await store.claim(share.map((job) => ({
          job,
          slot,
          kind: "scheduled" as const,
          status: "running" as const,
          overlap: "skip" as const,
          node,
          batch: `${node}-${m}`,
          now: slot,
          leaseUntil: slot + MIN,
        })));
        if (won.some((r) => r.outcome !== "won")) throw new Error("store floor: a claim was not won");
        for (let i = 0; i < share.length; i += 2_000) {
          await store.updateMany(
            share.slice(i, i + 2_000).map((job) => ({
              key: { job, slot, attempt: 1, node },
              patch: { status: "ok" as const, startedAt: slot, finishedAt: slot + 1, leaseUntil: null, error: null },
            })),
          );
        }
      }
      if (m > 1) minutes.push(cpu() - c0);
    }
  } finally {
    await store.close();
  }
  return minutes.sort((a, b) => a - b)[Math.floor(minutes.length / 2)]!;
}

/** Croner alone, then edgecron processes on one libSQL file (`runs`), each over `minutes` minute slots of `jobs` jobs. */
export async function benchProcesses(
  opts: {
    jobs?: number;
    minutes?: number;
    /** Workers of each edgecron run (default 4) when `runs` is not given. */
    nodes?: number;
    prof?: boolean;
    stats?: boolean;
    /** Run the workers through tsx instead of as bundled JavaScript. */
    tsx?: boolean;
    croner?: boolean;
    schedule?: string;
    /**
     * The workers' `claimAhead` option, one edgecron run per entry after the one croner
     * run (undefined: claim when due). Default `[undefined]`.
     */
    claimAheads?: (string | undefined)[];
    /** The edgecron runs, in order: workers and `claimAhead` of each. Default: `nodes` with each of `claimAheads`. */
    runs?: { nodes: number; claimAhead?: string | undefined }[];
  } = {},
): Promise<void> {
  const jobs = opts.jobs ?? 10_000;
  const minutes = opts.minutes ?? 2;
  const runs = opts.runs ??
    (opts.claimAheads ?? [undefined]).map((claimAhead) => ({ nodes: opts.nodes ?? 4, claimAhead }));
  const dir = mkdtempSync(join(tmpdir(), "edgecron-bench-procs-"));
  // The workers run as plain JavaScript bundled by esbuild (the engine as users run it: the
  // package ships compiled JS), not through tsx, whose transform names every closure made
  // (`__name`, a defineProperty per run and per promise callback). `--tsx`: through tsx.
  const worker = async (name: string): Promise<string[]> => {
    if (opts.tsx === true) return ["--import", "tsx", join(ROOT, `bench/${name}.ts`)];
    const outfile = join(ROOT, "node_modules/.cache/edgecron-bench", `${name}.mjs`);
    await build({
      entryPoints: [join(ROOT, `bench/${name}.ts`)],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "es2022",
      packages: "external",
      logLevel: "warning",
    });
    return [outfile];
  };
  const cronerWorker = await worker("_croner_worker");
  const scaleWorker = await worker("_scale_worker");
  try {
    console.log(
      `\npunctuality: ${
        jobs.toLocaleString("en-US")
      } no-op * * * * * jobs, ${minutes} minute slot(s); lateness = handler start - slot`,
    );
    // croner first: its slots start at the next minute boundary at least 5 s away.
    const cronFirst = Math.ceil((Date.now() + 5_000) / MIN) * MIN;
    // `--no-croner` (while iterating): edgecron alone, no ratios.
    const croner = opts.croner === false ? { lateness: [1], cpuMs: 1, perMinute: [] } : await run([
      ...cronerWorker,
      String(jobs),
      String(cronFirst),
      String(minutes),
    ], "croner");
    const cl = croner["lateness"] as number[];
    const cCpu = (croner["cpuMs"] as number) / minutes;
    const cLater = laterMinutes([croner]);
    if (opts.croner !== false) {
      console.log(
        `croner 11, 1 process       | ${summary(cl)} | CPU ${(cCpu / 1000).toFixed(2)} s/min${
          cLater === undefined ? "" : ` (${(cLater / 1000).toFixed(2)} after the first minute)`
        } | ${cl.length}/${jobs * minutes} ran`,
      );
    }
    if (opts.croner !== false) {
      const floor = await storeFloor(join(dir, "floor.db"), jobs, Math.max(...runs.map((r) => r.nodes)));
      console.log(
        `store floor, 1 process     | the store calls alone, no engine: ${(floor / 1000).toFixed(2)} s/min = ${
          (floor / cCpu).toFixed(2)
        }x croner's CPU per job-slot (see storeFloor)`,
      );
    }
    for (const [i, { nodes, claimAhead }] of runs.entries()) {
      await edgecronRun(join(dir, `shared-${i}.db`), nodes, claimAhead, { cl, cCpu, cLater });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  /** One edgecron run of `count` workers on a fresh database, printed beside croner's `cl`/`cCpu`. */
  async function edgecronRun(
    db: string,
    count: number,
    claimAhead: string | undefined,
    { cl, cCpu, cLater }: { cl: number[]; cCpu: number; cLater: number | undefined },
  ): Promise<void> {
    // edgecron: 20 s for 4 processes to boot and register 10 000 jobs.
    const first = Math.ceil((Date.now() + 20_000) / MIN) * MIN;
    const profDir = join(tmpdir(), "edgecron-profiles");
    if (opts.prof === true) mkdirSync(profDir, { recursive: true });
    const nodes = Array.from({ length: count }, (_, i) => `n${i + 1}`);
    const results = await Promise.all(nodes.map((node) => {
      const prof = opts.prof === true && node === "n1" ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [];
      return run([
        ...prof,
        ...scaleWorker,
        db,
        node,
        String(jobs),
        String(first),
        String(minutes),
        opts.stats === true ? "stats" : "-",
        opts.schedule ?? "-",
        ...(claimAhead === undefined ? [] : [claimAhead]),
      ], node);
    }));
    const el = results.flatMap((r) => r["lateness"] as number[]);
    const eCpu = results.reduce((sum, r) => sum + (r["cpuMs"] as number), 0) / minutes;
    const perNode = results.map((r) =>
      `${r["node"]} ${((r["lateness"] as number[]).length / minutes / jobs * 100).toFixed(0)}%`
    ).join(", ");
    const expected = jobs * minutes;
    const eSorted = [...el].sort((a, b) => a - b);
    const cSorted = [...cl].sort((a, b) => a - b);
    const variant = `, claimAhead ${claimAhead ?? "auto"}`;
    console.log(
      `edgecron, ${nodes.length} proc${nodes.length === 1 ? "" : "s"}, libSQL${variant}  | ${summary(el)} | CPU ${
        (eCpu / 1000).toFixed(2)
      } s/min (${nodes.length} workers) | ${el.length}/${expected} ran; share ${perNode}`,
    );
    const claims = `claims won/lost ${results.map((r) => `${r["claimed"]}/${r["lost"]}`).join(" ")}`;
    // The minutes after the first, every slot of them run: the first pays each process's compiler.
    const eLater = laterMinutes(results);
    if (eLater !== undefined) {
      console.log(
        `  after the first minute: ${(eLater / 1000).toFixed(2)} s/min (${nodes.length} workers)${
          cLater === undefined || opts.croner === false
            ? ""
            : `, ${(eLater / cLater).toFixed(2)}x croner's ${(cLater / 1000).toFixed(2)} s/min`
        }`,
      );
    }
    if (opts.croner === false) console.log(`(no croner run, no ratios); ${claims}`);
    else {
      console.log(
        `ratios edgecron/croner: p99 ${(pct(eSorted, 0.99) / pct(cSorted, 0.99)).toFixed(2)}x (target <= 1.5x), ` +
          `CPU per job-slot ${
            ((eCpu / el.length) / (cCpu / Math.max(1, cl.length))).toFixed(2)
          }x (target <= 2x); ${claims}`,
      );
    }
    if (opts.stats === true) {
      for (const r of results) {
        console.log(`  ${r["node"]} first store calls (ms after the slot): ${JSON.stringify(r["calls"])}`);
      }
    }
    // When each node claimed and started its part of each minute, ms after the slot.
    for (const r of results) {
      const phases = (r["phases"] ?? []) as { firstClaim: number; lastClaim: number; lastStart: number }[];
      console.log(
        `  ${r["node"]} claims at +${phases.map((p) => `${p.firstClaim}..${p.lastClaim}`).join(", +")} ms; ` +
          `last start +${phases.map((p) => p.lastStart).join(", +")} ms; CPU per minute ${
            ((r["perMinute"] ?? []) as number[]).join(", ")
          } ms`,
      );
    }
    // Where each node's CPU went, ms per minute by time from the slot (the CPU clock read at each phase boundary):
    // before -2.5 s, claim -2.5..-0.5 s (claimAhead's claims), starts -0.5..+1 s,
    // after +1..+1.8 s, help +1.8..+3.5 s (other nodes' shares), rest.
    // The worker names the phases, in order (`PHASES` in _scale_worker.ts).
    const byPhase = results.map((r) => (r["byPhase"] ?? {}) as Record<string, number>);
    console.log(`  CPU ms per minute by phase (${Object.keys(byPhase[0] ?? {}).join(" | ")}):`);
    results.forEach((r, i) => console.log(`    ${r["node"]} ${Object.values(byPhase[i]!).join(" | ")}`));
    const threads = results.map((r) => (r["threads"] ?? {}) as Record<string, number>);
    if (Object.keys(threads[0] ?? {}).length > 0) {
      console.log("  CPU ms per minute by thread (Linux /proc; 10 ms ticks):");
      results.forEach((r, i) =>
        console.log(
          `    ${r["node"]} ${
            Object.entries(threads[i]!).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(", ")
          }`,
        )
      );
    }
    if (opts.prof === true) console.log(`profile of n1 in ${profDir}`);
    if (opts.stats === true) {
      for (const r of results) {
        const s = r["stats"] as DriverStats;
        const kinds = Object.entries(s.kinds).sort((a, b) => b[1].cpuMs - a[1].cpuMs)
          .map(([k, v]) =>
            `${k} ${v.calls}x ${(v.cpuMs / minutes).toFixed(0)} ms${v.busy > 0 ? ` (${v.busy} busy)` : ""}`
          );
        console.log(`  ${r["node"]} driver CPU per minute: ${kinds.join(", ")}; clients opened ${s.clients}`);
      }
    }
  }
}

/**
 * The CPU ms per minute of the measured minutes after the first, summed over `workers`
 * (each reports `perMinute`); undefined for a one-minute run.
 */
function laterMinutes(workers: Record<string, unknown>[]): number | undefined {
  const perWorker = workers.map((w) => ((w["perMinute"] ?? []) as number[]).slice(1));
  const minutes = perWorker[0]?.length ?? 0;
  if (minutes === 0) return undefined;
  return perWorker.reduce((sum, m) => sum + m.reduce((a, b) => a + b, 0), 0) / minutes;
}

/** Counts the calls of each store method. */
function counting(store: Store): { store: Store; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const wrapped = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function" || typeof key !== "string") return value;
      return (...args: unknown[]) => {
        calls.set(key, (calls.get(key) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: wrapped, calls };
}

/** One node, `jobs` due jobs on `store`, default concurrency: ms until the last claim, and the store calls of the tick. */
async function singleTick(jobs: number, raw: Store): Promise<{ claims: number; settled: number; calls: string }> {
  const { store, calls } = counting(raw);
  // The due minute is the current one: a tick in rounds that re-reads (the old code) plans at the clock's now.
  const first = Math.floor(Date.now() / MIN) * MIN - MIN;
  let lastClaim = 0;
  const scheduler = createScheduler({
    store,
    logger: silent,
    onEvent: (e) => void (e.type === "claimed" && (lastClaim = performance.now())),
  });
  for (let i = 0; i < jobs; i++) scheduler.job(`job-${i}`, { schedule: "* * * * *", run: () => {} });
  await scheduler.tick(first);
  calls.clear();
  const start = performance.now();
  const report = await scheduler.tick(first + MIN);
  const settled = performance.now() - start;
  const ok = Object.values(report.jobs).filter((r) => r.outcomes[first + MIN] === "ok").length;
  await scheduler.close();
  const shown = ["snapshot", "claim", "updateMany", "update"].map((k) => `${k} ${calls.get(k) ?? 0}`).join(", ");
  return { claims: lastClaim - start, settled, calls: `${shown}; ${ok} of ${jobs} ran` };
}

/** The single-node 10 000-job tick on a libSQL file. */
export async function benchSingle(jobs = 10_000): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "edgecron-bench-single-"));
  try {
    console.log(
      `\none node, ${
        jobs.toLocaleString("en-US")
      } due jobs, default concurrency (200): tick() until the last claim (target < 1 s on libSQL)`,
    );
    for (
      const [label, make] of [["memory", () => createMemoryStore()], [
        "libSQL file",
        () => libsqlStore({ url: `file:${join(dir, "single.db")}` }),
      ]] as const
    ) {
      const r = await singleTick(jobs, make());
      console.log(
        `${label.padEnd(11)} | claims made ${fmt(r.claims)} | settled ${fmt(r.settled)} | store calls: ${r.calls}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The longest gap between timer turns while `work` runs: how long the event loop was blocked. */
async function longestBlock<T>(work: () => Promise<T>): Promise<{ blockMs: number; totalMs: number; value: T }> {
  let last = performance.now();
  let worst = 0;
  let on = true;
  const spin = (): void => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
    if (on) setTimeout(spin, 0);
  };
  setTimeout(spin, 0);
  const start = performance.now();
  const value = await work();
  const totalMs = performance.now() - start;
  on = false;
  const now = performance.now();
  worst = Math.max(worst, now - last);
  return { blockMs: worst, totalMs, value };
}

async function stallOn(label: string, jobs: number, store: Store): Promise<void> {
  const metrics = createMetrics();
  // concurrency 20 000: a minute of 100 000 jobs in 5 rounds (at the default 200 the old per-round snapshot took hours).
  const scheduler: Scheduler = createScheduler({
    store,
    logger: silent,
    onEvent: metrics.onEvent,
    concurrency: 20_000,
  });
  for (let i = 0; i < jobs; i++) {
    scheduler.job(`job-${String(i).padStart(6, "0")}`, { schedule: "* * * * *", run: () => {} });
  }
  const app = edgecronRouter(scheduler, { public: true, metrics, cacheTtl: 0 });
  const first = Math.floor(Date.now() / MIN) * MIN - 2 * MIN;
  await scheduler.tick(first);
  const tick = await longestBlock(() => scheduler.tick(first + MIN));
  const ran = Object.values(tick.value.jobs).filter((r) => r.outcomes[first + MIN] === "ok").length;
  const rows: string[] = [`tick ${fmt(tick.totalMs)} (${ran} ran; loop blocked at most ${fmt(tick.blockMs)})`];
  // Each HTTP read: its total time and the longest event-loop block while it ran. The body
  // is read chunk by chunk, as a socket would, so the client's own decoding is not counted.
  const last = `job-${String(jobs - 100).padStart(6, "0")}`;
  const middle = `job-${String(Math.floor(jobs / 2)).padStart(6, "0")}`;
  const reads: string[] = [];
  // /metrics twice: the first scrape also sorts the names and renders every runs series
  // (cached per job until its next outcome); a scraper's later scrapes are the second.
  const paths = ["/metrics", "/metrics", "/jobs", `/jobs?limit=100&after=${last}`, "/", `/jobs/${middle}`];
  for (const [i, path] of paths.entries()) {
    const r = await longestBlock(async () => {
      const res = await app.request(path);
      if (res.status !== 200) throw new Error(`bench: ${path} answered ${res.status}`);
      const reader = res.body!.getReader();
      let bytes = 0;
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) bytes += chunk.value.length;
      return bytes;
    });
    reads.push(
      `  ${label.padEnd(11)} | GET ${(i === 1 ? `${path} (again)` : path).padEnd(32)} | total ${
        fmt(r.totalMs).padStart(8)
      } | longest block ${fmt(r.blockMs).padStart(8)} | ${(r.value / 1024).toFixed(0)} KiB`,
    );
  }
  // A timer re-arm: nextWake over every job (before), the wake cache's first and a later re-arm (after).
  const schedules = Array.from({ length: jobs }, (_, i) => cronSchedule(i));
  const now = Date.now();
  let t = performance.now();
  nextWake(schedules, now);
  const plain = performance.now() - t;
  const cache = createWakeCache();
  t = performance.now();
  cache.next(now, 1, () => schedules);
  const firstMs = performance.now() - t;
  t = performance.now();
  cache.next(now + 1_000, 1, () => schedules);
  const wake = `; wake cache: first ${fmt(firstMs)}, re-arm ${fmt(performance.now() - t)}`;
  rows.push(`nextWake ${fmt(plain)}${wake}`);
  await scheduler.close();
  console.log(`${label.padEnd(11)} | ${rows.join(" | ")}`);
  for (const line of reads) console.log(line);
}

/** Event-loop stalls at `jobs` jobs, memory and libSQL. */
export async function benchStall(jobs = 100_000): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "edgecron-bench-stall-"));
  try {
    console.log(
      `\n${
        jobs.toLocaleString("en-US")
      } jobs: time and longest event-loop block (target <= 50 ms for HTTP reads; /metrics < 1 s)`,
    );
    await stallOn("memory", jobs, createMemoryStore());
    await stallOn("libSQL file", jobs, libsqlStore({ url: `file:${join(dir, "stall.db")}` }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const flag = (name: string): string | undefined => args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
  const parts = args.filter((a) => !a.startsWith("--"));
  const jobs = flag("jobs") === undefined ? undefined : Number(flag("jobs"));
  const workers = (text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1 || n > 16) {
      throw new Error(`bench/scale.ts: --nodes takes worker counts from 1 to 16, got ${JSON.stringify(text)}`);
    }
    return n;
  };
  for (const part of parts.length === 0 ? ["single", "stall", "procs"] : parts) {
    if (part === "procs") {
      await benchProcesses({
        ...(jobs === undefined ? {} : { jobs }),
        minutes: Number(flag("minutes") ?? 2),
        prof: args.includes("--prof"),
        stats: args.includes("--stats"),
        tsx: args.includes("--tsx"),
        croner: !args.includes("--no-croner"),
        ...(flag("schedule") === undefined ? {} : { schedule: flag("schedule")! }),
        // `--nodes=4,1 --claim-ahead=0,auto,2s`: one edgecron run per pair (claim-ahead 0: claim
        // when due; auto, the default: the option left out).
        runs: (flag("nodes") ?? "4").split(",").map(workers).flatMap((nodes) =>
          (flag("claim-ahead") ?? "auto").split(",").map((v) => ({
            nodes,
            claimAhead: v === "auto" ? undefined : v === "0" ? "0s" : v,
          }))
        ),
      });
    } else if (part === "single") await benchSingle(jobs);
    else if (part === "stall") await benchStall(jobs);
    else throw new Error(`bench/scale.ts: unknown part ${JSON.stringify(part)} (procs, single, stall)`);
  }
}
