// The bundled example worker (dist/worker.mjs) on real workerd through Miniflare:
// Cron Trigger events for several scheduledTimes, repeated and late deliveries, and the
// router over fetch. Each slot's job must run exactly once.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { type HranaServer, startHranaServer } from "../adapters/_hrana_server.ts";
import { ensureBuilt } from "./_build.ts";
import { d1Worker } from "../store/d1/_miniflare.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const bundle = `${root}dist/worker.mjs`;
const TOKEN = "integration-token";
const MINUTE = 60_000;
// Cron Triggers deliver the minute that just passed; use recent minutes, oldest first.
const BASE = Math.floor(Date.now() / MINUTE) * MINUTE - 30 * MINUTE;
const T = (i: number): number => BASE + i * MINUTE;

interface Run {
  slot: number;
  status: string;
  attempt: number;
  node: string;
}
interface Job {
  name: string;
  counters: { runs: number; ok: number; lost: number };
}

function worker(bindings: Record<string, string>): Miniflare {
  return new Miniflare({
    modules: true,
    scriptPath: bundle,
    compatibilityDate: "2025-09-01",
    bindings: { EDGECRON_TOKEN: TOKEN, ...bindings },
  });
}

/** `Fetcher.scheduled` as Miniflare implements it (its types come from workers-types, not installed). */
interface ScheduledFetcher {
  scheduled(options: { scheduledTime: Date; cron: string }): Promise<{ outcome: string; noRetry: boolean }>;
}

async function scheduled(mf: Miniflare, scheduledTime: number): Promise<void> {
  const w = await mf.getWorker() as unknown as ScheduledFetcher;
  const result = await w.scheduled({ scheduledTime: new Date(scheduledTime), cron: "* * * * *" });
  assert.equal(result.outcome, "ok", `scheduled(${new Date(scheduledTime).toISOString()})`);
}

async function api<T>(
  mf: Miniflare,
  path: string,
  init: { method?: string; token?: string | null } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = init.token === null ? {} : { authorization: `Bearer ${init.token ?? TOKEN}` };
  const res = await mf.dispatchFetch(`http://worker.test${path}`, { method: init.method ?? "GET", headers });
  return { status: res.status, body: await res.json() as T };
}

const runsOf = async (mf: Miniflare, job: string): Promise<Run[]> =>
  (await api<{ runs: Run[] }>(mf, `/jobs/${job}/runs?limit=100`)).body.runs;
const jobOf = async (mf: Miniflare, job: string): Promise<Job> => (await api<Job>(mf, `/jobs/${job}`)).body;

/** Every slot in `expected` has exactly one `ok` row, and no slot has two rows. */
function assertOncePerSlot(runs: Run[], expected: number[]): void {
  const slots = runs.map((r) => r.slot);
  assert.equal(new Set(slots).size, slots.length, "one row per slot");
  for (const slot of expected) {
    const rows = runs.filter((r) => r.slot === slot);
    assert.deepEqual(rows.map((r) => [r.status, r.attempt]), [["ok", 1]], new Date(slot).toISOString());
  }
  assert.ok(slots.every((s) => s === T(0) || expected.includes(s)), "no slot outside the delivered ones");
}

before(() => {
  ensureBuilt("worker");
});

