// One unreadable stored row disables its job alone: every other job keeps running on
// every node, list() and get() answer, and the log names the row and the column once.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { libsqlStore } from "../../../src/store/libsql/mod.ts";
import { createManualClock, type ManualClock } from "../../../src/engine/clock.ts";
import type { Scheduler, SchedulerOptions } from "../../../src/engine/types.ts";
import { createScheduler } from "../../../src/engine/scheduler.ts";
import { edgecronRouter } from "../../../src/http/router.ts";
import { memoryLogger, MIN, T0 } from "../_helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "edgecron-broken-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

async function brokenStore(damage: string[]): Promise<{ url: string }> {
  const url = `file:${join(dir, `db-${++files}.db`)}`;
  const store = libsqlStore({ url });
  await store.init();
  await store.putDef("hook", { schedule: "* * * * *", target: { url: "https://example.com/hook" } }, T0 - 2 * MIN);
  await store.snapshot(["steady", "stamped", "slotted"], T0 - 2 * MIN);
  await store.claim([{
    job: "slotted",
    slot: T0 - 2 * MIN,
    kind: "scheduled",
    status: "missed",
    overlap: "allow",
    node: "n",
    batch: "b",
    now: T0 - 2 * MIN,
    leaseUntil: 0,
  }]);
  await store.close();
  const raw = createClient({ url });
  for (const sql of damage) await raw.execute(sql);
  raw.close();
  return { url };
}

/**
 * A scheduler on `url` with a minutely code job per name, ticked at T0 and each minute after
 * for `minutes` minutes (each tick must succeed); `ran` lists the runs in order.
 */
async function tickMinutes(
  url: string,
  names: string[],
  minutes: number,
  options: Partial<SchedulerOptions> = {},
): Promise<{ scheduler: Scheduler; clock: ManualClock; logger: ReturnType<typeof memoryLogger>; ran: string[] }> {
  const clock = createManualClock(T0 - MIN);
  const logger = memoryLogger();
  const ran: string[] = [];
  const scheduler = createScheduler({ store: libsqlStore({ url }), clock, logger, ...options });
  for (const name of names) scheduler.job(name, { schedule: "* * * * *", run: () => void ran.push(name) });
  for (let i = 0; i < minutes; i++) {
    await clock.set(T0 + i * MIN);
    const report = await scheduler.tick();
    assert.equal(report.ok, true, report.error);
  }
  return { scheduler, clock, logger, ran };
}

describe("a bad row disables its job alone", () => {
  it("invalid JSON in a definition, text in first_seen and in slot: every other job runs, list() answers, each bad job is marked broken", async () => {
    const { url } = await brokenStore([
      "UPDATE edgecron_defs SET spec = '{not json' WHERE name = 'hook'",
      "UPDATE edgecron_jobs SET first_seen = 'yesterday' WHERE name = 'stamped'",
      "UPDATE edgecron_runs SET slot = 'soon' WHERE job = 'slotted'",
    ]);
    const { scheduler, clock, logger, ran } = await tickMinutes(url, ["steady", "stamped", "slotted"], 3, {
      webhookSecret: "s".repeat(32),
    });
    assert.deepEqual(ran, ["steady", "steady", "steady"], "the healthy job ran on every tick; the broken ones never");
    const list = await scheduler.list();
    const broken = Object.fromEntries(list.filter((j) => j.broken !== undefined).map((j) => [j.name, j.broken]));
    assert.match(broken["hook"]!, /edgecron_defs row "hook": column spec is not valid JSON/);
    assert.match(
      broken["stamped"]!,
      /edgecron_jobs row "stamped": column first_seen is not an integer \(got "yesterday"\)/,
    );
    assert.match(broken["slotted"]!, /edgecron_runs rows of "slotted": column slot is not an integer \(got "soon"\)/);
    assert.equal(list.find((j) => j.name === "steady")?.broken, undefined);
    assert.equal((await scheduler.get("hook"))?.broken, broken["hook"]);
    const lines = logger.lines.filter((l) => l.includes("is disabled"));
    assert.equal(lines.length, 3, `logged once per bad row over 3 ticks and a list:\n${lines.join("\n")}`);
    assert.deepEqual(await scheduler.run("stamped", { mode: "force" }), {
      ok: false,
      job: "stamped",
      reason: "broken",
    });
    // The API and the dashboard show the same.
    const app = edgecronRouter(scheduler, { public: true, now: clock.now });
    const api = await (await app.request("/jobs")).json() as { jobs: { name: string; broken?: string }[] };
    assert.match(api.jobs.find((j) => j.name === "hook")?.broken ?? "", /column spec is not valid JSON/);
    const page = await (await app.request("/")).text();
    assert.match(page, /data-state="broken" title="[^"]*edgecron_jobs row [^"]*stamped/);
    await scheduler.close();
  });

  it("a BLOB in first_seen, in slot or in a pause note (the states are read as one JSON text): every other job runs, the bad ones are named", async () => {
    const { url } = await brokenStore([
      "UPDATE edgecron_jobs SET first_seen = X'C0FFEE' WHERE name = 'stamped'",
      "UPDATE edgecron_runs SET slot = X'0B' WHERE job = 'slotted'",
      "UPDATE edgecron_jobs SET paused = 1, paused_at = 5, paused_by = 'ops', pause_note = X'00' WHERE name = 'steady'",
    ]);
    const { scheduler, ran } = await tickMinutes(url, ["steady", "stamped", "slotted", "fresh"], 2);
    assert.deepEqual(ran, ["fresh", "fresh"], "the unharmed job ran on every tick; the paused and broken ones never");
    const list = await scheduler.list();
    const byName = Object.fromEntries(list.map((j) => [j.name, j]));
    assert.match(byName["stamped"]!.broken!, /column first_seen is not an integer \(got "C0FFEE"\)/);
    assert.match(
      byName["slotted"]!.broken!,
      /edgecron_runs rows of "slotted": column slot is not an integer \(got "0B"\)/,
    );
    assert.equal(byName["steady"]!.broken, undefined);
    assert.deepEqual(byName["steady"]!.pause, { note: "00", at: 5, by: "ops" });
    await scheduler.close();
  });
});
