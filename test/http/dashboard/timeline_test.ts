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
  it("places past outcomes left of now and planned slots right, on a 48 h axis", async () => {
    const svg = String(await timeline({
      now: NOW,
      zone: "UTC",
      past: [run(NOW - 12 * H, "ok"), run(NOW - 6 * H, "timeout"), run(NOW - 25 * H, "error")],
      future: [NOW + 12 * H, NOW + 25 * H],
    }));
    assert.match(svg, /class="mark s-ok" data-status="ok" x="238"/, "-12 h is a quarter of 960");
    assert.match(svg, /class="mark s-timeout" data-status="timeout" x="358"/);
    assert.match(svg, /class="mark s-planned" x="718.5"/, "+12 h is three quarters");
    assert.ok(!svg.includes("s-error"), "slots older than 24 h are not drawn");
    assert.equal(svg.match(/s-planned/g)?.length, 1, "slots beyond 24 h are not drawn");
    assert.match(svg, /aria-label="Past 24 hours: 2 slots \(1 ok, 1 timeout\)\. Next 24 hours: 1 planned slots\."/);
    assert.match(svg, /<title>Mon 30 Nov, 00:00 UTC: ok<\/title>/);
    assert.match(svg, />now<\/text>/);
  });

  it("caps the marks it draws so dense schedules stay light", async () => {
    const future = Array.from({ length: 1440 }, (_, i) => NOW + (i + 1) * 60_000);
    const svg = String(await timeline({ now: NOW, zone: "UTC", past: [], future }));
    assert.equal(svg.match(/s-planned/g)?.length, 720);
  });

  it("marks manual runs in their tooltip", async () => {
    const svg = String(await timeline({ now: NOW, zone: "UTC", past: [{ ...run(NOW - H, "ok"), kind: "manual" }], future: [] }));
    assert.match(svg, /ok \(manual\)<\/title>/);
  });

  it("has a legend entry for every status colour", async () => {
    const html = String(await legend());
    for (const s of ["ok", "error", "timeout", "abandoned", "skipped", "missed", "running", "planned"]) {
      assert.ok(html.includes(`swatch s-${s}`), s);
    }
  });
});
