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
  // Each busy-waits on the host's clock: a timer is due only once wall time has passed.
  const busy = (ms: number): void => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  it("lets a timer that is due run before a second turn resolves (as a heartbeat timer must), on every runtime", async () => {
    // A turn ends after this iteration's I/O; the next iteration begins with its due timers.
    let fired = false;
    setTimeout(() => (fired = true), 0);
    busy(5);
    await hostTurn();
    await hostTurn();
    assert.equal(fired, true);
  });

  it("never starves a timer: turns chained with work between them let it fire, on every runtime", async () => {
    // A promise-only yield, or a MessageChannel message on Deno and Bun, never lets it run.
    let fired = false;
    setTimeout(() => (fired = true), 5);
    let turns = 0;
    while (!fired && turns < 1_000) {
      busy(1);
      await hostTurn();
      turns++;
    }
    assert.equal(fired, true);
    // Due after 5 ms of work: it runs at the next iteration's timers, not hundreds of turns later.
    assert.ok(turns <= 50, `fired after ${turns} turns`);
  });
});
