// Exactly-once across Workers on ONE D1 database, on the real local D1 (workerd through
// Miniflare): three Workers (separate isolates) bound to the same database receive the
// same `scheduled` events concurrently, some twice, for 30 minutes of a minute-level job
// set. Every slot must have one `ok` row and one side-log line. Then the same across two
// OS processes, each its own Miniflare, sharing one persisted D1 (`d1Persist`).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
// @ts-ignore: plain JS module shared with `npm run build`
import { bundles } from "../../scripts/build.mjs";
import { JOBS } from "./fixtures/d1_worker.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const MINUTE = 60_000;
const MINUTES = 30;
const WORKERS = ["w1", "w2", "w3"];
// Recent whole minutes, oldest first, as Cron Triggers deliver them.
const BASE = Math.floor(Date.now() / MINUTE) * MINUTE - (MINUTES + 5) * MINUTE;
const T = (i: number): number => BASE + i * MINUTE;

interface ScheduledFetcher {
  scheduled(options: { scheduledTime: Date; cron: string }): Promise<{ outcome: string }>;
}

const dir = mkdtempSync(join(tmpdir(), "edgecron-d1-"));
const script = join(dir, "d1_worker.mjs");

/** Builds the fixture with the D1 worker bundle's options (workerd conditions, no libSQL). */
async function buildWorker(): Promise<void> {
  const { shrink: _shrink, ...options } = bundles["worker-d1"];
  await build({
    ...options,
    entryPoints: [join(ROOT, "test/integration/fixtures/d1_worker.ts")],
    outfile: script,
    minify: false,
    metafile: false,
  });
}

/** Counts what one expected set of slots ended as. */
function tally(
  expected: Map<string, number[]>,
  rows: { job: string; slot: number; status: string }[],
  lines: { job: string; slot: number }[],
) {
  const okRows = new Map<string, number>();
  for (const r of rows) {
    if (r.status === "ok") okRows.set(`${r.job} ${r.slot}`, (okRows.get(`${r.job} ${r.slot}`) ?? 0) + 1);
  }
  const lineCount = new Map<string, number>();
  for (const l of lines) lineCount.set(`${l.job} ${l.slot}`, (lineCount.get(`${l.job} ${l.slot}`) ?? 0) + 1);
  let slots = 0;
  let lost = 0;
  for (const [job, list] of expected) {
    for (const slot of list) {
      slots++;
      if (okRows.get(`${job} ${slot}`) !== 1 || lineCount.get(`${job} ${slot}`) !== 1) lost++;
    }
  }
  const duplicates = [...lineCount.values()].filter((n) => n > 1).length;
  return { slots, lost, duplicates, lines: lines.length, okRows: okRows.size };
}

/** The slots of each job in [T(0), T(minutes)] (the first event registers the jobs and runs its minute). */
function expectedSlots(minutes = MINUTES): Map<string, number[]> {
  const steps: Record<string, number> = { "* * * * *": 1, "*/2 * * * *": 2, "*/5 * * * *": 5, "*/10 * * * *": 10 };
  const expected = new Map<string, number[]>();
  for (const [job, cron] of Object.entries(JOBS)) {
    const step = steps[cron]!;
    const list: number[] = [];
    for (let i = 0; i <= minutes; i++) if (new Date(T(i)).getUTCMinutes() % step === 0) list.push(T(i));
    expected.set(job, list);
  }
  return expected;
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
