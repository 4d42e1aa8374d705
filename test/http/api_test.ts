import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { JobInfo, TickReport } from "../../src/engine/types.ts";
import type { RunRecord } from "../../src/store/types.ts";
import { errorOf, HOUR, json, setup, T0 } from "./_setup.ts";

describe("GET /health", () => {
  it("answers 200 when healthy and 503 with only an error code once the store fails", async () => {
    const f = setup();
    const ok = await f.call("GET", "/health");
    assert.equal(ok.status, 200);
    assert.equal((await ok.json() as { ok: boolean; node: string }).node, "node-a");
    f.store.setFailing(true);
    await f.scheduler.tick();
    const bad = await f.call("GET", "/health");
    assert.equal(bad.status, 503);
    const body = await bad.json() as { ok: boolean; lastError?: string };
    assert.equal(body.ok, false);
    assert.ok(body.lastError === undefined || /^[a-z-]+$/.test(body.lastError), `no internal text: ${body.lastError}`);
  });
});

describe("GET /jobs and /jobs/:name", () => {
  it("lists every job with next slots", async () => {
    const f = setup();
    const { jobs } = await (await f.call("GET", "/jobs?next=2")).json() as { jobs: JobInfo[] };
    assert.deepEqual(jobs.map((j) => j.name).sort(), ["failing", "hourly"]);
    const hourly = jobs.find((j) => j.name === "hourly")!;
    assert.deepEqual(hourly.next, [T0 + HOUR, T0 + 2 * HOUR]);
  });

  it("describes one job with its next 10 slots", async () => {
    const f = setup();
    const info = await (await f.call("GET", "/jobs/failing")).json() as JobInfo;
    assert.equal(info.name, "failing");
    assert.equal(info.next.length, 10);
    assert.deepEqual(info.next.slice(0, 3), [T0 + 15 * 60_000, T0 + 30 * 60_000, T0 + 45 * 60_000]);
  });

  it("answers 404 for an unknown job and 400 for a bad name or query", async () => {
    const f = setup();
    const missing = await f.call("GET", "/jobs/nope");
    assert.equal(missing.status, 404);
    assert.deepEqual(await errorOf(missing), {
      code: "unknown-job",
      message: 'job "nope" does not exist',
      path: "params.name",
    });
    for (const bad of ["/jobs/a%00b", "/jobs/a%0Ab", "/jobs/tab%09", "/jobs/%7F", `/jobs/${"x".repeat(129)}`]) {
      const res = await f.call("GET", bad);
      assert.equal(res.status, 400, bad);
      assert.equal((await errorOf(res)).path, "params.name");
    }
    for (
      const [q, path] of [["next=0", "query.next"], ["next=abc", "query.next"], ["next=1&next=2", "query.next"], [
        "bogus=1",
        "query.bogus",
      ]]
    ) {
      const res = await f.call("GET", `/jobs?${q}`);
      assert.equal(res.status, 400, q);
      assert.equal((await errorOf(res)).path, path);
    }
  });
});

