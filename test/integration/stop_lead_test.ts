// A real process stopped by SIGTERM while it holds a slot claimed ahead (`claimAhead`)
// waits for the slot, runs it, and exits 0. It used to release the claim at once: the
// row was recorded `abandoned` and a job without retries never ran that slot.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import { startExample } from "../adapters/_process.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));
const dir = `${root}test/artifacts/stop-lead`;
const db = `${dir}/lead.db`;

describe("SIGTERM in claimAhead's lead (a real Node process, serveNode)", () => {
  mkdirSync(dir, { recursive: true });
  for (const suffix of ["", "-shm", "-wal", "-journal"]) rmSync(`${db}${suffix}`, { force: true });
  const child = startExample(process.execPath, ["--import", "tsx", "test/integration/_lead_child.ts", `file:${db}`], {
    cwd: root,
    env: {},
  });
  after(() => child.kill());

  it("waits for the slot claimed ahead, runs it at its time, and exits 0 with every row ok", async () => {
    await child.waitFor(/serving/, 30_000);
    const store = libsqlStore({ url: `file:${db}` });
    try {
      await store.init();
      // Poll for a claim made ahead: a running row whose slot is still to come.
      let ahead: { slot: number } | undefined;
      for (let i = 0; i < 400 && ahead === undefined; i++) {
        const rows = await store.runs("five", { limit: 5 });
        ahead = rows.find((r) => r.status === "running" && r.slot > Date.now() + 300);
        if (ahead === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(ahead !== undefined, `no claim made ahead seen\n${child.output()}`);
      child.child.kill("SIGTERM");
      assert.equal(await child.exited, 0, child.output());
      const ran = [...child.output().matchAll(/ran slot=(\d+) at=(\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
      const run = ran.find(([slot]) => slot === ahead!.slot);
      assert.ok(run !== undefined, `slot ${ahead.slot} did not run\n${child.output()}`);
      assert.ok(run[1]! >= run[0]!, "started at its slot, not before");
      const rows = await store.runs("five", { limit: 50 });
      assert.deepEqual(rows.filter((r) => r.status !== "ok").map((r) => [r.slot, r.status]), []);
      assert.equal(rows.find((r) => r.slot === ahead!.slot)?.status, "ok");
    } finally {
      await store.close();
    }
  });
});
