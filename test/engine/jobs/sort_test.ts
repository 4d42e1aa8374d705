import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { hostTurn, sortByNameInSteps } from "../../../src/engine/jobs/sort.ts";

describe("sortByNameInSteps()", () => {
  it("sorts 30 000 names as Array.prototype.sort does, equal names in their order, pausing between steps", async () => {
    // A fixed shuffle with duplicates: each name twice, tagged with its position.
    const items = Array.from({ length: 30_000 }, (_, i) => ({ name: `n${(i * 7919) % 15_000}`, at: i }));
    const expected = [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.at - b.at));
    let pauses = 0;
    const sorted = await sortByNameInSteps([...items], async () => void pauses++);
    assert.deepEqual(sorted, expected);
    assert.ok(pauses >= 10, `${pauses} pauses`);
  });

  it("sorts a small list in one step, without pausing", async () => {
    let pauses = 0;
    const sorted = await sortByNameInSteps(
      [{ name: "b" }, { name: "a" }, { name: "__proto__" }],
      async () => void pauses++,
    );
    assert.deepEqual(sorted.map((x) => x.name), ["__proto__", "a", "b"]);
    assert.equal(pauses, 0);
  });
});

describe("hostTurn()", () => {
  it("gives due timers and I/O a turn (a message turn where the host has MessageChannel)", async () => {
    let fired = false;
    setTimeout(() => (fired = true), 0);
    let immediate = false;
    setImmediate(() => (immediate = true));
    // A check-phase callback runs within a few turns: the loop goes round, not just the
    // microtask queue (a promise-only yield would never let it run). One turn is not
    // always enough: a message posted during the poll phase may be delivered in that same
    // phase, before the check phase (seen once in the unit tier).
    for (let i = 0; i < 100 && !immediate; i++) await hostTurn();
    assert.equal(immediate, true);
    // A zero-delay timer is due within a millisecond of loop time: a bounded number of turns reaches it.
    for (let i = 0; i < 100_000 && !fired; i++) await hostTurn();
    assert.equal(fired, true);
  });

  it("sets no timer where the host has MessageChannel (Node's zero-delay timer waits at least 1 ms)", async () => {
    const setTimer = globalThis.setTimeout;
    let timers = 0;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      timers++;
      return setTimer(...args);
    }) as typeof setTimeout;
    try {
      for (let i = 0; i < 10; i++) await hostTurn();
    } finally {
      globalThis.setTimeout = setTimer;
    }
    assert.equal(timers, 0);
  });

  it("falls back to a zero-delay timer where the host has no MessageChannel", async () => {
    const channel = globalThis.MessageChannel;
    // @ts-expect-error: a host without the global (a Worker before compatibility date 2025-08-15)
    delete globalThis.MessageChannel;
    try {
      let fired = false;
      setTimeout(() => (fired = true), 0);
      await hostTurn();
      assert.equal(fired, true, "a zero-delay timer set before it ran first");
    } finally {
      globalThis.MessageChannel = channel;
    }
  });
});