describe("GET /jobs/:name/runs", () => {
  it("pages through the run history, newest first", async () => {
    const f = setup();
    await f.scheduler.tick(); // the store first sees the jobs at T0, and runs that slot
    for (let i = 0; i < 3; i++) {
      await f.clock.advance(HOUR);
      await f.scheduler.tick();
    }
    const page = await (await f.call("GET", "/jobs/hourly/runs?limit=2")).json() as {
      runs: RunRecord[];
      nextBefore: number | null;
    };
    assert.deepEqual(page.runs.map((r) => r.slot), [T0 + 3 * HOUR, T0 + 2 * HOUR]);
    assert.equal(page.nextBefore, T0 + 2 * HOUR);
    const older = await (await f.call("GET", `/jobs/hourly/runs?before=${page.nextBefore}`)).json() as {
      runs: RunRecord[];
      nextBefore: null;
    };
    assert.deepEqual(older.runs.map((r) => r.slot), [T0 + HOUR, T0]);
    assert.equal(older.nextBefore, null);
    const iso = await (await f.call("GET", `/jobs/hourly/runs?before=${new Date(T0 + 2 * HOUR).toISOString()}`))
      .json() as { runs: RunRecord[] };
    assert.deepEqual(iso.runs.map((r) => r.slot), [T0 + HOUR, T0]);
  });

  it("refuses bad limits and instants, and unknown jobs", async () => {
    const f = setup();
    for (const q of ["limit=0", "limit=1001", "limit=-1", "limit=1.5", "before=yesterday", "order=asc"]) {
      const res = await f.call("GET", `/jobs/hourly/runs?${q}`);
      assert.equal(res.status, 400, q);
      assert.match((await errorOf(res)).path ?? "", /^query\./);
    }
    assert.equal((await f.call("GET", "/jobs/nope/runs")).status, 404);
  });

  it("pages on with a negative nextBefore (a backfill before 1970), and takes ISO instants only with an offset", async () => {
    const f = setup();
    await f.scheduler.backfill("hourly", { from: -3 * HOUR, to: 0 });
    const page = await (await f.call("GET", "/jobs/hourly/runs?limit=2")).json() as {
      runs: RunRecord[];
      nextBefore: number;
    };
    assert.deepEqual(page.runs.map((r) => r.slot), [-HOUR, -2 * HOUR]);
    assert.equal(page.nextBefore, -2 * HOUR);
    for (const before of [String(page.nextBefore), "1969-12-31T22:00:00Z", "1969-12-31T23:00:00%2B01:00"]) {
      const older = await f.call("GET", `/jobs/hourly/runs?before=${before}`);
      assert.equal(older.status, 200, before);
      assert.deepEqual((await older.json() as { runs: RunRecord[] }).runs.map((r) => r.slot), [-3 * HOUR], before);
    }
    const minus5 = await (await f.call("GET", "/jobs/hourly/runs?before=-5")).json() as { runs: RunRecord[] };
    assert.deepEqual(
      minus5.runs.map((r) => r.slot),
      [-HOUR, -2 * HOUR, -3 * HOUR],
      "-5 is 5 ms before 1970, not May 2001",
    );
  });

  it("refuses a before that is not epoch ms or an ISO instant with an offset (no Date.parse guesses), naming before", async () => {
    const f = setup();
    for (const before of ["-5x", "hello%201", "12/25", "2026-11-30T12:00:00", "2026-11-30", "1.5", "1e3", "", "-"]) {
      const res = await f.call("GET", `/jobs/hourly/runs?before=${before}`);
      assert.equal(res.status, 400, before);
      const error = await errorOf(res);
      assert.equal(error.path, "query.before", before);
      assert.match(
        error.message,
        /^query\.before: expected epoch milliseconds or an ISO-8601 instant with Z or an offset, got /,
      );
    }
  });
});

