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

  it("checks a list already in order run by run, several runs between pauses, and keeps its order", async () => {
    const items = Array.from({ length: 100_000 }, (_, i) => ({ name: `job-${String(i).padStart(6, "0")}` }));
    let pauses = 0;
    const sorted = await sortByNameInSteps([...items], async () => void pauses++);
    assert.deepEqual(sorted, items);
    // 49 runs of 2 048: a pause every 8 of them, not one per run.
    assert.equal(pauses, 6);
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
  it("lets a due timer run before it resolves (as a heartbeat timer must), on every runtime", async () => {
    // A zero-delay timer set before the turn fires first: timers of equal delay run in the
    // order they were set. A promise-only yield, or a MessageChannel message on Deno and
    // Bun, resolves before it.
    let fired = false;
    setTimeout(() => (fired = true), 0);
    await hostTurn();
    assert.equal(fired, true);
  });
});
