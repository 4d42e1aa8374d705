// Four OS processes (Node, Bun, Deno, Node), each a scheduler in timer mode on ONE libSQL
// file, 20 jobs firing every second for ~20 s. Every slot in the common window must have
// exactly one `ok` row and exactly one side-log line: zero duplicates, zero lost.
import { describe, it } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import type { RunRecord } from "../../src/store/types.ts";
import { assertExactlyOnce, commonWindow, runTogether, runWorker, type WorkerResult } from "./_exactly_once.ts";
import { jobName } from "./fixtures/_side_log_worker.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const WORKER = join(ROOT, "test/integration/fixtures/multiprocess_worker.ts");
const BIN = (name: string) => join(ROOT, "node_modules/.bin", name);
const JOBS = 20;
const RUN_MS = 20_000;

const worker = (label: string, cmd: string, args: string[]): Promise<WorkerResult> =>
  runWorker(label, cmd, args, { cwd: ROOT, timeoutMs: RUN_MS + 120_000 }) as Promise<WorkerResult>;

describe("multi-process exactly-once on one libSQL file", { timeout: 240_000 }, () => {
  it("4 processes (Node, Bun, Deno, Node), 20 jobs every second for 20 s: one ok row and one side-log line per slot", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgecron-mp-"));
    const db = join(dir, "shared.db");
    const log = join(dir, "side.log");
    try {
      const go = join(dir, "go");
      const args = (node: string) => [WORKER, db, log, node, go, String(JOBS)];
      const results = await runTogether(
        [
          worker("node-1", process.execPath, ["--import", "tsx", ...args("node-1")]),
          worker("bun", BIN("bun"), args("bun")),
          worker("deno", BIN("deno"), ["run", "-A", ...args("deno")]),
          worker("node-2", process.execPath, ["--import", "tsx", ...args("node-2")]),
        ],
        go,
        ["node-1", "bun", "deno", "node-2"],
        RUN_MS,
      );
      const window = commonWindow(results, 15);
      const store = libsqlStore({ url: `file:${db}` });
      const rows: RunRecord[] = [];
      for (let i = 0; i < JOBS; i++) rows.push(...await store.runs(jobName(i), { limit: 1000 }));
      await store.close();
      const jobs = Array.from({ length: JOBS }, (_, i) => jobName(i));
      assertExactlyOnce("multiprocess (libSQL)", { rows, log, jobs, window, results });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
