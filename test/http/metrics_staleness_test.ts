// The staleness series of GET /metrics come from the store: two nodes report the same.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { createMetrics } from "../../src/http/metrics.ts";
import { createManualClock, createScheduler } from "../../src/engine/mod.ts";
import { createMemoryStore } from "../../src/store/mod.ts";
import { edgecronRouter } from "../../src/http/mod.ts";
import { quietLogger, T0, TOKEN } from "./_setup.ts";

const MIN = 60_000;

interface Family {
  name: string;
  metrics: { labels?: Record<string, string>; value?: string }[];
}

function series(text: string, name: string): Record<string, number> {
  const families = parsePrometheusTextFormat(text) as Family[];
  const f = families.find((x) => x.name === name);
  const out: Record<string, number> = {};
  for (const m of f?.metrics ?? []) out[Object.values(m.labels ?? {}).join("/")] = Number(m.value);
  return out;
}

describe("GET /metrics staleness series", () => {
  it("last success, next run and skips by reason are read from the store, the same on every node", async () => {
    // Registered just after a minute: a new job plans [registered, now], so the first tick runs no slot.
    const clock = createManualClock(T0 - MIN + 1);
    const store = createMemoryStore();
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const node = (id: string) => {
      const metrics = createMetrics({ now: clock.now });
      let fail = false;
      const scheduler = createScheduler({ clock, store, node: id, logger: quietLogger(), onEvent: metrics.onEvent })
        .job("ok", { schedule: "* * * * *", run: () => {} })
        .job("flaky", {
          schedule: "* * * * *",
          run: () => {
            if (fail) throw new Error("down");
          },
        })
        .job("late", { schedule: "* * * * *", catchUp: { mode: "latest" }, run: () => {} })
        .job("hold", { schedule: "* * * * *", timeout: "1h", run: () => gate })
        .job("never", { schedule: "0 0 1 1 *", endAt: T0 + 1, run: () => {} });
      const app = edgecronRouter(scheduler, { token: TOKEN, now: clock.now, metrics, logger: quietLogger() });
      return { scheduler, app, setFail: (v: boolean) => (fail = v) };
    };
    const a = node("a"), b = node("b");
    await clock.set(T0 - MIN + 1);
    await a.scheduler.tick();
    await clock.set(T0);
    void a.scheduler.tick();
    await clock.advance(100);
    a.setFail(true);
    await clock.set(T0 + MIN);
    void a.scheduler.tick();
    await clock.advance(100);
    // Three minutes down: "latest" runs the newest and records two slots missed.
    await clock.set(T0 + 4 * MIN);
    void a.scheduler.tick();
    await clock.advance(100);

    const scrape = async (app: typeof a.app): Promise<string> =>
      await (await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const fromA = await scrape(a.app), fromB = await scrape(b.app);

    const success = series(fromA, "edgecron_last_success_timestamp_seconds");
    assert.equal(success["ok"], (T0 + 4 * MIN) / 1000);
    // flaky failed at T0 + 1 min and after: its last success is the T0 run, found in its history.
    assert.equal(success["flaky"], T0 / 1000);
    assert.equal(success["hold"], undefined, "never finished: no success");
    assert.equal(success["never"], undefined);
    const next = series(fromA, "edgecron_next_run_timestamp_seconds");
    assert.equal(next["ok"], (T0 + 5 * MIN) / 1000);
    assert.equal(next["never"], undefined, "an ended job has no next run");
    const skipped = series(fromA, "edgecron_skipped_total");
    assert.equal(skipped["late/catch-up"], 2);
    // hold's first run is still live: each slot that would run is skipped, older ones missed.
    assert.equal(skipped["hold/overlap"], 2);
    assert.equal(skipped["hold/catch-up"], 2);
    assert.equal(skipped["ok/overlap"], 0);
    assert.equal(skipped["hold/buffer-full"], 0, "a skip policy never fills a buffer");

    const staleness = (text: string): string =>
      text.split("\n").filter((l) => /^edgecron_(last_success|next_run|skipped)/.test(l)).join("\n");
    assert.equal(staleness(fromB), staleness(fromA));
    assert.ok(staleness(fromA).length > 0);
    release();
  });

  it("skips a full buffer dropped are counted as buffer-full, apart from overlap, on every node alike", async () => {
    const clock = createManualClock(T0 - MIN + 1);
    const store = createMemoryStore();
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = { schedule: "* * * * *", timeout: "1h", catchUp: { mode: "all" }, run: () => gate } as const;
    const node = (id: string) => {
      const metrics = createMetrics({ now: clock.now });
      const scheduler = createScheduler({ clock, store, node: id, logger: quietLogger(), onEvent: metrics.onEvent })
        .job("all", { ...held, overlap: "bufferAll", bufferLimit: 1 })
        .job("one", { ...held, overlap: "bufferOne" })
        .job("skip", { ...held, overlap: "skip" });
      return {
        scheduler,
        app: edgecronRouter(scheduler, { token: TOKEN, now: clock.now, metrics, logger: quietLogger() }),
      };
    };
    const a = node("a"), b = node("b");
    await a.scheduler.tick();
    // T0 runs and holds; T0 + 1 min waits in each buffer; T0 + 2 and + 3 min find them full.
    for (const at of [T0, T0 + MIN, T0 + 3 * MIN]) {
      await clock.set(at);
      void (at === T0 + MIN ? b : a).scheduler.tick();
      await clock.advance(100);
    }
    const scrape = async (app: typeof a.app): Promise<string> =>
      await (await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const fromA = await scrape(a.app), fromB = await scrape(b.app);
    const skipped = series(fromA, "edgecron_skipped_total");
    assert.deepEqual(
      ["all", "one", "skip"].map((job) => [job, skipped[`${job}/overlap`], skipped[`${job}/buffer-full`]]),
      [["all", 0, 2], ["one", 0, 2], ["skip", 3, 0]],
    );
    assert.equal(series(fromB, "edgecron_skipped_total")["all/buffer-full"], 2);
    const lines = (text: string): string => text.split("\n").filter((l) => l.startsWith("edgecron_skipped")).join("\n");
    assert.equal(lines(fromB), lines(fromA));
    release();
  });
});
