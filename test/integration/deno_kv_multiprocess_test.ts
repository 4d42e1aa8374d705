// Three `deno` processes, each a scheduler in timer mode on ONE Deno KV file, 10 jobs
// firing every second for 15 s. Every slot in the common window must have exactly one
// `ok` row and exactly one side-log line: zero duplicates, zero lost.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunRecord } from "../../src/store/types.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const WORKER = join(ROOT, "test/integration/fixtures/kv_multiprocess_worker.ts");
const DENO = join(ROOT, "node_modules/.bin/deno");
const JOBS = 10;
const RUN_MS = 15_000;
const BOOT_MS = 5_000;

function deno(label: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(DENO, ["run", "-A", "--unstable-kv", WORKER, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    const kill = setTimeout(() => child.kill("SIGKILL"), RUN_MS + BOOT_MS + 30_000);
    child.on("close", (code) => {
      clearTimeout(kill);
      if (err.trim() !== "") console.log(`[${label} stderr] ${err.trim().slice(0, 2000)}`);
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !/^[[{]/.test(line)) reject(new Error(`${label} exited ${code}: ${out}${err}`));
      else resolve(line);
    });
  });
}

interface WorkerResult {
  node: string;
  started: number;
  stopped: number;
  events: Record<string, number>;
}

describe("multi-process exactly-once on one Deno KV file", { timeout: 120_000 }, () => {
  it("3 deno processes, 10 six-field jobs every second for 15 s: one ok row and one side-log line per slot", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgecron-kvmp-"));
    const kv = join(dir, "shared.kv");
    const log = join(dir, "side.log");
    try {
      const startAt = Date.now() + BOOT_MS;
      const stopAt = startAt + RUN_MS;
      const nodes = ["deno-1", "deno-2", "deno-3"];
      const results = (await Promise.all(nodes.map((node) =>
        deno(node, ["run", kv, log, node, String(startAt), String(stopAt), String(JOBS)])
      ))).map((line) => JSON.parse(line) as WorkerResult);
      const from = Math.max(...results.map((r) => r.started));
      const to = Math.min(...results.map((r) => r.stopped));
      const windowSlots: number[] = [];
      for (let s = Math.floor(from / 1000) * 1000 + 1000; s <= to; s += 1000) windowSlots.push(s);
      assert.ok(windowSlots.length >= 12, `common window too short: ${windowSlots.length} s`);

      const rows = JSON.parse(await deno("dump", ["dump", kv, String(JOBS)])) as RunRecord[];
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
        `kv multiprocess: window ${windowSlots.length} s x ${JOBS} jobs = ${checked} slots; ` +
          `ok rows ${okRows.size}, side-log lines ${lines.length}, duplicates ${duplicates}, lost ${lost}; ` +
          `row statuses ${JSON.stringify(statuses)}; wins per process ${JSON.stringify(wins)}; claims lost to other processes ${lostClaims}`,
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
