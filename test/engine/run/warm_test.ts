// The run path and the planning keep their optimised code through the collections between
// minutes. V8 holds weakly what optimised code was specialised on (the hidden classes of
// the objects it saw); when a minute's last such object was collected, the code was thrown
// away ("deoptimizing ... reason: weak objects") and the next minute compiled it again.
// Every node did that every minute: about 50 recompilations, 200-350 ms of CPU a minute
// (bench/README, thirteenth pass). A child Node process runs six minutes with full
// collections between them and prints V8's deopt trace; after the third minute none of the
// functions below may lose their code that way. V8 only: on Bun and Deno the test says why
// it checks nothing.
import { it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./_warm_child.ts", import.meta.url));
/** Functions that recompiled every minute before: planning's walk of a schedule, the attempt and its controller. */
const WARM = ["planSlots", "newest", "attemptOnce", "runAttempts", "Attempt", "Lazy", "lazyAbort", "settled"];

it("planning and the run path keep their optimised code between minutes, on V8", (t) => {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions["bun"] !== undefined || versions["deno"] !== undefined) {
    t.diagnostic("V8's deopt trace is read from a Node child process; this runtime is not Node");
    return;
  }
  const child = spawnSync(process.execPath, ["--import", "tsx", "--expose-gc", "--trace-deopt", CHILD], {
    encoding: "utf8",
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(child.status, 0, child.stderr);
  const out = child.stdout;
  assert.match(out, /=== ran 6000/, "every minute ran its 1 000 jobs");
  const late = out.slice(out.indexOf("=== minute 4"));
  const lost = [
    ...late.matchAll(/SharedFunctionInfo ([^>]+)>\) \(opt id \d+\) for deoptimization, reason: weak objects/g),
  ]
    .map((m) => m[1]!)
    .filter((name) => WARM.includes(name));
  assert.deepEqual(lost, [], "optimised code thrown away after minute 3");
});
