// `npm run bench:http`: the real Node server with 1 000 jobs and a 1-second heartbeat on
// a libSQL file, under autocannon (50 connections, gzip accepted) on GET /jobs, the
// dashboard and one job's runs. Prints req/s, latencies, bytes, the server's RSS growth
// and the heartbeat's missed slots during the load, against the targets of issue 9.
//
// BENCH_ROOT=/path/to/other/checkout runs the same load against that code (before/after);
// BENCH_SECONDS (default 15) is the time per endpoint.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heartbeatRecord, load, type LoadResult, startLoadServer } from "./_http_load.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const root = process.env.BENCH_ROOT;
const dir = mkdtempSync(join(tmpdir(), "edgecron-bench-http-"));
const server = await startLoadServer({ db: `file:${dir}/bench.db`, ...(root ? { root } : {}) });
console.log(
  `bench:http ${
    root ? `(code: ${root}) ` : ""
  }${process.version}, 1 000 jobs, 50 connections, ${seconds} s per endpoint, server ${server.url}`,
);
try {
  await new Promise((r) => setTimeout(r, 3_000)); // first ticks, a few heartbeat rows
  const rssBefore = server.rssMiB();
  const start = Date.now();
  const results: LoadResult[] = [];
  for (const path of ["/jobs", "/", "/jobs/heartbeat/runs"]) {
    results.push(await load(server, path, seconds));
  }
  const end = Date.now();
  const rssAfter = server.rssMiB();
  await new Promise((r) => setTimeout(r, 2_500)); // let the last slots settle
  const beat = await heartbeatRecord(server, start, end);
  const kib = (n: number): string => `${(n / 1024).toFixed(1)} KiB`;
  console.log("| endpoint | req/s | p50 ms | p99 ms | bytes/response (gzip) | errors | non-2xx |");
  console.log("|---|--:|--:|--:|--:|--:|--:|");
  for (const r of results) {
    console.log(
      `| GET ${r.path} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${
        kib(r.bytesPerRequest)
      } | ${r.errors} | ${r.non2xx} |`,
    );
  }
  console.log(
    `server RSS: ${rssBefore.toFixed(0)} MiB before, ${rssAfter.toFixed(0)} MiB after (growth ${
      (rssAfter - rssBefore).toFixed(0)
    } MiB)`,
  );
  console.log(
    `heartbeat during the load (${((end - start) / 1000).toFixed(0)} s): ${beat.rows} rows ${
      JSON.stringify(beat.statuses)
    }, ${beat.missed} missed, ${beat.gaps} seconds without a row`,
  );
  const jobs = results[0]!;
  const page = results[1]!;
  const checks = [
    [`GET /jobs >= 1000 req/s`, jobs.rps >= 1000],
    [`GET /jobs p99 < 100 ms`, jobs.p99 < 100],
    [`dashboard >= 200 req/s`, page.rps >= 200],
    [`RSS growth < 50 MiB`, rssAfter - rssBefore < 50],
    [`zero missed heartbeat slots`, beat.missed === 0 && beat.gaps === 0],
  ] as const;
  for (const [what, ok] of checks) console.log(`${ok ? "met   " : "MISSED"} ${what}`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
