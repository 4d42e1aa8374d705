import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cron, jitterDelay } from "../../../src/core/mod.ts";
import { plannedSpans } from "../../../src/http/dashboard/_planned.ts";
import { timeline } from "../../../src/http/dashboard/timeline.ts";
import { HOUR, setup, T0 } from "../_setup.ts";

async function page(f: ReturnType<typeof setup>, path = "/"): Promise<string> {
  const res = await f.call("GET", path);
  assert.equal(res.status, 200);
  return await res.text();
}

describe("dashboard: schedule modifiers", () => {
  it("shows a job past its endAt as ended and one at its maxRuns as completed", async () => {
    const f = setup();
    f.scheduler.job("over", { schedule: "0 * * * *", endAt: T0 - HOUR, run: () => {} });
    f.scheduler.job("once", { schedule: "* * * * *", maxRuns: 1, run: () => {} });
    await f.scheduler.tick();
    await f.clock.set(T0 + 60_000);
    await f.scheduler.tick();
    const html = await page(f);
    assert.match(html, /data-job="over">[\s\S]*?data-state="ended"/);
    assert.match(html, /data-job="once">[\s\S]*?data-state="completed"/);
    assert.match(html, /data-job="hourly">[\s\S]*?data-state="active"/);
  });

  it("draws a jittered job's planned band at the jittered starts", () => {
    const spec = cron("0 */6 * * *").toJSON();
    const plain = plannedSpans(spec, T0, T0 + 24 * HOUR);
    const jittered = plannedSpans(spec, T0, T0 + 24 * HOUR, undefined, { name: "spread", ms: 2 * HOUR });
    const start = T0 + 6 * HOUR + jitterDelay("spread", T0 + 6 * HOUR, 2 * HOUR, 6 * HOUR);
    assert.ok(start - (T0 + 6 * HOUR) > 12 * 60_000, "the delay must move the slot out of its 6-minute bucket");
    assert.notDeepEqual(jittered, plain);
    const holds = (t: number): boolean => jittered.some(([a, b]) => a < t && t <= b);
    // The slot at `from` itself starts inside the window; each span holds a start, not a slot.
    assert.ok(holds(T0 + jitterDelay("spread", T0, 2 * HOUR, 6 * HOUR)));
    assert.ok(holds(start));
    assert.ok(!holds(T0 + 6 * HOUR), JSON.stringify(jittered));
    assert.equal(jittered.length, 4);
  });

  it("draws a jittered job's past runs at their recorded start", () => {
    const slot = T0 - 6 * HOUR;
    const row = {
      job: "spread",
      slot,
      kind: "scheduled" as const,
      status: "ok" as const,
      attempt: 1,
      node: "n",
      startedAt: slot + 2 * HOUR,
      leaseUntil: null,
      finishedAt: slot + 2 * HOUR,
      error: null,
    };
    const draw = (jittered: boolean): string =>
      String(
        timeline({
          now: T0,
          zone: "UTC",
          past: [row as never],
          planned: { count: 0, spans: [] },
          detail: true,
          jittered,
        }),
      );
    const xOf = (svg: string): number => Number(/<rect class="mark[^>]* x="([\d.]+)"/.exec(svg)![1]);
    assert.ok(xOf(draw(true)) > xOf(draw(false)) + 30, "two hours later on a 48-hour, 960-px axis is 40 px");
  });
});
