// Four OS processes (Node, Bun, Deno, Node), each a scheduler in timer mode on ONE Postgres
// database (a real server, see test/store/postgres/_server.ts), 10 jobs firing every second.
// Every slot of a common window of at least 15 s must have exactly one `ok` row and exactly
// one side-log line: zero duplicates, zero lost.
import { describe, it } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postgresStore } from "../../src/store/postgres/mod.ts";
import type { RunRecord } from "../../src/store/types.ts";
import { freshSchema, pgServer, skipReason } from "../store/postgres/_server.ts";
import { assertExactlyOnce, commonWindow, runTogether, runWorker, type WorkerResult } from "./_exactly_once.ts";
import { postgresTarget } from "./fixtures/_open_store.ts";
import { jobName } from "./fixtures/_side_log_worker.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const WORKER = join(ROOT, "test/integration/fixtures/multiprocess_worker.ts");
const BIN = (name: string) => join(ROOT, "node_modules/.bin", name);
const JOBS = 10;
const RUN_MS = 17_000;

const worker = (label: string, cmd: string, args: string[]): Promise<WorkerResult> =>
  runWorker(label, cmd, args, { cwd: ROOT, timeoutMs: RUN_MS + 120_000 }) as Promise<WorkerResult>;

describe("multi-process exactly-once on one Postgres database", { timeout: 240_000 }, () => {
  it("4 processes (Node, Bun, Deno, Node), 10 jobs every second for 15 s: one ok row and one side-log line per slot", {
    skip: skipReason,
  }, async () => {
    const { url } = await pgServer();
    const schema = freshSchema("mp");
    const target = postgresTarget(url, schema);
    const dir = mkdtempSync(join(tmpdir(), "edgecron-pg-mp-"));
    const log = join(dir, "side.log");
    const store = postgresStore({ url, schema });
    try {
      // Migrated once up front; the workers' own init() then finds it current.
      await store.init();
      const go = join(dir, "go");
      const args = (node: string) => [WORKER, target, log, node, go, String(JOBS)];
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
      const rows: RunRecord[] = [];
      for (let i = 0; i < JOBS; i++) rows.push(...await store.runs(jobName(i), { limit: 1000 }));
      const jobs = Array.from({ length: JOBS }, (_, i) => jobName(i));
      assertExactlyOnce("multiprocess (Postgres)", { rows, log, jobs, window, results });
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
