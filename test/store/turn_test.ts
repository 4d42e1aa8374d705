import { test } from "node:test";
import assert from "node:assert/strict";
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
