// The Deno adapter for real (`npm run check` runs `deno check` on it): `deno run
// --unstable-cron` of the example (source), of the Deno Deploy bundle and of the run-ahead
// fixture, all started together so that they share one wait for a real Deno.cron minute
// (up to ~60 s, plus 45 s for the run-ahead slots): the trigger fires and a job runs; the
// router answers meanwhile; run-ahead runs a */15 s job four times in the trigger's
// minute; SIGTERM ends the examples with exit 0.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type Example, freePort, getJson, startExample } from "../adapters/_process.ts";
import { ensureBuilt } from "./_build.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const deno = `${root}node_modules/.bin/deno`;
const TOKEN = "deno-integration-token";

const MINUTE = 60_000;
const SEC = 1_000;

interface Run {
  slot: number;
  status: string;
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

describe("Deno example under deno run --unstable-cron (real Deno.cron trigger)", () => {
  const targets = [
    { label: "source", entry: "examples/deno-deploy/main.ts" },
    { label: "Deno Deploy bundle", entry: "dist/deno-deploy.mjs" },
  ];
  const running: { label: string; port: number; example: Example }[] = [];
  let runAhead: Example;

  before(async () => {
    runAhead = startExample(deno, ["run", "--unstable-cron", "-A", "test/integration/fixtures/run_ahead_deno.ts"], {
      cwd: root,
      env: {},
    });
    ensureBuilt("deno-deploy");
    for (const { label, entry } of targets) {
      const port = await freePort();
      const example = startExample(deno, ["run", "--unstable-cron", "-A", entry], {
        cwd: root,
        env: { EDGECRON_TOKEN: TOKEN, PORT: String(port) },
      });
      running.push({ label, port, example });
    }
    await Promise.all(running.map(({ example }) => example.waitFor(/dashboard and API on http:\/\/\S+/, 60_000)));
  });
  after(() => {
    for (const { example } of running) example.kill();
    runAhead.kill();
  });

  it("answers /health and /jobs while waiting for the trigger", async () => {
    for (const { label, port } of running) {
      const health = await getJson<{ ok: boolean; store: string; jobs: number }>(
        `http://127.0.0.1:${port}/health`,
        TOKEN,
      );
      assert.equal(health.status, 200, label);
      assert.equal(health.body.ok, true, label);
      assert.equal(health.body.jobs, 2, label);
      const jobs = await getJson<{ jobs: { name: string; timezone: string }[] }>(
        `http://127.0.0.1:${port}/jobs`,
        TOKEN,
      );
      assert.deepEqual(jobs.body.jobs.map((j) => [j.name, j.timezone]).sort(), [
        ["nightly-cleanup", "America/New_York"],
        ["sync-feeds", "UTC"],
      ], label);
      const denied = await fetch(`http://127.0.0.1:${port}/jobs`);
      assert.equal(denied.status, 401, label);
      await denied.body?.cancel();
    }
  });

  it("fires the Deno.cron trigger within ~70 s and runs the minutely job once per minute", async () => {
    for (const { label, port, example } of running) {
      const [, iso] = await example.waitFor(/ran sync-feeds slot=(\S+)/, 75_000);
      const slot = Date.parse(iso as string);
      assert.equal(slot % 60_000, 0, `${label}: a minute slot`);
      const runs = await getJson<{ runs: Run[] }>(`http://127.0.0.1:${port}/jobs/sync-feeds/runs`, TOKEN);
      const printed = [...example.output().matchAll(/ran sync-feeds slot=(\S+)/g)].map((m) =>
        Date.parse(m[1] as string)
      );
      assert.ok(printed.includes(slot));
      assert.deepEqual(runs.body.runs.map((r) => [r.slot, r.status]).reverse(), printed.map((s) => [s, "ok"]), label);
      // No timer mode and no start-up tick: every tick came from the Deno.cron trigger, and
      // its first one ran that minute's slot (the first trigger of a new job runs).
      const ticks = [...example.output().matchAll(/^tick (\S+) ok=true$/gm)].map((m) => Date.parse(m[1] as string));
      assert.ok(ticks.length >= 1 && ticks.includes(slot), `${label}:\n${example.output()}`);
      assert.equal(printed[0], ticks[0], `${label}: the first trigger's tick ran its slot`);
    }
  });

  it("run-ahead: the Deno.cron trigger's tick runs a */15 s job four times in its minute", async () => {
    let M: number | undefined;
    let slots: { slot: number; late: number }[] = [];
    const deadline = Date.now() + 2 * MINUTE;
    while (Date.now() < deadline) {
      const out = runAhead.output();
      const ticks = [...out.matchAll(/^tick (\S+)$/gm)].map((m) => Date.parse(m[1]!));
      slots = [...out.matchAll(/^ran slot=(\S+) late=(\d+)$/gm)].map((m) => ({
        slot: Date.parse(m[1]!),
        late: Number(m[2]),
      }));
      // The first tick after start-up that falls on a minute came from Deno.cron.
      M ??= ticks.slice(1).map((t) => Math.floor(t / MINUTE) * MINUTE)[0];
      if (M !== undefined && slots.some((s) => s.slot === M! + 45 * SEC)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.ok(M !== undefined, `Deno.cron did not fire:\n${runAhead.output()}`);
    const inMinute = slots.filter((s) => s.slot >= M! && s.slot < M! + MINUTE);
    assert.deepEqual(inMinute.map((s) => s.slot), [0, 15, 30, 45].map((s) => M! + s * SEC), runAhead.output());
    const late = inMinute.slice(1).map((s) => s.late);
    console.log(
      `# run-ahead Deno.cron: ${inMinute.length} slots in the trigger's minute for 4 planned; lateness p50 ${
        percentile(late, 50)
      } ms, p99 ${percentile(late, 99)} ms`,
    );
  });

  it("stops on SIGTERM with exit code 0", async () => {
    for (const { label, example } of running) {
      example.child.kill("SIGTERM");
      assert.equal(await example.exited, 0, `${label}:\n${example.output()}`);
      assert.match(example.output(), /SIGTERM: stopping/);
    }
  });
});
