#!/usr/bin/env node
// The test loops (CONTRIBUTING.md says which to use when):
//   node scripts/test.mjs check       npm run check: tsc over every folder (the Bun and Cloudflare
//                                     adapters and examples with their own tsconfig), deno check of
//                                     the Deno adapter, portability, exports sync, and deno fmt/lint
//                                     once deno.json configures them
//   node scripts/test.mjs unit        npm run test:unit: the unit files on Node, in one process per
//                                     core (`-- --watch` re-runs the files you change)
//   node scripts/test.mjs runtimes    npm run test:runtimes: the unit files on Deno and on Bun
//   node scripts/test.mjs stores      npm run test:stores: D1 in workerd, Deno KV, Postgres and
//                                     multi-process files, on Node, Deno and Bun
//   node scripts/test.mjs e2e         npm run test:e2e: test/integration, several files at once
//   node scripts/test.mjs             npm test: all of the above; the last line is `N passed, N failed`
// Which tier a file is in follows from its path (scripts/tiers.mjs). Paths after the tier
// name narrow it: `npm run test:unit -- test/http`. EDGECRON_TEST_RUNTIMES=node,deno limits
// the runtimes of the runtimes and stores tiers; EDGECRON_TEST_INTEGRATION=0 skips e2e.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { availableParallelism, setPriority } from "node:os";
import { dirname, join } from "node:path";
import { portabilityViolations } from "./portability.mjs";
import { E2E_BUILDS, E2E_LONGEST, testFiles } from "./tiers.mjs";
import { BUILD_ORDER } from "./build.mjs";

const root = new URL("..", import.meta.url).pathname;
process.chdir(root);
const bin = (name) => join(root, "node_modules", ".bin", name);
const TIERS = ["check", "unit", "runtimes", "stores", "e2e"];

const args = process.argv.slice(2);
const watch = args.includes("--watch");
const only = args.filter((a) => TIERS.includes(a));
const prefixes = args.filter((a) => !a.startsWith("--") && !TIERS.includes(a)).map((p) => p.replace(/^\.\//, ""));
const pick = (files) => (prefixes.length === 0 ? files : files.filter((f) => prefixes.some((p) => f.startsWith(p))));
const files = testFiles(root);
const unit = pick(files.unit);
const stores = pick(files.stores);
const e2e = pick(files.e2e);
const runtimes = (process.env.EDGECRON_TEST_RUNTIMES ?? "node,deno,bun").split(",");
const cores = Math.max(2, availableParallelism());

const totals = { passed: 0, failed: 0 };
const summary = [];
const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Every child still running, so that a failed gate or Ctrl-C stops the whole tree. */
const running = new Set();

/**
 * Runs a command to its end, capturing stdout and stderr together. `background` lowers its
 * CPU priority (and its children's): the e2e files wait on real time (minutes, leases,
 * browsers), so the CPU-bound tiers beside them take only the CPU those leave idle.
 */
function exec(cmd, argv, env = {}, background = false) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group: stop() ends its children too (workerd, deno, chromium)
      // Miniflare would otherwise try to download Cloudflare's request.cf data (network).
      env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env, NO_COLOR: "1", ...env },
    });
    if (background && child.pid !== undefined) {
      try {
        setPriority(child.pid, BACKGROUND_NICE);
      } catch {
        // Lowering a priority is always allowed on Linux and macOS; if a platform refuses, run as is.
      }
    }
    running.add(child);
    // A step that hangs fails with a line that says so instead of holding the run (and CI) open.
    const timer = setTimeout(() => {
      out += `\nscripts/test.mjs: stopped after ${STEP_TIMEOUT_MS / 60_000} minutes without finishing (a hung test?)\n`;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, STEP_TIMEOUT_MS);
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", (error) => resolve({ status: null, out: `${out}${error.message}\n` }));
    child.on("close", (status) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ status, out });
    });
  });
}

/** Ends every running step with its process group. */
function stopAll() {
  for (const child of running) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopAll();
    process.exit(130);
  });
}

