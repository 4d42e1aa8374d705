// `H` is stable across processes: a child Node process computes the same fires as this
// runtime (the stores tier runs it: it spawns a process; see scripts/tiers.mjs).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { cron } from "../../../src/core/cron/mod.ts";
import { iso, ms } from "../_helpers.ts";
import { reference } from "./_fnv.ts";

const AFTER = ms("2026-01-01T00:00:00Z");

describe("H: stable across processes", () => {
  // Process start-up is slow on a loaded machine (Bun gives a test 5 s by default).
  it("a child Node process computes the same fires as this runtime", { timeout: 60_000 }, () => {
    const root = fileURLToPath(new URL("../../../", import.meta.url));
    const child = fileURLToPath(new URL("../../fixtures/hash/child.ts", import.meta.url));
    const res = spawnSync("node", ["--import", "tsx", child], { cwd: root, encoding: "utf8" });
    assert.equal(res.status, 0, res.stderr);
    const theirs = JSON.parse(res.stdout) as number[];
    const ours = Array.from({ length: 50 }, (_, i) => cron("H H(8-17) * * *", { hashKey: `job-${i}` }).next(AFTER));
    assert.deepEqual(theirs.map(iso), ours.map(iso));
    for (let i = 0; i < 50; i++) {
      const d = new Date(ours[i]!);
      assert.equal(d.getUTCMinutes(), reference(`job-${i}`, "minute") % 60);
      assert.equal(d.getUTCHours(), 8 + (reference(`job-${i}`, "hour") % 10));
    }
  });
});
