// Exactly-once across Workers on ONE D1 database, on the real local D1 (workerd through
// Miniflare): three Workers (separate isolates) bound to the same database receive the
// same `scheduled` events concurrently, some twice, for 30 minutes of a minute-level job
// set. Every slot must have one `ok` row and one side-log line. The same across two OS
// processes sharing one persisted D1 is d1_processes_test.ts (they run side by side).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { Miniflare } from "miniflare";
import { buildWorker, dir, expectedSlots, MINUTES, script, T, tally } from "./_d1.ts";

const WORKERS = ["w1", "w2", "w3"];

interface ScheduledFetcher {
  scheduled(options: { scheduledTime: Date; cron: string }): Promise<{ outcome: string }>;
}

before(buildWorker);
after(() => rmSync(dir, { recursive: true, force: true }));

describe("D1 exactly-once across Workers (Miniflare, one shared D1)", { timeout: 240_000 }, () => {
  let mf: Miniflare;
  before(() => {
    mf = new Miniflare({
      workers: WORKERS.map((name) => ({
        name,
        modules: true,
        scriptPath: script,
        modulesRoot: dir,
        compatibilityDate: "2025-09-01",
        d1Databases: { DB: "shared-d1" },
        bindings: { NODE: name },
      })),
    });
  });
  after(() => mf.dispose());

  it("3 isolates, the same events concurrently (every minute delivered twice to one of them): every slot runs once", async () => {
    const workers = await Promise.all(
      WORKERS.map(async (name) => (await mf.getWorker(name)) as unknown as ScheduledFetcher),
    );
    const deliver = async (w: ScheduledFetcher, i: number): Promise<void> => {
      const result = await w.scheduled({ scheduledTime: new Date(T(i)), cron: "* * * * *" });
      assert.equal(result.outcome, "ok");
    };
    for (let i = 0; i <= MINUTES; i++) {
      // All three at once, plus a repeated delivery of the same scheduledTime.
      // Who is first changes every minute, so no one isolate wins everything.
      const order = workers.map((_, k) => workers[(i + k) % workers.length]!);
      await Promise.all([...order.map((w) => deliver(w, i)), deliver(order[1]!, i)]);
    }
    // A late repeat of old minutes changes nothing.
    await Promise.all(workers.map((w) => deliver(w, 3)));

    const db = await mf.getD1Database("DB", "w1");
    const rows = (await db.prepare("SELECT job, slot, status FROM edgecron_runs").all()).results as {
      job: string;
      slot: number;
      status: string;
    }[];
    const lines = (await db.prepare("SELECT job, slot, worker FROM side_log").all()).results as {
      job: string;
      slot: number;
      worker: string;
    }[];
    const stats = await Promise.all(WORKERS.map(async (name) => {
      const res = await mf.dispatchFetch(`http://${name}.test/stats`, { headers: { "MF-Route-Override": name } });
      return (await res.json()) as { node: string; events: Record<string, number> };
    }));
    const expected = expectedSlots();
    const counts = tally(expected, rows, lines);
    const perWorker = Object.fromEntries(WORKERS.map((w) => [w, lines.filter((l) => l.worker === w).length]));
    const lostClaims = stats.reduce((n, s) => n + (s.events["lost"] ?? 0), 0);
    const statuses: Record<string, number> = {};
    for (const r of rows) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    console.log(
      `d1 instances: ${counts.slots} slots expected, ${counts.okRows} ok rows, ${counts.lines} side-log lines, ` +
        `duplicates ${counts.duplicates}, lost ${counts.lost}; runs per worker ${JSON.stringify(perWorker)}; ` +
        `claims lost to other instances ${lostClaims}; row statuses ${JSON.stringify(statuses)}`,
    );
    assert.equal(counts.duplicates, 0, "a slot ran twice");
    assert.equal(counts.lost, 0, "a slot has no single ok row and side-log line");
    assert.equal(counts.lines, counts.slots, "no run outside the expected slots");
    assert.ok(Object.values(perWorker).filter((n) => n > 0).length >= 2, "more than one isolate ran slots");
  });
});
