// Exactly-once across two OS processes, each its own Miniflare (workerd), sharing one
// persisted local D1 (`d1Persist`): both receive the same `scheduled` events at once.
// Every slot must have one `ok` row and one side-log line (d1_instances_test.ts does the
// same across isolates of one Miniflare).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { BASE, buildWorker, dir, expectedSlots, ROOT, script, tally } from "./_d1.ts";

before(buildWorker);
after(() => rmSync(dir, { recursive: true, force: true }));

describe("D1 exactly-once across OS processes sharing a persisted local D1", { timeout: 180_000 }, () => {
  it("2 Miniflare processes, one d1Persist directory, the same events at once: every slot runs once", async () => {
    const minutes = 20;
    const persist = join(dir, "persist");
    const startAt = Date.now() + 10_000;
    type Result = { node: string; failures: string[]; redelivered: number; events: Record<string, number> };
    // Resolves `started` once the process's workerd is up: two workerd processes that open
    // the same fresh persisted database at the same instant can fail to start (SQLITE_BUSY
    // in workerd itself), so the second starts after the first.
    const child = (node: string, started: () => void = () => {}): Promise<Result> =>
      new Promise((resolve, reject) => {
        const args = [
          join(ROOT, "test/integration/fixtures/d1_process.ts"),
          script,
          persist,
          node,
          String(startAt),
          String(BASE),
          String(minutes),
        ];
        const p = spawn(process.execPath, ["--import", "tsx", ...args], {
          cwd: ROOT,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let out = "";
        let err = "";
        p.stdout.on("data", (d: Buffer) => {
          out += d;
          if (/^ready$/m.test(out)) started();
        });
        p.stderr.on("data", (d: Buffer) => (err += d));
        p.on("close", (code) => {
          started();
          const line = out.trim().split("\n").at(-1) ?? "";
          if (code !== 0 || !line.startsWith("{")) reject(new Error(`${node} exited ${code}: ${out}${err}`));
          else resolve(JSON.parse(line));
        });
      });
    let first!: Promise<Result>;
    await new Promise<void>((started) => {
      first = child("p1", started);
    });
    const results = await Promise.all([first, child("p2")]);
    const mf = new Miniflare({
      modules: true,
      script: "export default { fetch() { return new Response(''); } };",
      compatibilityDate: "2025-09-01",
      d1Databases: { DB: "shared-d1" },
      d1Persist: persist,
    });
    try {
      const db = await mf.getD1Database("DB");
      const rows = (await db.prepare("SELECT job, slot, status, error FROM edgecron_runs").all()).results as {
        job: string;
        slot: number;
        status: string;
      }[];
      const lines = (await db.prepare("SELECT job, slot, worker FROM side_log").all()).results as {
        job: string;
        slot: number;
        worker: string;
      }[];
      const counts = tally(expectedSlots(minutes), rows, lines);
      const perProcess = Object.fromEntries(
        results.map((r) => [r.node, lines.filter((l) => l.worker === r.node).length]),
      );
      const lostClaims = results.reduce((n, r) => n + (r.events["lost"] ?? 0), 0);
      const storeErrors = results.reduce((n, r) => n + (r.events["store-error"] ?? 0), 0);
      console.log(
        `d1 processes: ${counts.slots} slots expected, ${counts.okRows} ok rows, ${counts.lines} side-log lines, ` +
          `duplicates ${counts.duplicates}, lost ${counts.lost}; runs per process ${JSON.stringify(perProcess)}; ` +
          `claims lost to the other process ${lostClaims}; store errors ${storeErrors}; ` +
          `deliveries workerd failed and that were redelivered ${results.reduce((n, r) => n + r.redelivered, 0)}`,
      );
      const notOk = rows.filter((r) => r.status !== "ok");
      if (notOk.length > 0) console.log(`d1 processes: rows not ok ${JSON.stringify(notOk)}`);
      assert.deepEqual(results.flatMap((r) => r.failures), []);
      assert.equal(counts.duplicates, 0, "a slot ran twice");
      assert.equal(counts.lost, 0, "a slot has no single ok row and side-log line");
    } finally {
      await mf.dispose();
    }
  });
});
