// The run path and the planning keep their optimised code through the collections between
// minutes. V8 holds weakly what optimised code was specialised on (the hidden classes of
// the objects it saw); when a minute's last such object was collected, the code was thrown
// away ("deoptimizing ... reason: weak objects") and the next minute compiled it again.
// Every node did that every minute: about 50 recompilations, 200-350 ms of CPU a minute
// (bench/README, thirteenth pass). A child Node process runs eight minutes with full
// collections between them and prints V8's deopt trace; none of the functions below may
// lose its code that way more than once (while the first minutes settle), where each lost
// it about once a minute before. An e2e file, run on Node only, like the tier's other files.
import { it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const CHILD = fileURLToPath(new URL("./_warm_child.ts", import.meta.url));
const SHARES_CHILD = fileURLToPath(new URL("./_warm_shares_child.ts", import.meta.url));
/** Functions that recompiled every minute before: planning, a round's claims, the attempt, its controller and its context. */
const WARM = [
  "planSlots",
  "newest",
  "takeRound",
  "attemptOnce",
  "runSlotTo",
  "Attempt",
  "Context",
  "<instance_members_initializer",
  "Lazy",
  "lazyAbort",
  "settled",
  "succeed",
  "JobRun",
  "Finishing",
  "Ending",
];

it("planning and the run path keep their optimised code between minutes, on V8", () => {
  const child = spawnSync(process.execPath, ["--import", "tsx", "--expose-gc", "--trace-deopt", CHILD], {
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(child.status, 0, child.stderr);
  const out = child.stdout;
  assert.match(out, /=== ran 20000/, "every minute ran its 2 500 jobs");
  const lost = new Map<string, number>();
  for (
    const m of out.matchAll(/SharedFunctionInfo ([^>]+)>\) \(opt id \d+\) for deoptimization, reason: weak objects/g)
  ) {
    if (WARM.includes(m[1]!)) lost.set(m[1]!, (lost.get(m[1]!) ?? 0) + 1);
  }
  const often = [...lost].filter(([, n]) => n > 1);
  assert.deepEqual(often, [], "optimised code thrown away in more than one of eight minutes");
});

/**
 * Functions that recompiled every minute on a node with a share of 10 000 jobs on a libSQL
 * file, bundled as the bench runs it (`core/kept.ts`): planning, over the tick's input and
 * each job's plan and window, and the timer's wake heap, over a minute's advance.
 */
const WARM_SHARES = ["planTick", "next"];

/** `lost` weak-object deopts by function, of the names in `names`. */
function lostCode(out: string, names: readonly string[]): [string, number][] {
  const lost = new Map<string, number>();
  for (
    const m of out.matchAll(/SharedFunctionInfo ([^>]+)>\) \(opt id \d+\) for deoptimization, reason: weak objects/g)
  ) {
    if (names.includes(m[1]!)) lost.set(m[1]!, (lost.get(m[1]!) ?? 0) + 1);
  }
  return [...lost].filter(([, n]) => n > 1);
}

it("a node with a share of a large minute keeps its planning code between minutes, bundled, on V8", async () => {
  // Inside the project, so the bundle's bare imports resolve from its node_modules.
  const cache = fileURLToPath(new URL("../../node_modules/.cache/", import.meta.url));
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, "edgecron-warm-"));
  try {
    const outfile = join(dir, "child.mjs");
    await build({
      entryPoints: [SHARES_CHILD],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "es2022",
      packages: "external",
      logLevel: "warning",
    });
    const child = spawnSync(process.execPath, ["--expose-gc", "--trace-deopt", outfile], {
      encoding: "utf8",
      timeout: 90_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, WARM_JOBS: "10000" },
    });
    assert.equal(child.status, 0, child.stderr);
    assert.match(child.stdout, /=== ran 19936/, "eight minutes of this node's share ran");
    assert.deepEqual(
      lostCode(child.stdout, WARM_SHARES),
      [],
      "optimised code thrown away in more than one of eight minutes",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
