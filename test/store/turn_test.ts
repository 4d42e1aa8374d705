import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { nextTurn } from "../../src/store/_turn.ts";

test("nextTurn() resolves after the microtasks queued before it", async () => {
  const order: string[] = [];
  const turn = nextTurn().then(() => order.push("turn"));
  void Promise.resolve().then(() => order.push("microtask"));
  await turn;
  assert.deepEqual(order, ["microtask", "turn"]);
});

test("nextTurn() falls back to a timer where there is no MessageChannel", async () => {
  const saved = globalThis.MessageChannel;
  // deno-lint-ignore no-explicit-any
  (globalThis as any).MessageChannel = undefined;
  try {
    let done = false;
    const turn = nextTurn().then(() => (done = true));
    await Promise.resolve();
    assert.equal(done, false);
    await turn;
    assert.equal(done, true);
  } finally {
    globalThis.MessageChannel = saved;
  }
});

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
