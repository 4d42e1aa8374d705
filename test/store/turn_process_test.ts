import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

test("nextTurn() leaves nothing behind that keeps the process alive", () => {
  const script = `import { spawnSync } from "node:child_process";
import { nextTurn } from ${JSON.stringify(new URL("../../src/store/_turn.ts", import.meta.url).href)};
for (let i = 0; i < 100; i++) await nextTurn();
console.log("turned");`;
  // An open port would keep the child running: the timeout is only a guard.
  const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(child.stdout.trim(), "turned");
  assert.equal(child.status, 0);
});
