// Run-ahead on Miniflare, for about a minute (the Deno.cron run-ahead test lives in
// deno_test.ts, where it shares the examples' wait for a real minute):
// - Miniflare (workerd): two Worker instances on one libSQL store (over HTTP) get one
//   `scheduled` event a minute, one of them twice; a `*/10 * * * * *` job must record
//   six `ok` slots a minute, each run once. Prints lateness p50/p99.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
// @ts-ignore: plain JS module shared with npm run build
import { bundles } from "../../scripts/build.mjs";
import { type HranaServer, startHranaServer } from "../adapters/_hrana_server.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const MINUTE = 60_000;
const SEC = 1_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

interface ScheduledFetcher {
  scheduled(options: { scheduledTime: Date; cron: string }): Promise<{ outcome: string }>;
}

describe("run-ahead on a one-minute trigger", { concurrency: true }, () => {
  const dir = mkdtempSync(join(tmpdir(), "edgecron-run-ahead-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("Miniflare: two instances, one event a minute (one delivered twice), six ok slots a minute, each once", async () => {
    // Inside the repository: workerd refuses module paths that climb out of the script's folder.
    const outfile = `${root}test/artifacts/run-ahead/worker.mjs`;
    const { shrink: _shrink, ...options } = bundles.worker as Record<string, unknown>;
    await build(
      {
        ...options,
        entryPoints: [`${root}test/integration/fixtures/run_ahead_worker.ts`],
        outfile,
        minify: false,
      } as Parameters<typeof build>[0],
    );
    const db: HranaServer = await startHranaServer(join(dir, "edgecron.db"));
    const instance = (node: string) =>
      new Miniflare({
        modules: true,
        scriptPath: outfile,
        compatibilityDate: "2025-09-01",
        bindings: { LIBSQL_URL: db.url, NODE: node },
      });
    const [a, b] = [instance("a"), instance("b")];
    try {
      const call = async (mf: Miniflare, path: string): Promise<{ slot: number; lateMs: number }[]> =>
        await (await mf.dispatchFetch(`http://w${path}`, { method: "POST" })).json() as {
          slot: number;
          lateMs: number;
        }[];
      const fire = async (mf: Miniflare, at: number): Promise<void> => {
        const w = await mf.getWorker() as unknown as ScheduledFetcher;
        const result = await w.scheduled({ scheduledTime: new Date(at), cron: "* * * * *" });
        assert.equal(result.outcome, "ok");
      };
      // Boot both isolates first, then shift their clocks so that worker time M (a
      // minute boundary) comes 10 s from now, and deliver an event 8 s before M to both:
      // it registers the job (a new job never runs slots from before it existed), runs
      // what is due before M, and warms each isolate's scheduled path. The 8 s are slack
      // for a loaded machine: with 1 s, an event whose store calls over the test's HTTP
      // server ran late left a run of the minute before M live at M (it started at M +
      // 431 ms), and M's own slot was rightly recorded `skipped` (overlap), 2 full runs of 3.
      await Promise.all([call(a, "/"), call(b, "/")]);
      const M = Math.ceil((Date.now() + 60 * SEC) / MINUTE) * MINUTE;
      const offset = M - (Date.now() + 10 * SEC);
      await Promise.all([call(a, `/offset?ms=${offset}`), call(b, `/offset?ms=${offset}`)]);
      await Promise.all([fire(a, M - 8 * SEC), fire(b, M - 8 * SEC)]);
      await sleep(M - (Date.now() + offset));
      await Promise.all([fire(a, M), fire(b, M), fire(a, M)]);
      // The next minute's trigger: its first slot (the boundary) must run once, not twice.
      await sleep(M + MINUTE - (Date.now() + offset));
      void fire(a, M + MINUTE).catch(() => {});
      void fire(b, M + MINUTE).catch(() => {});
      // Read through the store's own API, on the file the HTTP server serves.
      const store = libsqlStore({ url: `file:${join(dir, "edgecron.db")}` });
      let rows: {
        slot: number;
        status: string;
        attempt: number;
        node: string;
        startedAt: number;
        finishedAt: number | null;
        leaseUntil: number | null;
      }[] = [];
      for (let i = 0; i < 50; i++) {
        rows = (await store.runs("every-10s", { limit: 100 })).filter((r) => r.slot >= M && r.slot <= M + MINUTE)
          .reverse();
        if (rows.some((r) => r.slot === M + MINUTE && r.status === "ok")) break;
        await sleep(200);
      }
      await store.close();
      const expected = [0, 10, 20, 30, 40, 50, 60].map((s) => M + s * SEC);
      assert.deepEqual(
        rows.map((r) => [r.slot, r.status, r.attempt]),
        expected.map((s) => [s, "ok", 1]),
        `one ok row per slot: ${
          JSON.stringify(
            await (async () => {
              const st = libsqlStore({ url: `file:${join(dir, "edgecron.db")}` });
              const all = await st.runs("every-10s", { limit: 100 });
              await st.close();
              return all.map((r) => ({
                ...r,
                slot: (r.slot - M) / 1000,
                startedAt: r.startedAt - M,
                finishedAt: r.finishedAt === null ? null : r.finishedAt - M,
                leaseUntil: r.leaseUntil === null ? null : r.leaseUntil - M,
                claimedAt: r.claimedAt - M,
              }));
            })(),
          )
        }`,
      );
      const ran = [...await call(a, "/"), ...await call(b, "/")]
        .filter((r) => r.slot >= M && r.slot <= M + MINUTE);
      assert.deepEqual(
        ran.map((r) => r.slot).sort((x, y) => x - y),
        expected,
        "each slot ran once across both instances",
      );
      const late = ran.map((r) => r.lateMs);
      console.log(
        `# run-ahead Miniflare: ${rows.length} ok slots for ${expected.length} planned; lateness p50 ${
          percentile(late, 50)
        } ms, p99 ${percentile(late, 99)} ms (n=${late.length}); per slot ${
          ran.map((r) => `${(r.slot - M) / SEC}s:${r.lateMs}`).join(" ")
        }`,
      );
    } finally {
      await Promise.allSettled([a.dispose(), b.dispose()]);
      await db.close();
    }
  });
});
