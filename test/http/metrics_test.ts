// GET /metrics, read back with a real Prometheus text-format parser.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { createMetrics } from "../../src/http/metrics.ts";
import { createManualClock, createScheduler } from "../../src/engine/mod.ts";
import { createMemoryStore } from "../../src/store/mod.ts";
import { edgecronRouter } from "../../src/http/mod.ts";
import { HOUR, quietLogger, T0, TOKEN } from "./_setup.ts";

interface Family {
  name: string;
  type: string;
  metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string; sum?: string }[];
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
    .job("flaky", { schedule: "*/30 * * * *", run: ({ slot }) => { if (slot % (60 * 60_000) === 0) throw new Error("boom"); } })
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
});