describe("POST /jobs/:name/run", () => {
  it("runs a job now and returns its outcome", async () => {
    const f = setup();
    const ok = await f.call("POST", "/jobs/hourly/run", json({ mode: "force" }));
    assert.deepEqual(await ok.json(), {
      ok: true,
      job: "hourly",
      slot: T0,
      slotIso: "2026-11-30T12:00:00.000Z",
      outcome: "ok",
    });
  });

  it("answers 502 for a run that ended in error and 504 for a timeout, keeping outcome and error text", async () => {
    const f = setup();
    const failed = await f.call("POST", "/jobs/failing/run");
    assert.equal(failed.status, 502);
    const body = await failed.json() as { outcome: string; error: string };
    assert.equal(body.outcome, "error");
    assert.match(body.error, /boom: disk full/);
    f.scheduler.job("slow", {
      schedule: "@daily",
      timeout: "1s",
      run: ({ signal }) =>
        new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))),
    });
    let answered: Response | undefined;
    const pending = f.call("POST", "/jobs/slow/run").then((r) => (answered = r));
    for (let i = 0; i < 10 && answered === undefined; i++) await f.clock.advance(500);
    const slow = await pending;
    assert.equal(slow.status, 504);
    const timedOut = await slow.json() as { outcome: string; error: string | null };
    assert.equal(timedOut.outcome, "timeout");
    assert.equal(typeof timedOut.error, "string");
  });

  it("answers 409 with the reason while the job is already running", async () => {
    const f = setup();
    let release!: () => void;
    f.scheduler.job("slow", {
      schedule: "@daily",
      run: () =>
        new Promise<void>((r) => {
          release = r;
        }),
    });
    const first = f.call("POST", "/jobs/slow/run");
    await f.clock.settle();
    const second = await f.call("POST", "/jobs/slow/run");
    assert.equal(second.status, 409);
    assert.deepEqual(await errorOf(second), {
      code: "already-running",
      message: 'job "slow" was not run: already running',
    });
    release();
    assert.equal((await first).status, 200);
  });

  it("answers 409 not-due for mode due between slots, 404 for unknown, 400 for bad bodies", async () => {
    const f = setup();
    await f.clock.advance(60_000);
    const due = await f.call("POST", "/jobs/hourly/run", json({ mode: "due" }));
    assert.equal(due.status, 409);
    assert.equal((await errorOf(due)).code, "not-due");
    assert.equal((await f.call("POST", "/jobs/nope/run")).status, 404);
    const bad = await f.call("POST", "/jobs/hourly/run", json({ mode: "now" }));
    assert.equal(bad.status, 400);
    assert.equal((await errorOf(bad)).path, "mode");
    const extra = await f.call("POST", "/jobs/hourly/run", json({ mode: "force", at: 5 }));
    assert.deepEqual(await errorOf(extra), { code: "invalid-request", message: "at: unknown field", path: "at" });
  });
});

describe("POST /jobs/:name/pause and /resume", () => {
  it("persists the flag in the store so a tick skips the job", async () => {
    const f = setup();
    await f.scheduler.tick();
    assert.deepEqual(await (await f.call("POST", "/jobs/hourly/pause")).json(), { job: "hourly", paused: true });
    assert.equal((await f.scheduler.get("hourly"))!.paused, true);
    await f.clock.advance(HOUR);
    const report = await f.scheduler.tick();
    assert.deepEqual(report.jobs["hourly"]?.run ?? [], []);
    assert.deepEqual(await (await f.call("POST", "/jobs/hourly/resume")).json(), { job: "hourly", paused: false });
    assert.equal((await f.scheduler.get("hourly"))!.paused, false);
    await f.clock.advance(HOUR);
    assert.deepEqual((await f.scheduler.tick()).jobs["hourly"]?.run, [T0 + 2 * HOUR]);
  });

  it("answers 404 for unknown jobs and 400 for any body field", async () => {
    const f = setup();
    assert.equal((await f.call("POST", "/jobs/nope/pause")).status, 404);
    const res = await f.call("POST", "/jobs/hourly/resume", json({ force: true }));
    assert.equal(res.status, 400);
    assert.equal((await errorOf(res)).path, "force");
  });
});

describe("POST /tick", () => {
  it("runs due slots and returns the report", async () => {
    const f = setup();
    await f.scheduler.tick();
    await f.clock.advance(HOUR);
    const report = await (await f.call("POST", "/tick")).json() as TickReport;
    assert.equal(report.ok, true);
    assert.deepEqual(report.jobs["hourly"]?.run, [T0 + HOUR]);
  });

  it("refuses a client-chosen time and answers 503 without internals when the store fails", async () => {
    const f = setup();
    const res = await f.call("POST", "/tick", json({ now: T0 + 24 * HOUR }));
    assert.equal(res.status, 400);
    assert.equal((await errorOf(res)).path, "now");
    f.store.setFailing(true);
    const down = await f.call("POST", "/tick");
    assert.equal(down.status, 503);
    assert.deepEqual(await errorOf(down), { code: "store-error", message: "the store is unavailable; no slot ran" });
  });
});
