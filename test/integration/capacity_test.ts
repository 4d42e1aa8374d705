// Four Node processes in timer mode on ONE libSQL file with the default `concurrency`,
// 2 000 minutely jobs due in the same second: the slot of every job runs exactly once,
// and the work spreads: each node runs between 10% and 40% of the slots.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import type { RunRecord } from "../../src/store/types.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const WORKER = join(ROOT, "test/integration/fixtures/capacity_worker.ts");
const JOBS = 2_000;
const NODES = ["n1", "n2", "n3", "n4"];

function runWorker(args: string[]): Promise<{ node: string; events: Record<string, number> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", WORKER, ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("close", (code) => {
      if (err.trim() !== "") console.log(`[${args[2]} stderr] ${err.trim().slice(0, 1000)}`);
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !line.startsWith("{")) reject(new Error(`${args[2]} exited ${code}: ${out}${err}`));
      else resolve(JSON.parse(line));
    });
  });
}

describe("capacity: a large minute spreads over the nodes", { timeout: 180_000 }, () => {
  it("4 processes, 2 000 minutely jobs due in one second: each node runs 10-40%, 0 duplicates, 0 lost", async () => {
    const dir = mkdtempSync(join(tmpdir(), "edgecron-capacity-"));
    const db = join(dir, "shared.db");
    const log = join(dir, "side.log");
    try {
      // The slot: a whole second 60 s ahead, time for four processes to boot and register
      // 2 000 jobs each even on a loaded machine (25 s was not, once: no process ran a job).
      // The e2e tier runs other files meanwhile, so the wait costs little.
      const slot = Math.ceil((Date.now() + 60_000) / 1000) * 1000;
      const second = String(new Date(slot).getUTCSeconds());
      const stopAt = String(slot + 20_000);
      const results = await Promise.all(NODES.map((node) => runWorker([db, log, node, second, stopAt, String(JOBS)])));

      const store = libsqlStore({ url: `file:${db}` });
      const overview = await store.overview(
        Array.from({ length: JOBS }, (_, i) => `job-${String(i).padStart(4, "0")}`),
        { since: slot, perJob: 5 },
      );
      await store.close();
      const rows: RunRecord[] = Object.values(overview).flatMap((o) => o.recent.filter((r) => r.slot === slot));
      assert.ok(existsSync(log), `no process ran a job (did they boot after the slot?): ${JSON.stringify(results)}`);
      const lines = readFileSync(log, "utf8").trim().split("\n").filter((l) =>
        l.endsWith("") && l.split(" ")[1] === String(slot)
      );
      const perJob = new Map<string, number>();
      const perNode = new Map<string, number>();
      for (const line of lines) {
        const [job, , node] = line.split(" ");
        perJob.set(job!, (perJob.get(job!) ?? 0) + 1);
        perNode.set(node!, (perNode.get(node!) ?? 0) + 1);
      }
      const duplicates = [...perJob.values()].filter((n) => n > 1).length;
      const ok = rows.filter((r) => r.status === "ok");
      const lost = JOBS - new Set(ok.map((r) => r.job)).size;
      const share = Object.fromEntries(NODES.map((n) => [n, `${(((perNode.get(n) ?? 0) / JOBS) * 100).toFixed(1)}%`]));
      const lateness = ok.map((r) => r.startedAt - slot).sort((a, b) => a - b);
      console.log(
        `capacity: ${JOBS} slots, ok rows ${ok.length}, side-log lines ${lines.length}, duplicates ${duplicates}, lost ${lost}; ` +
          `share per node ${JSON.stringify(share)}; start lateness p50 ${
            lateness[Math.floor(lateness.length / 2)]
          } ms, ` +
          `p99 ${lateness[Math.floor(lateness.length * 0.99)]} ms; events ${
            JSON.stringify(results.map((r) => [r.node, r.events["claimed"] ?? 0, r.events["lost"] ?? 0]))
          }`,
      );
      assert.equal(duplicates, 0, "a slot ran twice");
      assert.equal(lost, 0, "a slot has no ok row");
      assert.equal(lines.length, JOBS, "one side-log line per slot");
      for (const node of NODES) {
        const n = perNode.get(node) ?? 0;
        assert.ok(n >= 0.1 * JOBS && n <= 0.4 * JOBS, `${node} ran ${n} of ${JOBS} slots`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
