import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { legend, timeline } from "../../../src/http/dashboard/mod.ts";
import type { RunRecord, RunStatus } from "../../../src/store/types.ts";

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const H = 3_600_000;

function run(slot: number, status: RunStatus): RunRecord {
  return { job: "j", slot, kind: "scheduled", status, attempt: 1, node: "n", claimedAt: slot, startedAt: slot, finishedAt: slot, leaseUntil: null, error: null };
}

describe("timeline", () => {
  const input = {
    now: NOW,
    zone: "UTC",
    past: [run(NOW - 12 * H, "ok"), run(NOW - 6 * H, "timeout"), run(NOW - 25 * H, "error")],
    future: [NOW + 12 * H, NOW + 25 * H],
  };

  it("places past outcomes left of now and planned slots right, on a 48 h axis", async () => {
    const svg = String(await timeline(input));
    assert.match(svg, /<path class="mark s-ok" data-status="ok" data-count="1" d="M240 8v18">/, "-12 h is a quarter of 960");
    assert.match(svg, /<path class="mark s-timeout" data-status="timeout" data-count="1" d="M360 8v18">/);
    assert.match(svg, /<path class="mark s-planned" d="M720 11v12"><title>1 planned in the next 24 h<\/title>/, "+12 h is three quarters");
    assert.ok(!svg.includes("s-error"), "slots older than 24 h are not drawn");
    assert.match(svg, /aria-label="Past 24 hours: 2 slots \(1 ok, 1 timeout\)\. Next 24 hours: 1 planned slots\."/);
    assert.match(svg, />now<\/text>/);
  });

  it("paints failures over successes where marks touch", async () => {
    const svg = String(await timeline({ now: NOW, zone: "UTC", past: [run(NOW - H, "error"), run(NOW - 2 * H, "missed"), run(NOW - 3 * H, "ok")], future: [] }));
    const order = [...svg.matchAll(/data-status="(\w+)"/g)].map((m) => m[1]);
    assert.deepEqual(order, ["ok", "missed", "error"]);
  });

  it("draws one mark per slot with a tooltip in detail mode", async () => {
    const svg = String(await timeline({ ...input, detail: true, past: [...input.past, { ...run(NOW - H, "ok"), kind: "manual" }] }));
    assert.match(svg, /<rect class="mark s-ok" data-status="ok" x="238" [^>]*><title>Mon 30 Nov, 00:00 UTC: ok<\/title>/);
    assert.match(svg, /<title>Mon 30 Nov, 11:00 UTC: ok \(manual\)<\/title>/);
    assert.match(svg, /<rect class="mark s-planned" x="718.5" [^>]*><title>Tue 1 Dec, 00:00 UTC: planned<\/title>/);
    assert.ok(!svg.includes("Tue 1 Dec, 13:00"), "slots beyond 24 h are not drawn");
  });

  it("keeps dense schedules light: strokes merge to the half pixel, detail marks are capped", async () => {
    const future = Array.from({ length: 1440 }, (_, i) => NOW + (i + 1) * 60_000);
    const svg = String(await timeline({ now: NOW, zone: "UTC", past: [], future }));
    assert.equal(svg.match(/M[\d.]+ 11v12/g)?.length, 960, "480 px for 24 h, one stroke per half pixel");
    assert.ok(svg.length < 16_000, `${svg.length} bytes`);
    const detail = String(await timeline({ now: NOW, zone: "UTC", past: [], future, detail: true }));
    assert.equal(detail.match(/class="mark s-planned"/g)?.length, 720);
  });

  it("has a legend entry for every status colour", async () => {
    const html = String(await legend());
    for (const s of ["ok", "error", "timeout", "abandoned", "skipped", "missed", "running", "planned"]) {
      assert.ok(html.includes(`swatch s-${s}`), s);
    }
  });
});
