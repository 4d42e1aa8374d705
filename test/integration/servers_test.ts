// The Node and Bun examples as real processes on a libSQL file: /health and /jobs
// answer, the 1-second heartbeat runs, SIGTERM exits 0 with every slot recorded once
// and nothing left running; a restart fills the slots of the downtime.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import { type Example, freePort, getJson, startExample } from "../adapters/_process.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const dir = `${root}test/artifacts/servers`;
const TOKEN = "servers-integration-token";

interface Row {
  slot: number;
  status: string;
  attempt: number;
}

/** The heartbeat's rows, oldest first, read through the store API after the process ended. */
async function heartbeatRows(db: string): Promise<Row[]> {
  const store = libsqlStore({ url: `file:${db}` });
  try {
    await store.init();
    return (await store.runs("heartbeat", { limit: 1000 })).reverse();
  } finally {
    await store.close();
  }
}

const ranSlots = (output: string): number[] =>
  [...output.matchAll(/ran heartbeat slot=(\S+)/g)].map((m) => Date.parse(m[1] as string));

/** Every second from the first row to the last has exactly one final row. */
function assertNoLostSlot(rows: Row[]): void {
  assert.ok(rows.length >= 3, `only ${rows.length} heartbeat rows`);
  assert.deepEqual(rows.filter((r) => r.status === "running"), [], "nothing left running");
  const first = rows[0]?.slot as number;
  assert.deepEqual(rows.map((r) => r.slot), rows.map((_, i) => first + i * 1000), "one row per second, no gap");
}

const servers = [
  { name: "Node", command: process.execPath, args: ["--import", "tsx", "examples/node-server/main.ts"] },
  { name: "Bun", command: `${root}node_modules/.bin/bun`, args: ["examples/bun-server/main.ts"] },
];

for (const server of servers) {
  describe(`${server.name} example (${server.args.at(-1)})`, () => {
    const db = `${dir}/${server.name.toLowerCase()}.db`;
    let port = 0;
    let example: Example;
    const start = async (): Promise<Example> => {
      const started = startExample(server.command, server.args, {
        cwd: root,
        env: { EDGECRON_TOKEN: TOKEN, EDGECRON_DB: `file:${db}`, PORT: String(port), HEARTBEAT: "1s" },
      });
      await started.waitFor(/dashboard and API on http:\/\/\S+/, 30_000);
      return started;
    };

    before(async () => {
      mkdirSync(dir, { recursive: true });
      for (const suffix of ["", "-shm", "-wal", "-journal"]) rmSync(`${db}${suffix}`, { force: true });
      port = await freePort();
      example = await start();
    });
    after(() => example.kill());

    it("prints the URL and the token at start", () => {
      assert.match(
        example.output(),
        new RegExp(`dashboard and API on http://127\\.0\\.0\\.1:${port}`),
        "loopback unless HOST says otherwise",
      );
      assert.match(example.output(), new RegExp(`token ${TOKEN}`));
    });

    it("answers /health, /jobs and the dashboard, and refuses a request without the token", async () => {
      const health = await getJson<{ ok: boolean; store: string; jobs: number; running: boolean }>(
        `http://127.0.0.1:${port}/health`,
        TOKEN,
      );
      assert.equal(health.status, 200);
      assert.equal(health.body.store, "ok");
      assert.equal(health.body.running, true, "timer mode is on");
      const jobs = await getJson<{ jobs: { name: string; next: number[] }[] }>(`http://127.0.0.1:${port}/jobs`, TOKEN);
      assert.equal(jobs.status, 200);
      assert.ok(jobs.body.jobs.some((j) => j.name === "heartbeat"));
      assert.equal(jobs.body.jobs.length, health.body.jobs);
      const denied = await fetch(`http://127.0.0.1:${port}/jobs`);
      assert.equal(denied.status, 401);
      await denied.body?.cancel();
      const page = await fetch(`http://127.0.0.1:${port}/`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /heartbeat/, "the dashboard lists the jobs");
    });

    it("runs the 1-second job every second", async () => {
      await example.waitFor(/(?:ran heartbeat[^\n]*\n(?:[^\n]*\n)*?){3}/, 15_000);
      const slots = ranSlots(example.output());
      assert.ok(slots.length >= 3);
      assert.ok(slots.every((s) => s % 1000 === 0), "slots on whole seconds");
    });

    it("exits 0 on SIGTERM with every slot recorded once and none left running", async () => {
      example.child.kill("SIGTERM");
      assert.equal(await example.exited, 0, example.output());
      const rows = await heartbeatRows(db);
      assertNoLostSlot(rows);
      assert.deepEqual(
        rows.filter((r) => r.status === "ok").map((r) => r.slot),
        ranSlots(example.output()),
        "each recorded slot ran once",
      );
    });

    it("after a restart, runs the slots of the downtime (catch-up) and none twice", async () => {
      const before = await heartbeatRows(db);
      const lastBefore = before.at(-1)?.slot as number;
      example = await start();
      await example.waitFor(/ran heartbeat[^\n]*\n(?:[^\n]*\n)*?[^\n]*ran heartbeat/, 15_000);
      example.child.kill("SIGTERM");
      assert.equal(await example.exited, 0, example.output());
      const rows = await heartbeatRows(db);
      assertNoLostSlot(rows);
      const after = rows.filter((r) => r.slot > lastBefore);
      assert.ok(after.length >= 2);
      assert.deepEqual(after.filter((r) => r.status === "ok").map((r) => r.slot), ranSlots(example.output()));
    });
  });
}