describe("Cloudflare example worker on workerd (memory store, one isolate)", () => {
  let mf: Miniflare;
  before(() => {
    mf = worker({});
  });
  after(() => mf.dispose());

  it("runs each scheduled slot once, also when an event is delivered twice or late", async () => {
    // The first event meets a job the store has never seen; whether T(0) itself runs is
    // the engine's registration rule, so the checks below start at T(1).
    await scheduled(mf, T(0));
    await scheduled(mf, T(1));
    await scheduled(mf, T(1));
    await scheduled(mf, T(2));
    await scheduled(mf, T(2));
    await scheduled(mf, T(1));
    await scheduled(mf, T(3));
    await Promise.all([scheduled(mf, T(3)), scheduled(mf, T(3))]);

    const runs = await runsOf(mf, "purge-expired");
    assertOncePerSlot(runs, [T(1), T(2), T(3)]);
    const job = await jobOf(mf, "purge-expired");
    assert.equal(job.counters.ok, runs.length, "one handler run per recorded slot");
  });

  it("records the slots a late trigger skipped over: the latest runs, older ones are missed", async () => {
    await scheduled(mf, T(7));
    const runs = await runsOf(mf, "purge-expired");
    const bySlot = new Map(runs.map((r) => [r.slot, r.status]));
    assert.deepEqual([4, 5, 6, 7].map((i) => bySlot.get(T(i))), ["missed", "missed", "missed", "ok"]);
    assert.equal((await jobOf(mf, "purge-expired")).counters.ok, runs.filter((r) => r.status === "ok").length);
  });

  it("runs a backfill after its 202 answer, inside the request's waitUntil", async () => {
    // The router got no execution context: the backfill went on after the answer without
    // `waitUntil`, workerd cut its store calls, and one row stayed `buffered` for good.
    const res = await mf.dispatchFetch("http://worker.test/jobs/purge-expired/backfill", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ from: T(8), to: T(12) }),
    });
    assert.equal(res.status, 202);
    assert.equal((await res.json() as { planned: number }).planned, 4);
    let rows: Run[] = [];
    for (let i = 0; i < 100; i++) {
      rows = (await runsOf(mf, "purge-expired")).filter((r) => r.slot >= T(8) && r.slot < T(12));
      if (rows.length === 4 && rows.every((r) => r.status === "ok")) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(rows.map((r) => [r.slot, r.status]).sort(), [8, 9, 10, 11].map((i) => [T(i), "ok"]));
  });

  it("serves the router: health, the job list with next slots, the dashboard, auth required", async () => {
    const health = await api<{ ok: boolean; jobs: number }>(mf, "/health");
    assert.equal(health.status, 200);
    assert.equal(health.body.jobs, 2);
    const jobs = await api<{ jobs: { name: string; timezone: string; next: number[] }[] }>(mf, "/jobs");
    assert.deepEqual(jobs.body.jobs.map((j) => j.name).sort(), ["daily-digest", "purge-expired"]);
    const digest = jobs.body.jobs.find((j) => j.name === "daily-digest");
    assert.equal(digest?.timezone, "Europe/Paris");
    assert.ok((digest?.next.length ?? 0) > 0);
    const page = await mf.dispatchFetch("http://worker.test/", { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /text\/html/);
    assert.match(
      await page.text(),
      /purge-expired[\s\S]*daily-digest|daily-digest[\s\S]*purge-expired/,
      "the dashboard lists both jobs",
    );
    assert.equal((await api(mf, "/jobs", { token: null })).status, 401);
    assert.equal((await api(mf, "/jobs", { token: "wrong" })).status, 401);
  });

  it("answers 503 naming EDGECRON_TOKEN and how to set it when it is missing", async () => {
    const bare = new Miniflare({ modules: true, scriptPath: bundle, compatibilityDate: "2025-09-01" });
    try {
      const res = await bare.dispatchFetch("http://worker.test/health");
      assert.equal(res.status, 503);
      const body = await res.json() as { error: { code: string; message: string } };
      assert.equal(body.error.code, "not-configured");
      assert.match(body.error.message, /^EDGECRON_TOKEN is not set/);
      for (const how of [".dev.vars", "wrangler secret put EDGECRON_TOKEN", "--var EDGECRON_TOKEN:"]) {
        assert.ok(body.error.message.includes(how), how);
      }
    } finally {
      await bare.dispose();
    }
  });
});

describe("Cloudflare example worker on workerd (libSQL over HTTP, two isolates)", () => {
  const dir = `${root}test/artifacts/cloudflare`;
  let db: HranaServer;
  let a: Miniflare;
  let b: Miniflare;
  before(async () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    db = await startHranaServer(`${dir}/edgecron.db`);
    a = worker({ LIBSQL_URL: db.url });
    b = worker({ LIBSQL_URL: db.url });
  });
  after(async () => {
    await a.dispose();
    await b.dispose();
    await db.close();
  });

  it("runs each slot exactly once when both isolates get every event, twice", async () => {
    await Promise.all([scheduled(a, T(0)), scheduled(b, T(0))]);
    for (const i of [1, 2, 3]) {
      await Promise.all([scheduled(a, T(i)), scheduled(b, T(i)), scheduled(a, T(i)), scheduled(b, T(i))]);
    }
    const runs = await runsOf(a, "purge-expired");
    assertOncePerSlot(runs, [T(1), T(2), T(3)]);
    assert.deepEqual(await runsOf(b, "purge-expired"), runs, "both isolates read the same store");
    const [ja, jb] = [await jobOf(a, "purge-expired"), await jobOf(b, "purge-expired")];
    assert.equal(ja.counters.ok + jb.counters.ok, runs.length, "one handler run per slot across both isolates");
    assert.ok(db.pipelines() > 0);
  });
});

describe("Cloudflare worker whose scheduler is made at global scope", () => {
  it("starts on workerd and runs its slot (an AbortController made in createScheduler stopped it from starting)", async () => {
    // workerd refuses an AbortController (as a timer or random values) at global scope:
    // "Disallowed operation called within global scope", and the worker never started.
    const { mf, dispose } = await d1Worker(new URL("./fixtures/global_scope_worker.ts", import.meta.url), "global");
    try {
      await scheduled(mf, T(1));
      const res = await mf.dispatchFetch("http://worker.test/");
      assert.deepEqual(await res.json(), { ran: [T(1)] });
    } finally {
      await dispose();
    }
  });
});
