// Four OS processes (Node, Bun, Deno, Node), each a scheduler in timer mode on ONE libSQL
// file, 20 jobs firing every second for ~20 s. Every slot in the common window must have
// exactly one `ok` row and exactly one side-log line: zero duplicates, zero lost.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import type { RunRecord } from "../../src/store/types.ts";
import { assertExactlyOnce, commonWindow, type WorkerResult } from "./_exactly_once.ts";
import { jobName } from "./fixtures/_side_log_worker.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const WORKER = join(ROOT, "test/integration/fixtures/multiprocess_worker.ts");
const BIN = (name: string) => join(ROOT, "node_modules/.bin", name);
const JOBS = 20;
const RUN_MS = 20_000;
const BOOT_MS = 6_000;


function runWorker(label: string, cmd: string, args: string[]): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    const kill = setTimeout(() => child.kill("SIGKILL"), RUN_MS + BOOT_MS + 30_000);
    child.on("close", (code) => {
      clearTimeout(kill);
      if (err.trim() !== "") console.log(`[${label} stderr] ${err.trim().slice(0, 2000)}`);
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !line.startsWith("{")) reject(new Error(`${label} exited ${code}: ${out}${err}`));
      else resolve(JSON.parse(line) as WorkerResult);
    });
  });
}

describe("multi-process exactly-once on one libSQL file", { timeout: 120_000 }, () => {
  it("4 processes (Node, Bun, Deno, Node), 20 jobs every second for 20 s: one ok row and one side-log line per slot", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgecron-mp-"));
    const db = join(dir, "shared.db");
    const log = join(dir, "side.log");
    try {
      const startAt = Date.now() + BOOT_MS;
      const stopAt = startAt + RUN_MS;
      const args = (node: string) => [WORKER, db, log, node, String(startAt), String(stopAt), String(JOBS)];
      const results = await Promise.all([
        runWorker("node-1", process.execPath, ["--import", "tsx", ...args("node-1")]),
        runWorker("bun", BIN("bun"), args("bun")),
        runWorker("deno", BIN("deno"), ["run", "-A", ...args("deno")]),
        runWorker("node-2", process.execPath, ["--import", "tsx", ...args("node-2")]),
      ]);
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
