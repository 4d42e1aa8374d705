// The staleness series of GET /metrics come from the store: two nodes report the same.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { createMetrics } from "../../src/http/metrics.ts";
import { createStalenessCollector, type StalenessCache } from "../../src/http/metrics_staleness.ts";
import type { JobSummary, Scheduler } from "../../src/engine/types.ts";
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

  it("the next run follows the clock from scrape to scrape, and a redefined job's schedule at once", async () => {
    const clock = createManualClock(T0 + 1);
    const metrics = createMetrics({ now: clock.now });
    const scheduler = createScheduler({
      clock,
      logger: quietLogger(),
      onEvent: metrics.onEvent,
      webhookSecret: "a long enough secret for the test",
    });
    const target = { url: "https://example.test/hook", method: "POST" as const };
    await scheduler.define("a", { schedule: "*/5 * * * *", target });
    const next = async (): Promise<number | undefined> =>
      series(await metrics.scrape(scheduler), "edgecron_next_run_timestamp_seconds")["a"];
    assert.equal(await next(), (T0 + 5 * MIN) / 1000);
    await clock.set(T0 + 4 * MIN);
    assert.equal(await next(), (T0 + 5 * MIN) / 1000, "no slot passed: the same next run");
    await clock.set(T0 + 5 * MIN);
    assert.equal(await next(), (T0 + 10 * MIN) / 1000, "at the slot itself, the one after");
    await clock.set(T0 + 5 * MIN + 1);
    assert.equal(await next(), (T0 + 10 * MIN) / 1000);
    await scheduler.define("a", { schedule: "*/2 * * * *", target });
    assert.equal(await next(), (T0 + 6 * MIN) / 1000, "redefined: the new schedule's next slot");
    await scheduler.close();
  });

  it("a scrape reuses no line whose value changed: each scrape's lines are a fresh sink's", async () => {
    const clock = createManualClock(T0 - MIN + 1);
    const store = createMemoryStore();
    let release = (): void => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let fail = false;
    const target = { url: "https://example.test/hook", method: "POST" as const };
    const node = () => {
      const metrics = createMetrics({ now: clock.now });
      const scheduler = createScheduler({
        clock,
        store,
        logger: quietLogger(),
        onEvent: metrics.onEvent,
        webhookSecret: "a long enough secret for the test",
      })
        .job("ok", {
          schedule: "* * * * *",
          run: () => {
            if (fail) throw new Error("down");
          },
        })
        .job("hold", { schedule: "* * * * *", timeout: "1h", run: () => gate });
      return { metrics, scheduler };
    };
    const a = node();
    await a.scheduler.define("gone", { schedule: "0 0 1 1 *", target });
    const staleness = (text: string): string =>
      text.split("\n").filter((l) => /^edgecron_(last_success|next_run|skipped)/.test(l)).join("\n");
    const fresh = async (): Promise<string> => {
      const b = node();
      try {
        return staleness(await b.metrics.scrape(b.scheduler));
      } finally {
        await b.scheduler.close();
      }
    };
    await a.scheduler.tick();
    const seen: string[] = [];
    for (const step of [0, 1, 2, 3]) {
      if (step === 2) fail = true;
      if (step === 3) await a.scheduler.undefine("gone");
      await clock.set(T0 + step * MIN);
      void a.scheduler.tick();
      await clock.advance(100);
      const text = staleness(await a.metrics.scrape(a.scheduler));
      assert.equal(text, await fresh(), `scrape ${step}`);
      seen.push(text);
    }
    assert.equal(new Set(seen).size, 4, "every step changed some line");
    assert.match(seen[2]!, /job="gone"/);
    assert.doesNotMatch(seen[3]!, /job="gone"/);
    release();
    await a.scheduler.close();
  });

  it("a job's lines are rendered again when any of its values changed, else reused", async () => {
    const scheduler = { runs: () => Promise.resolve([]) } as unknown as Scheduler;
    const job = (counts: Record<string, number>, bufferFull: number, next?: number): JobSummary => ({
      name: 'a"b',
      enabled: true,
      paused: false,
      runningSince: undefined,
      next,
      lastOutcome: { status: "ok", startedAt: T0, finishedAt: T0 + 1500 },
      statusCounts: counts,
      bufferFull,
    });
    let previous: StalenessCache | undefined;
    const text = async (summary: JobSummary): Promise<string> => {
      const collector = createStalenessCollector(scheduler, previous);
      await collector.addPage([summary]);
      previous = collector.rendered();
      return collector.pieces().join("");
    };
    const first = await text(job({ ok: 1, skipped: 1 }, 0, T0 + MIN));
    assert.match(first, /reason="overlap"} 1\n/);
    assert.equal(await text(job({ ok: 1, skipped: 1 }, 0, T0 + MIN)), first);
    assert.match(await text(job({ ok: 1, skipped: 2 }, 0, T0 + MIN)), /reason="overlap"} 2\n/);
    assert.match(await text(job({ ok: 1, skipped: 2 }, 1, T0 + MIN)), /reason="buffer-full"} 1\n/);
    assert.match(await text(job({ ok: 1, skipped: 2, missed: 3 }, 1, T0 + MIN)), /reason="catch-up"} 3\n/);
    assert.doesNotMatch(await text(job({ ok: 1, skipped: 2, missed: 3 }, 1)), /edgecron_next_run_timestamp_seconds\{/);
    const last = await text(job({ ok: 1, skipped: 2, missed: 3 }, 1, T0 + 2 * MIN));
    assert.match(last, new RegExp(`next_run_timestamp_seconds\\{job="a\\\\"b"\\} ${(T0 + 2 * MIN) / 1000}\n`));
    assert.match(last, new RegExp(`last_success_timestamp_seconds\\{job="a\\\\"b"\\} ${(T0 + 1500) / 1000}\n`));
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