/** How long one step (a process of a tier) may run: `npm test` takes about 4 minutes in all. */
const STEP_TIMEOUT_MS = 10 * 60_000;

/** The niceness of the CPU-bound tiers while e2e files run (0 normal, 19 lowest). */
const BACKGROUND_NICE = 10;

/**
 * Runs one step, prints its output in one piece when it ends (steps run side by side) and
 * records its counts and time. Resolves to true when it passed.
 */
async function step(label, cmd, argv, parse, env, { background = false, quiet = false } = {}) {
  const t0 = Date.now();
  const { status, out } = await exec(cmd, argv, env, background);
  const ms = Date.now() - t0;
  const shown = argv.length > 12 ? [...argv.slice(0, 10), `… (${argv.length - 10} more)`] : argv;
  process.stdout.write(`\n=== ${label}: ${[cmd.replace(root, ""), ...shown].join(" ")}\n${out}`);
  const counts = parse ? parse(out.replace(/\x1b\[[0-9;]*m/g, "")) : undefined;
  const ok = status === 0 && (!parse || (counts !== undefined && counts.failed === 0));
  if (counts) {
    totals.passed += counts.passed;
    totals.failed += counts.failed;
  } else if (!ok && parse) totals.failed += 1; // a runner that crashed before counting
  const result = counts ? `${counts.passed} passed, ${counts.failed} failed` : ok ? "ok" : "FAILED";
  const line = `${label}: ${result}${ok || counts ? "" : ` (exit ${status})`} in ${seconds(ms)}`;
  if (!quiet || !ok) summary.push(line);
  console.log(`--- ${line}`);
  return ok;
}

/** Runs `tasks` (functions returning promises) at most `limit` at a time; resolves to their results. */
async function pool(limit, tasks) {
  const results = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** A tier: its steps, its wall time in the summary. */
async function tier(name, run) {
  const t0 = Date.now();
  const ok = await run();
  summary.push(`== ${name} tier ${ok ? "passed" : "FAILED"} in ${seconds(Date.now() - t0)}`);
  return ok;
}

function finish(ok) {
  stopAll();
  console.log("\n=== summary");
  for (const line of summary) console.log(line);
  console.log(`wall time ${seconds(Date.now() - started)}`);
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  process.exit(ok ? 0 : 1);
}

const num = (re, text) => {
  const m = re.exec(text);
  return m ? Number(m[1]) : undefined;
};
const nodeCounts = (out) => {
  const passed = num(/^# pass (\d+)$/m, out);
  const failed = num(/^# fail (\d+)$/m, out);
  return passed === undefined || failed === undefined
    ? undefined
    : { passed, failed: failed + (num(/^# cancelled (\d+)$/m, out) ?? 0) };
};
// Deno counts a describe() as one test whose it()s are steps; count leaves (a test or
// step with no steps under it) so the three runtimes report comparable numbers.
const denoCounts = (out) => {
  if (!/(?:ok|FAILED) \| \d+ passed(?: \(\d+ steps?\))? \| \d+ failed/.test(out)) return undefined;
  const rows = [...out.matchAll(/^( *)\S.* \.\.\. (ok|FAILED|ignored)\b/gm)].map((m) => ({
    depth: m[1].length,
    status: m[2],
  }));
  const counts = { passed: 0, failed: 0 };
  rows.forEach((row, i) => {
    const next = rows[i + 1];
    if (next && next.depth > row.depth) return;
    if (row.status === "ok") counts.passed++;
    else if (row.status === "FAILED") counts.failed++;
  });
  const m = /(?:ok|FAILED) \| \d+ passed(?: \(\d+ steps?\))? \| (\d+) failed/.exec(out);
  if (counts.failed === 0 && m && Number(m[1]) > 0) counts.failed = Number(m[1]);
  return counts;
};
const bunCounts = (out) => {
  const passed = num(/^\s*(\d+) pass$/m, out);
  const failed = num(/^\s*(\d+) fail$/m, out);
  return passed === undefined || failed === undefined ? undefined : { passed, failed };
};

// A test that hangs fails after 5 minutes, named, instead of stalling its process. The
// timeout applies to every test, suite and file (a unit shard is one file): the longest of
// those, an e2e file, takes about 90 s.
const nodeTest = ["--import", "tsx", "--test", "--test-timeout=300000"];
const denoTest = ["test", "-A", "--no-check", "--unstable-cron", "--unstable-kv"];
// Bun stops a test after 5 s unless it sets its own timeout; Node and Deno have no such
// default. 60 s, so a CPU-heavy test on a loaded machine fails on Bun only when it hangs.
const bunTest = (list) => ["test", "--timeout", "60000", ...list.map((f) => `./${f}`)];

/** deno.json's `fmt` / `lint` sections: the check runs `deno fmt --check` / `deno lint` once they exist. */
function denoConfigured(key) {
  const text = readFileSync(join(root, "deno.json"), "utf8");
  return new RegExp(`^\\s*"${key}"\\s*:`, "m").test(text);
}

async function check() {
  const bg = { background: true };
  const tsc = (project) => () => step(`typecheck ${project}`, bin("tsc"), ["-p", project], undefined, {}, bg);
  const tasks = [
    tsc("tsconfig.json"),
    tsc("adapters/bun/tsconfig.json"),
    tsc("examples/cloudflare-worker/tsconfig.json"),
    // Deno ships its own types, so the Deno adapter, example and Deno-only fixtures are
    // checked by deno itself (tsc has no Deno types).
    () =>
      step(
        "deno check",
        bin("deno"),
        [
          "check",
          "--unstable-cron",
          "--unstable-kv",
          "adapters/deno/",
          "examples/deno-deploy/",
          ...denoOnlyFixtures(),
        ],
        undefined,
        {},
        bg,
      ),
    () => step("exports sync (deno.json ↔ package.json)", process.execPath, ["scripts/exports.mjs"], undefined, {}, bg),
    async () => {
      const violations = portabilityViolations("src");
      const line = violations.length === 0
        ? "portability: ok (src/ uses ECMAScript and Web-standard globals only)"
        : `portability: FAILED\n${violations.join("\n")}`;
      console.log(`\n=== ${line}`);
      summary.push(violations.length === 0 ? "portability: ok" : "portability: FAILED");
      return violations.length === 0;
    },
  ];
  if (denoConfigured("fmt")) {
    tasks.push(() => step("deno fmt --check", bin("deno"), ["fmt", "--check"], undefined, {}, bg));
  }
  if (denoConfigured("lint")) tasks.push(() => step("deno lint", bin("deno"), ["lint"], undefined, {}, bg));
  return (await pool(cores, tasks)).every(Boolean);
}

/** Deno-only test fixtures (they name `Deno`, so tsconfig.json leaves them to deno check). */
function denoOnlyFixtures() {
  const dir = "test/integration/fixtures";
  return readdirSync(join(root, dir)).filter((f) => f.endsWith("_deno.ts")).sort().map((f) => `${dir}/${f}`);
}

/**
 * The unit files on Node in a few processes (files shared out by size, three per core, run
 * one per core so that a slow one does not leave a core idle), so tsx compiles the
 * sources once per process rather than once per file.
 */
async function unitNode() {
  if (unit.length === 0) return true;
  const shards = shardsOf(unit, 3 * cores);
  const results = await pool(
    cores,
    shards.map((shard, i) => () =>
      step(
        `unit (node, process ${i + 1}/${shards.length}, ${shard.files.length} files)`,
        process.execPath,
        [...nodeTest, "scripts/_shard.mjs"],
        nodeCounts,
        { EDGECRON_TEST_FILES: shard.files.sort().join("\n") },
        { background: true },
      )
    ),
  );
  return results.every(Boolean);
}

/** `list` shared out by file size into at most `n` shards of about equal size. */
function shardsOf(list, n) {
  const shards = Array.from({ length: Math.min(n, list.length) }, () => ({ size: 0, files: [] }));
  const bySize = list.map((f) => ({ f, size: statSync(join(root, f)).size })).sort((a, b) => b.size - a.size);
  for (const { f, size } of bySize) {
    const lightest = shards.reduce((a, b) => (b.size < a.size ? b : a));
    lightest.files.push(f);
    lightest.size += size;
  }
  return shards;
}

async function runtimesTier() {
  const steps = [];
  // Deno runs a file list in one thread: two processes use the second core once the
  // e2e and stores tiers stop needing it (one Deno process was the suite's longest step).
  if (runtimes.includes("deno")) {
    const shards = shardsOf(unit, 2);
    shards.forEach((shard, i) =>
      steps.push(
        step(
          `runtimes (deno, process ${i + 1}/${shards.length})`,
          bin("deno"),
          [...denoTest, ...shard.files.sort()],
          denoCounts,
          {},
          { background: true },
        ),
      )
    );
  }
  if (runtimes.includes("bun")) {
    steps.push(step("runtimes (bun)", bin("bun"), bunTest(unit), bunCounts, {}, { background: true }));
  }
  return (await Promise.all(steps)).every(Boolean);
}

async function storesTier() {
  if (stores.length === 0) return true;
  const steps = [];
  if (runtimes.includes("node")) {
    steps.push(
      // A store file takes seconds (25 s for them all, 100 s on a machine four times
      // loaded): 3 minutes, not 5, so a file a failure leaves open costs CI less.
      step(
        "stores (node)",
        process.execPath,
        [
          ...nodeTest.map((a) => a.startsWith("--test-timeout=") ? "--test-timeout=180000" : a),
          "--test-concurrency=2",
          ...stores,
        ],
        nodeCounts,
        {},
        {
          background: true,
        },
      ),
    );
  }
  if (runtimes.includes("deno")) {
    steps.push(step("stores (deno)", bin("deno"), [...denoTest, ...stores], denoCounts, {}, { background: true }));
  }
  if (runtimes.includes("bun")) {
    steps.push(step("stores (bun)", bin("bun"), bunTest(stores), bunCounts, {}, { background: true }));
  }
  return (await Promise.all(steps)).every(Boolean);
}

/**
 * e2e files at once: they mostly wait on real time (minutes, leases, processes). Each runs
 * in its own `node --test` process, longest first (E2E_LONGEST), so that a long file does
 * not start last and hold the tier open alone.
 */
const E2E_CONCURRENCY = 6;

/** Whether the e2e tier runs at all in this invocation. */
const e2eWanted = () =>
  (only.length === 0 || only.includes("e2e")) && e2e.length > 0 && process.env.EDGECRON_TEST_INTEGRATION !== "0";

/**
 * Every dist/ output once, before the e2e files that read it: they then skip their own
 * builds (EDGECRON_PREBUILT=1), so none rewrites dist/ while another runs from it. It starts
 * at once, beside the check and unit tiers (no unit file reads dist/) and the e2e files
 * that do not read dist/. The outputs are built one after the other (BUILD_ORDER: `lib`
 * first, it takes seconds; the bundles' minification takes the rest), so a file that reads
 * only `lib` (E2E_BUILDS) starts long before the last bundle is made. Resolves to a
 * promise per output, true once it is built.
 */
function startE2eBuild() {
  const built = {};
  let previous = Promise.resolve(e2eWanted());
  for (const name of BUILD_ORDER) {
    // An output is not built once one before it failed (nor when the tier does not run).
    built[name] = previous = previous.then((ok) =>
      ok && step(`e2e build (dist/, ${name})`, process.execPath, ["scripts/build.mjs", name])
    );
  }
  return built;
}

/**
 * Whether an e2e file reads dist/ (itself or through a `./_helper.ts` it imports): such a
 * file waits for the tier's build; the others start at once.
 */
function readsDist(file, seen = new Set()) {
  if (seen.has(file)) return false;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  if (/\bdist\/|EDGECRON_PREBUILT/.test(text)) return true;
  const helpers = [...text.matchAll(/from "\.\/(_[\w-]+\.ts)"/g)].map((m) => join(dirname(file), m[1]));
  return helpers.some((helper) => readsDist(helper, seen));
}

/** The dist/ outputs an e2e file waits for: none, those E2E_BUILDS names, or every one. */
function buildsOf(file) {
  if (!readsDist(file)) return [];
  return E2E_BUILDS[file] ?? BUILD_ORDER;
}

async function e2eTier(built) {
  if (!e2eWanted()) return true;
  const first = E2E_LONGEST.filter((f) => e2e.includes(f));
  const rest = e2e.filter((f) => !first.includes(f)).sort((a, b) => statSync(b).size - statSync(a).size);
  // Longest first; until what a file reads from dist/ is built, the next one that can start.
  const ok = {};
  for (const [name, promise] of Object.entries(built)) void promise.then((result) => (ok[name] = result));
  const queue = [...first, ...rest].map((file) => ({ file, needs: buildsOf(file) }));
  const ready = (entry) => entry.needs.every((name) => name in ok);
  const t0 = Date.now();
  const counts = { passed: 0, failed: 0 };
  const results = [];
  const run = async ({ file }) =>
    await step(
      `e2e ${file}`,
      process.execPath,
      [...nodeTest, file],
      (out) => {
        const c = nodeCounts(out);
        if (c) (counts.passed += c.passed), (counts.failed += c.failed);
        return c;
      },
      { EDGECRON_PREBUILT: "1" },
      { quiet: true },
    );
  const worker = async () => {
    while (queue.length > 0) {
      const i = queue.findIndex(ready);
      if (i === -1) {
        // Nothing can start until another output is built.
        // (`ok` is set first: its callbacks were registered before this race's.)
        await Promise.race(queue.flatMap((entry) => entry.needs.filter((n) => !(n in ok)).map((n) => built[n])));
        continue;
      }
      const [entry] = queue.splice(i, 1);
      const failed = entry.needs.filter((name) => !ok[name]);
      if (failed.length > 0) {
        console.log(`--- e2e ${entry.file}: not run, dist/ ${failed.join(", ")} not built (a build step failed)`);
        results.push(false);
        continue;
      }
      results.push(await run(entry));
    }
  };
  await Promise.all(Array.from({ length: Math.min(E2E_CONCURRENCY, queue.length) }, worker));
  const passed = results.every(Boolean);
  summary.push(
    `e2e (node, ${e2e.length} files, ${E2E_CONCURRENCY} at a time): ${counts.passed} passed, ${counts.failed} failed in ${
      seconds(Date.now() - t0)
    }`,
  );
  return passed;
}

if (watch) {
  // Watch mode isolates files again, so a change re-runs only the files that import it.
  const child = spawn(process.execPath, [...nodeTest, "--watch", ...unit], { stdio: "inherit" });
  child.on("close", (code) => process.exit(code ?? 1));
} else {
  const want = (name) => only.length === 0 || only.includes(name);
  const built = startE2eBuild();
  // The e2e tier is the suite's longest path and mostly waits on real time, so it starts at
  // once, at normal priority (files that read dist/ wait for its build); the CPU-bound tiers
  // run beside it in the background (see exec). A failed check or unit tier stops everything.
  const e2eRun = want("e2e") ? tier("e2e", () => e2eTier(built)) : Promise.resolve(true);
  const gated = (async () => {
    if (want("check") && !await tier("check", check)) finish(false);
    if (want("unit") && !await tier("unit", unitNode)) finish(false);
    return (await Promise.all([
      want("runtimes") ? tier("runtimes", runtimesTier) : true,
      want("stores") ? tier("stores", storesTier) : true,
    ])).every(Boolean);
  })();
  finish((await Promise.all([e2eRun, gated])).every(Boolean));
}
