// Three `deno` processes, each a scheduler in timer mode on ONE Deno KV file, 10 jobs
// firing every second for 15 s. Every slot in the common window must have exactly one
// `ok` row and exactly one side-log line: zero duplicates, zero lost.
import { describe, it } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunRecord } from "../../src/store/types.ts";
import { assertExactlyOnce, commonWindow, runTogether, runWorker, type WorkerResult } from "./_exactly_once.ts";
import { jobName } from "./fixtures/_side_log_worker.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const WORKER = join(ROOT, "test/integration/fixtures/kv_multiprocess_worker.ts");
const DENO = join(ROOT, "node_modules/.bin/deno");
const JOBS = 10;
const RUN_MS = 15_000;

const deno = (label: string, args: string[]): Promise<unknown> =>
  runWorker(label, DENO, ["run", "-A", "--unstable-kv", WORKER, ...args], {
    cwd: ROOT,
    timeoutMs: RUN_MS + 120_000,
  });

describe("multi-process exactly-once on one Deno KV file", { timeout: 240_000 }, () => {
  it("3 deno processes, 10 six-field jobs every second for 15 s: one ok row and one side-log line per slot", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgecron-kvmp-"));
    const kv = join(dir, "shared.kv");
    const log = join(dir, "side.log");
    try {
      const go = join(dir, "go");
      const nodes = ["deno-1", "deno-2", "deno-3"];
      const workers = nodes.map((node) =>
        deno(node, ["run", kv, log, node, go, String(JOBS)]) as Promise<WorkerResult>
      );
      const results = await runTogether(workers, go, nodes, RUN_MS);
      const window = commonWindow(results, 12);
      const rows = await deno("dump", ["dump", kv, String(JOBS)]) as RunRecord[];
      const jobs = Array.from({ length: JOBS }, (_, i) => jobName(i));
      assertExactlyOnce("multiprocess (Deno KV)", { rows, log, jobs, window, results });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
