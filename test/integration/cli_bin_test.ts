// The published bin on plain Node, on a fresh tsc build (integration: it builds and spawns, once, on Node).
import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ensureBuilt } from "./_build.ts";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Runs the published entry point the way `npx edgecron` does: plain Node on bin/edgecron.mjs. */
function edgecron(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const res = spawnSync("node", ["bin/edgecron.mjs", ...args], { cwd: root, encoding: "utf8", timeout: 20_000 });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

describe("bin/edgecron.mjs (the npx entry point, on the compiled dist/cli)", () => {
  before(() => {
    ensureBuilt("lib");
  });

  it("exits 0 and prints JSON fire times", () => {
    const { status, stdout } = edgecron(
      "next",
      "0 12 * * *",
      "--tz",
      "Asia/Kolkata",
      "--from",
      "2026-01-01T00:00:00Z",
      "-n",
      "2",
      "--json",
    );
    assert.equal(status, 0);
    const body = JSON.parse(stdout) as { next: { utc: string; local: string }[] };
    assert.deepEqual(body.next.map((f) => f.utc), ["2026-01-01T06:30:00Z", "2026-01-02T06:30:00Z"]);
    assert.equal(body.next[0]?.local, "2026-01-01T12:00:00+05:30[Asia/Kolkata]");
  });

  it("exits 1 on an invalid expression, explaining it on stderr", () => {
    const { status, stdout, stderr } = edgecron("validate", "0 25 * * *");
    assert.equal(status, 1);
    assert.equal(stdout, "");
    assert.match(stderr, /^invalid: invalid-cron: .*hour.*"25"/);
  });

  it("exits 2 on a usage error, with one line pointing to --help", () => {
    const { status, stderr } = edgecron("nxet", "* * * * *");
    assert.equal(status, 2);
    assert.equal(
      stderr,
      'edgecron: unknown command "nxet"; expected next, validate, explain (see "edgecron --help")\n',
    );
  });

  it("--version prints the version", () => {
    const { status, stdout } = edgecron("--version");
    assert.equal(status, 0);
    assert.match(stdout, /^\d+\.\d+\.\d+\n$/);
  });
});
