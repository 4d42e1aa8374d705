// Read load must not block the scheduler: while autocannon hammers GET /jobs and the
// dashboard for 20 s on the process that also runs a 1-second heartbeat (1 000 jobs,
// libSQL file), every heartbeat second gets its one row and no slot fails. Whether a
// loaded machine runs each slot within its second is speed, so `missed` rows and the
// event loop's delay are printed, not asserted (`npm run bench:http` measures speed).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heartbeatRecord, load, type LoadServer, startLoadServer } from "../../bench/_http_load.ts";

let dir = "";
let server: LoadServer;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "edgecron-http-load-"));
  server = await startLoadServer({ db: `file:${dir}/load.db`, jobs: 1000 });
  await new Promise((r) => setTimeout(r, 3_000)); // the first ticks
});

after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("HTTP load beside the scheduler", () => {
  it("misses no heartbeat slot while GET /jobs and the dashboard are under load", async () => {
    await server.loopDelay(); // from here on
    const start = Date.now();
    // A long request timeout: on a loaded machine a queued dashboard render can take
    // seconds, which is speed, not an error of the code.
    const results = await Promise.all([load(server, "/jobs", 20, 25, 60), load(server, "/", 20, 25, 60)]);
    const end = Date.now();
    const delay = await server.loopDelay();
    await new Promise((r) => setTimeout(r, 2_500)); // the last slots settle
    for (const r of results) assert.ok(r.rps > 0 && r.errors === 0 && r.non2xx === 0, JSON.stringify(r));
    const beat = await heartbeatRecord(server, start, end);
    console.log(
      `heartbeat under load: ${beat.rows} slots in ${((end - start) / 1000).toFixed(0)} s ${
        JSON.stringify(beat.statuses)
      }; GET /jobs ${results[0]!.rps.toFixed(0)} req/s, dashboard ${
        results[1]!.rps.toFixed(0)
      } req/s; event loop delay ${JSON.stringify(delay)} ms`,
    );
    // The loop delay under autocannon is printed, not asserted: with 50 connections on a
    // 2-core machine it measures the machine's load as much as the code. What the code
    // owes, that no single read holds the loop over 50 ms, is asserted request by request
    // (longest block, CPU-bounded) at 20 000 jobs in http_stall_test.ts.
    assert.ok(beat.rows >= 18, `${beat.rows} rows`);
    assert.equal(beat.gaps, 0, "every second has its row");
    assert.deepEqual(Object.keys(beat.statuses).filter((s) => s !== "ok" && s !== "missed"), [], "no slot failed");
  });
});
