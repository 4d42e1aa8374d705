import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { legend, plannedSpans, timeline } from "../../../src/http/dashboard/mod.ts";
import type { RunRecord, RunStatus } from "../../../src/store/types.ts";

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const H = 3_600_000;
const DAY = 24 * H;

function run(slot: number, status: RunStatus): RunRecord {
  return {
    job: "j",
    slot,
    kind: "scheduled",
    status,
    attempt: 1,
    node: "n",
    claimedAt: slot,
    startedAt: slot,
    finishedAt: slot,
    leaseUntil: null,
    error: null,
  };
}

const none = { count: 0, spans: [] };

describe("timeline", () => {
  const input = {
    now: NOW,
    zone: "UTC",
    past: [run(NOW - 12 * H, "ok"), run(NOW - 6 * H, "timeout"), run(NOW - 25 * H, "error")],
    planned: { count: 1, spans: [[NOW + 12 * H, NOW + 12 * H + 360_000]] as [number, number][] },
  };

  it("places past outcomes left of now and planned spans right, on a 48 h axis", async () => {
    const svg = String(await timeline(input));
    assert.match(
      svg,
      /<path class="mark s-ok" data-status="ok" data-count="1" d="M240 8v18">/,
      "-12 h is a quarter of 960",
    );
    assert.match(svg, /<path class="mark s-timeout" data-status="timeout" data-count="1" d="M360 8v18">/);
    assert.match(
      svg,
      /<path class="band s-planned" data-planned="1" data-until="\d+" d="M720 12h2v10h-2z"><title>1 planned in the next 24 h<\/title>/,
      "+12 h is three quarters",
    );
    assert.ok(!svg.includes("s-error"), "slots older than 24 h are not drawn");
    assert.match(svg, /aria-label="Past 24 hours: 2 slots \(1 ok, 1 timeout\)\. Next 24 hours: 1 planned slots\."/);
    assert.match(svg, />now<\/text>/);
  });

  it("paints failures over successes where marks touch", async () => {
    const svg = String(
      await timeline({
        now: NOW,
        zone: "UTC",
        past: [run(NOW - H, "error"), run(NOW - 2 * H, "missed"), run(NOW - 3 * H, "ok")],
        planned: none,
      }),
    );
    const order = [...svg.matchAll(/data-status="(\w+)"/g)].map((m) => m[1]);
    assert.deepEqual(order, ["ok", "missed", "error"]);
  });

  it("draws one mark per past slot with a tooltip in detail mode", async () => {
    const svg = String(
      await timeline({ ...input, detail: true, past: [...input.past, { ...run(NOW - H, "ok"), kind: "manual" }] }),
    );
    assert.match(
      svg,
      /<rect class="mark s-ok" data-status="ok" x="238" [^>]*><title>Mon 30 Nov, 00:00:00 UTC: ok<\/title>/,
    );
    assert.match(svg, /<title>Mon 30 Nov, 11:00:00 UTC: ok \(manual\)<\/title>/);
  });

  it("draws no planned band for a job that will not fire", async () => {
    const svg = String(await timeline({ ...input, planned: none }));
    assert.ok(!svg.includes("s-planned"));
  });
});

describe("plannedSpans", () => {
  it("covers the whole next 24 h with one band for @every 5s, stepping once per bucket", () => {
    const spans = plannedSpans({ every: "5s" }, NOW, NOW + DAY);
    assert.deepEqual(spans, [[NOW, NOW + DAY]]);
  });

  it("keeps sparse slots apart: hourly is 24 spans, each one 6-minute bucket holding its slot", () => {
    const spans = plannedSpans({ cron: "30 * * * *", timezone: "UTC" }, NOW, NOW + DAY);
    assert.equal(spans.length, 24);
    for (const [s, e] of spans) assert.equal(e - s, 360_000);
    assert.ok(
      spans.every(([s, e], i) => NOW + i * H + 30 * 60_000 > s && NOW + i * H + 30 * 60_000 <= e),
      "buckets are (start, end], like the window",
    );
  });

  it("marks a slot that falls exactly on a bucket boundary", () => {
    // Every 6 minutes from NOW: each slot starts a bucket, so every bucket holds one.
    assert.deepEqual(plannedSpans({ every: "6m" }, NOW, NOW + DAY), [[NOW, NOW + DAY]]);
  });

  it("follows a schedule with gaps: 09-17 every minute is one band per day", () => {
    const spans = plannedSpans({ cron: "* 9-16 * * *", timezone: "UTC" }, NOW, NOW + DAY);
    assert.equal(
      spans.length,
      2,
      JSON.stringify(spans.map(([s, e]) => [new Date(s).toISOString(), new Date(e).toISOString()])),
    );
  });
});

describe("legend", () => {
  it("has an entry for every status colour", async () => {
    const html = String(await legend());
    for (const s of ["ok", "error", "timeout", "abandoned", "skipped", "missed", "running", "planned"]) {
      assert.ok(html.includes(`swatch s-${s}`), s);
    }
  });
});
