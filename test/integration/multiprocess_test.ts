// Four OS processes (Node, Bun, Deno, Node), each a scheduler in timer mode on ONE libSQL
// file, 20 jobs firing every second for ~20 s. Every slot in the common window must have
// exactly one `ok` row and exactly one side-log line: zero duplicates, zero lost.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import type { RunRecord } from "../../src/store/types.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const WORKER = join(ROOT, "test/integration/fixtures/multiprocess_worker.ts");
const BIN = (name: string) => join(ROOT, "node_modules/.bin", name);
const JOBS = 20;
const RUN_MS = 20_000;
const BOOT_MS = 6_000;

interface WorkerResult {
  node: string;
  started: number;
  stopped: number;
  events: Record<string, number>;
}

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
      const from = Math.max(...results.map((r) => r.started));
      const to = Math.min(...results.map((r) => r.stopped));
      const windowSlots: number[] = [];
      for (let s = Math.floor(from / 1000) * 1000 + 1000; s <= to; s += 1000) windowSlots.push(s);
      assert.ok(windowSlots.length >= 15, `common window too short: ${windowSlots.length} s`);

      const store = libsqlStore({ url: `file:${db}` });
      const rows: RunRecord[] = [];
      for (let i = 0; i < JOBS; i++) rows.push(...await store.runs(`job-${String(i).padStart(2, "0")}`, { limit: 1000 }));
      await store.close();
      const lines = readFileSync(log, "utf8").trim().split("\n").filter((l) => l !== "");

      const lineCount = new Map<string, number>();
      for (const line of lines) {
        const [job, slot] = line.split(" ");
        lineCount.set(`${job} ${slot}`, (lineCount.get(`${job} ${slot}`) ?? 0) + 1);
      }
      const okRows = new Map<string, number>();
      const statuses: Record<string, number> = {};
      for (const r of rows) {
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status === "ok") okRows.set(`${r.job} ${r.slot}`, (okRows.get(`${r.job} ${r.slot}`) ?? 0) + 1);
      }
      const duplicates = [...lineCount.values()].filter((n) => n > 1).length;
      let lost = 0;
      let checked = 0;
      for (let i = 0; i < JOBS; i++) {
        for (const slot of windowSlots) {
          const key = `job-${String(i).padStart(2, "0")} ${slot}`;
          checked++;
          if (okRows.get(key) !== 1 || lineCount.get(key) !== 1) lost++;
        }
      }
      const wins = Object.fromEntries(results.map((r) => [r.node, r.events["claimed"] ?? 0]));
      const lostClaims = results.reduce((n, r) => n + (r.events["lost"] ?? 0), 0);
      console.log(
        `multiprocess: window ${windowSlots.length} s x ${JOBS} jobs = ${checked} slots; ` +
          `ok rows ${okRows.size}, side-log lines ${lines.length}, duplicates ${duplicates}, lost ${lost}; ` +
          `row statuses ${JSON.stringify(statuses)}; wins per node ${JSON.stringify(wins)}; lost claims ${lostClaims}`,
      );
      assert.equal(duplicates, 0, "a slot ran twice");
      assert.equal(lost, 0, "a slot in the common window has no single ok row and side-log line");
      assert.equal(lines.length, okRows.size, "every side-log line has its ok row");
      assert.ok(Object.values(wins).filter((n) => n > 0).length >= 2, "more than one process won slots");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
