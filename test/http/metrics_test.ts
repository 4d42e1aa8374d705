// GET /metrics, read back with a real Prometheus text-format parser.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { createMetrics, SCRAPE_PAGE } from "../../src/http/metrics.ts";
import { CHUNK_BYTES, textStream } from "../../src/http/docs.ts";
import { createManualClock, createScheduler } from "../../src/engine/mod.ts";
import { createMemoryStore } from "../../src/store/mod.ts";
import { edgecronRouter } from "../../src/http/mod.ts";
import { HOUR, quietLogger, T0, TOKEN } from "./_setup.ts";

interface Family {
  name: string;
  type: string;
  metrics: {
    labels?: Record<string, string>;
    value?: string;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }[];
}

function family(families: Family[], name: string): Family {
  const f = families.find((x) => x.name === name);
  assert.ok(f, `${name} is exposed`);
  return f;
}

function value(f: Family, labels: Record<string, string> = {}): number {
  const m = f.metrics.find((x) => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
  assert.ok(m, `${f.name}${JSON.stringify(labels)}`);
  return Number(m.value);
}

async function world() {
  const clock = createManualClock(T0);
  const metrics = createMetrics({ now: clock.now });
  const store = createMemoryStore();
  const scheduler = createScheduler({ clock, store, node: "n1", logger: quietLogger(), onEvent: metrics.onEvent })
    .job("quarter", { schedule: "*/15 * * * *", run: () => {} })
    .job("flaky", {
      schedule: "*/30 * * * *",
      run: ({ slot }) => {
        if (slot % (60 * 60_000) === 0) throw new Error("boom");
      },
    })
    .job("resting", { schedule: "@daily", run: () => {} });
  const app = edgecronRouter(scheduler, { token: TOKEN, now: clock.now, metrics, logger: quietLogger() });
  return { clock, store, scheduler, app };
}

describe("GET /metrics", () => {
  it("exposes runs by job and outcome, claims, store errors, tick and lateness histograms and jobs by state", async () => {
    const w = await world();
    await w.clock.set(T0 + 1); // registers the jobs just after T0's slots, so every run below is a late one
    await w.scheduler.tick();
    await w.scheduler.pause("resting");
    for (let i = 0; i < 4; i++) {
      await w.clock.set(T0 + (i + 1) * HOUR / 4 + 2_000); // each tick two seconds late
      await w.scheduler.tick();
    }
    w.store.setFailing(true);
    await w.scheduler.tick();
    w.store.setFailing(false);
    const res = await w.app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusTextFormat(await res.text()) as Family[];
    const runs = family(families, "edgecron_runs_total");
    assert.equal(runs.type, "COUNTER");
    assert.equal(value(runs, { job: "quarter", outcome: "ok" }), 4);
    assert.equal(value(runs, { job: "flaky", outcome: "ok" }), 1);
    assert.equal(value(runs, { job: "flaky", outcome: "error" }), 1);
    assert.equal(value(family(families, "edgecron_claims_total"), { result: "won" }), 6);
    assert.equal(value(family(families, "edgecron_claims_total"), { result: "lost" }), 0);
    assert.ok(value(family(families, "edgecron_store_errors_total")) >= 1);
    const lateness = family(families, "edgecron_lateness_seconds");
    assert.equal(lateness.type, "HISTOGRAM");
    const hist = lateness.metrics[0]!;
    assert.equal(Number(hist.count), 6);
    assert.equal(Number(hist.buckets!["1"]), 0, "none was under a second late");
    assert.equal(Number(hist.buckets!["2.5"]), 6, "all were two seconds late");
    assert.equal(family(families, "edgecron_tick_duration_seconds").type, "HISTOGRAM");
    const jobs = family(families, "edgecron_jobs");
    assert.equal(jobs.type, "GAUGE");
    assert.equal(value(jobs, { state: "active" }), 2);
    assert.equal(value(jobs, { state: "paused" }), 1);
  });

  it("lateness counts scheduled slots only: a backfill's and a manual run's are left out", async () => {
    // Each backfilled slot (days old by design) landed in +Inf, so the p99 meant nothing.
    const w = await world();
    await w.clock.set(T0 + 1);
    await w.scheduler.tick(); // registers the jobs
    await w.clock.set(T0 + 15 * 60_000 + 2_000);
    await w.scheduler.tick(); // quarter's slot, two seconds late
    await w.scheduler.backfill("resting", { from: T0 - 30 * 24 * HOUR, to: T0 - 24 * HOUR });
    await w.scheduler.run("quarter");
    const res = await w.app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    const families = parsePrometheusTextFormat(await res.text()) as Family[];
    assert.equal(value(family(families, "edgecron_runs_total"), { job: "resting", outcome: "ok" }), 29);
    const hist = family(families, "edgecron_lateness_seconds").metrics[0]!;
    assert.deepEqual([Number(hist.count), Number(hist.buckets!["2.5"])], [1, 1]);
  });

  it("needs the same token as the API, and is absent without metrics", async () => {
    const w = await world();
    assert.equal((await w.app.request("/metrics")).status, 401);
    const bare = edgecronRouter(w.scheduler, { token: TOKEN });
    assert.equal((await bare.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404);
  });

  it("escapes label values and never throws into the scheduler", () => {
    const metrics = createMetrics({ now: () => 0 });
    metrics.onEvent({ type: "succeeded", job: 'we"ird\\job', slot: 0, attempt: 1, durationMs: 5 });
    metrics.onEvent(null as never);
    const families = parsePrometheusTextFormat(metrics.render()) as Family[];
    assert.equal(value(family(families, "edgecron_runs_total"), { job: 'we"ird\\job', outcome: "ok" }), 1);
  });

  it("keeps a job name with a newline in one series", () => {
    const metrics = createMetrics({ now: () => 0 });
    metrics.onEvent({ type: "succeeded", job: "two\nlines", slot: 0, attempt: 1, durationMs: 5 });
    metrics.onEvent(
      { type: "failed", job: "two\nlines", slot: 60_000, attempt: 1, error: "x", willRetry: false } as never,
    );
    const text = metrics.render();
    const families = parsePrometheusTextFormat(text) as Family[];
    const runs = family(families, "edgecron_runs_total");
    assert.equal(runs.metrics.length, 2);
    assert.equal(value(runs, { job: "two\nlines", outcome: "ok" }), 1);
    assert.equal(value(runs, { job: "two\nlines", outcome: "error" }), 1);
  });

  it("drops the runs series of a job that no longer exists at the next scrape", async () => {
    const w = await world();
    const metrics = createMetrics({ now: w.clock.now });
    metrics.onEvent({ type: "succeeded", job: "quarter", slot: 0, attempt: 1, durationMs: 5 });
    metrics.onEvent({ type: "succeeded", job: "deleted-long-ago", slot: 0, attempt: 1, durationMs: 5 });
    assert.match(metrics.render(), /deleted-long-ago/);
    const families = parsePrometheusTextFormat(await metrics.scrape(w.scheduler)) as Family[];
    const runs = family(families, "edgecron_runs_total");
    assert.deepEqual(runs.metrics.map((m) => m.labels?.["job"]), ["quarter"]);
    assert.doesNotMatch(metrics.render(), /deleted-long-ago/);
  });

  it("scrapes 2 500 jobs in pages of at most SCRAPE_PAGE (1 000), one store tally per page (no run rows, no full descriptions), with a turn of the event loop between pages", async () => {
    const clock = createManualClock(T0);
    const store = createMemoryStore();
    const tallies: number[] = [];
    let otherReads = 0;
    let turns = 0;
    const { tally, read, overview } = store;
    // The turns a timer set before the scrape had taken when each page was read; each page
    // takes 2 ms of wall time, so that timer is due by the next page.
    const seen: number[] = [];
    store.tally = (names, now) => {
      tallies.push(names.length);
      seen.push(turns);
      const until = performance.now() + 2;
      while (performance.now() < until);
      return tally(names, now);
    };
    store.read = (names) => {
      otherReads++;
      return read(names);
    };
    store.overview = (names, query) => {
      otherReads++;
      return overview(names, query);
    };
    const metrics = createMetrics({ now: clock.now });
    const scheduler = createScheduler({ clock, store, logger: quietLogger(), onEvent: metrics.onEvent });
    for (let i = 0; i < 2_500; i++) {
      scheduler.job(`job-${String(i).padStart(4, "0")}`, { schedule: "* * * * *", run: () => {} });
    }
    await scheduler.ready();
    // A timer set before the scrape (as a heartbeat is): it can only run where the scrape
    // gives the event loop a turn.
    turns = 0;
    let on = true;
    const spin = (): void => {
      turns++;
      if (on) setTimeout(spin, 0);
    };
    setTimeout(spin, 0);
    const text = await metrics.scrape(scheduler);
    on = false;
    // Each page reads its own jobs and one more (the next page's first name says whether there is one).
    const pages = Math.ceil(2_500 / SCRAPE_PAGE);
    const expected = Array.from({ length: pages }, (_, i) => Math.min(SCRAPE_PAGE + 1, 2_500 - i * SCRAPE_PAGE));
    assert.deepEqual(tallies, expected, "each page tallies its own jobs only, once");
    assert.equal(otherReads, 0, "no read() or overview(): the tally is all a page needs");
    // The host's turn lets due timers run (a heartbeat during a large scrape), not only I/O.
    assert.ok(seen.at(-1)! > seen[0]!, `the timer ran between pages (its turns at each page: ${seen.join(", ")})`);
    assert.equal(
      value(family(parsePrometheusTextFormat(text) as Family[], "edgecron_jobs"), { state: "active" }),
      2_500,
    );
  });
});

describe("GET /metrics stream", () => {
  it("encodes the pieces in chunks of at most CHUNK_BYTES, never splitting a character, and decodes to their text", async () => {
    // A piece that overflows the first chunk by a few bytes of multi-byte characters, then small ones.
    const pieces = ["a".repeat(CHUNK_BYTES - 3), "é€😀x", "", "ü\n", "b".repeat(CHUNK_BYTES + 5), "end"];
    const reader = textStream(pieces).getReader();
    const chunks: Uint8Array[] = [];
    for (let c = await reader.read(); !c.done; c = await reader.read()) chunks.push(c.value);
    assert.ok(chunks.length >= 3, `${chunks.length} chunks`);
    for (const chunk of chunks) {
      assert.ok(chunk.length <= CHUNK_BYTES);
      // Each chunk decodes on its own: no character is split between two.
      new TextDecoder("utf-8", { fatal: true }).decode(chunk);
    }
    const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    assert.equal(new TextDecoder().decode(bytes), pieces.join(""));
  });
});
