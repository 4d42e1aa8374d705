// The Deno adapter for real: `deno check` of the adapter and example, then
// `deno run --unstable-cron` of the example (source) and of the Deno Deploy bundle,
// until their Deno.cron trigger fires (at the next wall-clock minute, so up to ~60 s)
// and a job runs; the router answers meanwhile; SIGTERM ends both with exit 0.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type Example, freePort, getJson, startExample } from "../adapters/_process.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const deno = `${root}node_modules/.bin/deno`;
const TOKEN = "deno-integration-token";

interface Run {
  slot: number;
  status: string;
}

describe("adapters/deno type-checks with deno check (no download: Deno ships its own types)", () => {
  it("deno check accepts the adapter and the example", () => {
    const res = spawnSync(deno, ["check", "--unstable-cron", "adapters/deno/mod.ts", "examples/deno-deploy/main.ts"], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 180_000,
    });
    assert.equal(res.status, 0, `${res.stdout}${res.stderr}`);
    assert.match(res.stderr.replace(/\x1b\[[0-9;]*m/g, ""), /Check .*adapters\/deno\/mod\.ts/);
  });
});

describe("Deno example under deno run --unstable-cron (real Deno.cron trigger)", () => {
  const targets = [
    { label: "source", entry: "examples/deno-deploy/main.ts" },
    { label: "Deno Deploy bundle", entry: "dist/deno-deploy.mjs" },
  ];
  const running: { label: string; port: number; example: Example }[] = [];

  before(async () => {
    const build = spawnSync("node", ["scripts/build.mjs", "deno-deploy"], { cwd: root, encoding: "utf8", timeout: 120_000 });
    assert.equal(build.status, 0, build.stderr);
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
  });

  it("answers /health and /jobs while waiting for the trigger", async () => {
    for (const { label, port } of running) {
      const health = await getJson<{ ok: boolean; store: string; jobs: number }>(`http://127.0.0.1:${port}/health`, TOKEN);
      assert.equal(health.status, 200, label);
      assert.equal(health.body.ok, true, label);
      assert.equal(health.body.jobs, 2, label);
      const jobs = await getJson<{ jobs: { name: string; timezone: string }[] }>(`http://127.0.0.1:${port}/jobs`, TOKEN);
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
      const printed = [...example.output().matchAll(/ran sync-feeds slot=(\S+)/g)].map((m) => Date.parse(m[1] as string));
      assert.ok(printed.includes(slot));
      assert.deepEqual(runs.body.runs.map((r) => [r.slot, r.status]).reverse(), printed.map((s) => [s, "ok"]), label);
      // No timer mode: every tick after the start-up one came from the Deno.cron trigger.
      const ticks = [...example.output().matchAll(/^tick (\S+) ok=true$/gm)].map((m) => Date.parse(m[1] as string));
      assert.ok(ticks.length >= 2, `${label}:\n${example.output()}`);
    }
  });

  it("stops on SIGTERM with exit code 0", async () => {
    for (const { label, example } of running) {
      example.child.kill("SIGTERM");
      assert.equal(await example.exited, 0, `${label}:\n${example.output()}`);
      assert.match(example.output(), /SIGTERM: stopping/);
    }
  });
});
