// The Postgres example worker (examples/cloudflare-worker/worker_postgres.ts) on real
// workerd through Miniflare, reaching the test server through `cloudflare:sockets`: each
// event opens its own connection (workerd refuses a socket from another event) and ends
// it, a Cron Trigger's run is recorded in Postgres, and a repeated or concurrent delivery
// of the same minute runs it once; a Hyperdrive binding is read before DATABASE_URL.
// Bundled as wrangler does with nodejs_compat.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Miniflare } from "miniflare";
import postgres from "postgres";
import { pgServer, skipReason } from "./_server.ts";

declare const Deno: unknown;
declare const Bun: unknown;
// Miniflare drives workerd from Node; on Deno and Bun this file only registers a skip.
const onNode = typeof Deno === "undefined" && typeof Bun === "undefined";
const skip = skipReason !== false ? skipReason : onNode ? false : "Miniflare runs on Node only";

const TOKEN = "pg-worker-token";
const MINUTE = 60_000;
// Cron Triggers deliver the minute that just passed; recent minutes, oldest first.
const BASE = Math.floor(Date.now() / MINUTE) * MINUTE - 30 * MINUTE;
const T = (i: number): number => BASE + i * MINUTE;

interface Row {
  slot: string;
  status: string;
  attempt: number;
  node: string;
  claimed_at: string;
}

/** `Fetcher.scheduled` as Miniflare implements it. */
interface ScheduledFetcher {
  scheduled(options: { scheduledTime: Date; cron: string }): Promise<{ outcome: string }>;
}

/** Bundles the worker for workerd the way wrangler does with nodejs_compat (node:* and cloudflare:* left to the runtime). */
async function bundle(dir: string): Promise<string> {
  const { build } = await import("esbuild");
  const script = join(dir, "worker.mjs");
  await build({
    entryPoints: [new URL("../../../examples/cloudflare-worker/worker_postgres.ts", import.meta.url).pathname],
    outfile: script,
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser", "import"],
    mainFields: ["module", "main"],
    external: ["node:*", "cloudflare:*"],
    target: "es2022",
    logLevel: "warning",
  });
  return script;
}

describe("a Worker on Postgres (Miniflare, cloudflare:sockets, one connection per event)", { skip }, () => {
  let mf: Miniflare;
  let sql: postgres.Sql;
  let dir: string;

  before(async () => {
    const server = await pgServer();
    dir = mkdtempSync(join(tmpdir(), "edgecron-pg-worker-"));
    const script = await bundle(dir);
    const { Miniflare } = await import("miniflare");
    const worker = {
      modules: true,
      scriptPath: script,
      modulesRoot: dir,
      compatibilityDate: "2025-09-01",
      compatibilityFlags: ["nodejs_compat"],
    };
    // Two workers in one workerd: the same script on DATABASE_URL, and on a Hyperdrive
    // binding beside a DATABASE_URL that leads nowhere (so only the binding can work).
    mf = new Miniflare({
      workers: [
        { ...worker, name: "url", bindings: { DATABASE_URL: server.url, EDGECRON_TOKEN: TOKEN } },
        {
          ...worker,
          name: "hyperdrive",
          hyperdrives: { HYPERDRIVE: server.url },
          bindings: { DATABASE_URL: "postgres://nobody:nothing@127.0.0.1:9/none", EDGECRON_TOKEN: TOKEN },
        },
      ],
    });
    sql = postgres(server.url, { onnotice: () => {}, max: 1 });
  });
  after(async () => {
    await mf?.dispose();
    await sql?.end();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const scheduled = async (at: number, name = "url"): Promise<void> => {
    const worker = await mf.getWorker(name) as unknown as ScheduledFetcher;
    const result = await worker.scheduled({ scheduledTime: new Date(at), cron: "* * * * *" });
    assert.equal(result.outcome, "ok", new Date(at).toISOString());
  };
  const api = async <T>(path: string): Promise<T> => {
    const res = await mf.dispatchFetch(`http://worker.test${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200, `${path}: ${res.status}`);
    return await res.json() as T;
  };
  const rows = async (): Promise<Row[]> =>
    await sql<Row[]>`SELECT slot::text, status, attempt, node, claimed_at::text FROM edgecron.runs
      WHERE job = 'purge-expired' AND slot >= ${T(1)} ORDER BY slot`;

  it("records a Cron Trigger's run in Postgres, once per slot, also when the minute is delivered again", async () => {
    await scheduled(T(0)); // the job's first tick: migrates and registers it
    await scheduled(T(1));
    const first = await rows();
    assert.deepEqual(first.map((r) => [Number(r.slot), r.status, r.attempt]), [[T(1), "ok", 1]]);

    // The same minute again, in a later event (a new connection): claimed already, so not run.
    await scheduled(T(1));
    // Two deliveries of the next minute at once, in one isolate: each event has its own connection.
    await Promise.all([scheduled(T(2)), scheduled(T(2))]);
    const all = await rows();
    assert.deepEqual(all.map((r) => [Number(r.slot), r.status, r.attempt]), [[T(1), "ok", 1], [T(2), "ok", 1]]);
    assert.deepEqual(all[0], first[0], "the repeated delivery left the T(1) row as it was");

    // A fetch event reads through its own connection; the handler ran once per recorded slot.
    const job = await api<{ counters: { ok: number } }>("/jobs/purge-expired");
    const okRows = (await sql`SELECT count(*)::int AS n FROM edgecron.runs
      WHERE job = 'purge-expired' AND status = 'ok'`)[0]?.n as number;
    assert.equal(job.counters.ok, okRows, "one handler run per ok row");
    const health = await api<{ store: string }>("/health");
    assert.equal(health.store, "ok");
  });

  it("leaves no connection open once the events are done", async () => {
    await scheduled(T(3));
    // The worker ends each event's connection through waitUntil (and workerd closes what an
    // ended event left), so it may trail the event: wait for it, with a deadline.
    const deadline = Date.now() + 20_000;
    let open = -1;
    while (Date.now() < deadline) {
      const [row] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE application_name = 'edgecron' AND pid <> pg_backend_pid()`;
      open = row?.n as number;
      if (open === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(open, 0, "no edgecron connection left open after the events");
    assert.equal((await rows()).filter((r) => Number(r.slot) === T(3)).length, 1);
  });

  it("reaches the database through a Hyperdrive binding's connectionString, preferred over DATABASE_URL", async () => {
    await scheduled(T(5), "hyperdrive");
    const bySlot = new Map((await rows()).map((r) => [Number(r.slot), r]));
    assert.equal(bySlot.get(T(5))?.status, "ok");
    assert.equal(bySlot.get(T(4))?.status, "missed", "the minute both workers' triggers skipped is recorded");
    assert.notEqual(bySlot.get(T(5))?.node, bySlot.get(T(1))?.node, "another scheduler, the same claims");
  });
});
