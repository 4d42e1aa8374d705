import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createPresence, PRESENCE_KEY, PRESENCE_TTL_MS, VERIFY_MS } from "../../../src/engine/tick/presence.ts";
import { createManualClock } from "../../../src/engine/clock.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { deferred, memoryLogger, T0 } from "../_helpers.ts";

describe("presence", () => {
  it("nodes that tick large minutes on one store learn of each other", async () => {
    const store = createMemoryStore();
    const a = createPresence({ store, node: "a", log: memoryLogger() });
    const b = createPresence({ store, node: "b", log: memoryLogger() });
    assert.deepEqual(await a.live(T0), []);
    assert.deepEqual(await b.live(T0 + 1), ["a"]);
    assert.deepEqual(await a.live(T0 + 2), ["b"]);
  });

  it("forgets a node not seen within the TTL", async () => {
    const store = createMemoryStore();
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ old: T0 - PRESENCE_TTL_MS - 1, recent: T0 - 1_000 }));
    const a = createPresence({ store, node: "a", log: memoryLogger() });
    assert.deepEqual(await a.live(T0), ["recent"]);
    assert.deepEqual(Object.keys(JSON.parse((await store.getSetting(PRESENCE_KEY))!)).sort(), ["a", "recent"]);
  });

  it("a bad stored value or a failing store means no one is known, never an error", async () => {
    const store = createMemoryStore();
    await store.putSetting(PRESENCE_KEY, "{not json");
    const a = createPresence({ store, node: "a", log: memoryLogger() });
    assert.deepEqual(await a.live(T0), []);
    assert.deepEqual(JSON.parse((await store.getSetting(PRESENCE_KEY))!), { a: T0 });
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ b: "yesterday", c: T0 }));
    assert.deepEqual(await a.live(T0 + 1), ["c"]);
    store.setFailing(true);
    assert.deepEqual(await a.live(T0 + 2), []);
  });

  it("two nodes that note themselves at the same moment both stay listed (a write that replaced another is merged again)", async () => {
    const store = createMemoryStore();
    // Every node reads before any writes: a plain read-modify-write keeps only the last writer.
    const { getSetting } = store;
    let reads = 0;
    const gate = deferred();
    store.getSetting = async (key) => {
      const value = await getSetting(key);
      if (++reads === 2) gate.resolve();
      if (reads <= 2) await gate.promise;
      return value;
    };
    const nodes = ["n1", "n2"];
    await Promise.all(nodes.map((node) => createPresence({ store, node, log: memoryLogger() }).live(T0)));
    const stored = JSON.parse((await getSetting(PRESENCE_KEY))!);
    assert.deepEqual(Object.keys(stored).sort(), nodes);
  });
  it("an entry another node's late write dropped is written again at the check after the write, once the check sees it gone", async () => {
    const store = createMemoryStore();
    const clock = createManualClock(T0);
    const a = createPresence({ store, node: "a", log: memoryLogger(), clock });
    assert.deepEqual(await a.live(T0, true), []);
    // b read the row before a wrote, and writes after a's read-back: a's entry is gone.
    await store.putSetting(PRESENCE_KEY, JSON.stringify({ b: T0 }));
    await clock.advance(VERIFY_MS - 1);
    assert.deepEqual(Object.keys(JSON.parse((await store.getSetting(PRESENCE_KEY))!)), ["b"]);
    await clock.advance(1);
    assert.deepEqual(JSON.parse((await store.getSetting(PRESENCE_KEY))!), { b: T0, a: T0 });
    // The rewrite is checked too; an entry that stays needs no more writes.
    const { putSetting } = store;
    let writes = 0;
    store.putSetting = (key, value) => (writes++, putSetting(key, value));
    await clock.advance(VERIFY_MS);
    assert.equal(writes, 0);
    assert.equal(clock.pending().length, 0, "no check is left armed");
  });

  it("no check without verify, and close() disarms it", async () => {
    const store = createMemoryStore();
    const clock = createManualClock(T0);
    const a = createPresence({ store, node: "a", log: memoryLogger(), clock });
    await a.live(T0);
    assert.equal(clock.pending().length, 0);
    const b = createPresence({ store, node: "b", log: memoryLogger(), clock });
    await b.live(T0, true);
    assert.equal(clock.pending().length, 1);
    b.close();
    assert.equal(clock.pending().length, 0);
  });
});
