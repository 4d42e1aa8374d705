import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createShareMarks, shareDigest, SHARES_KEY } from "../../../src/engine/tick/share_marks.ts";
import { PRESENCE_TTL_MS } from "../../../src/engine/tick/presence.ts";
import { resolveJob } from "../../../src/engine/jobs/spec.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { memoryLogger, T0 } from "../_helpers.ts";

const job = (name: string, schedule = "* * * * *", enabled = true) =>
  resolveJob(name, { schedule, enabled, run: () => {} }, {});

describe("share marks", () => {
  it("a node's mark names the tick and the share; another node finds it only for that tick and that digest", async () => {
    const store = createMemoryStore();
    const a = createShareMarks({ store, node: "a", log: memoryLogger() });
    const b = createShareMarks({ store, node: "b", log: memoryLogger() });
    await a.note(T0, "d1");
    assert.deepEqual([...await b.claimed(T0, new Map([["a", "d1"]]))], ["a"]);
    assert.deepEqual([...await b.claimed(T0 + 1, new Map([["a", "d1"]]))], [], "another tick");
    assert.deepEqual([...await b.claimed(T0, new Map([["a", "d2"]]))], [], "another share");
    assert.deepEqual([...await b.claimed(T0, new Map([["c", "d1"]]))], [], "a node with no mark");
    // Both marks kept; a node never counts its own.
    await b.note(T0, "d3");
    assert.deepEqual([...await b.claimed(T0, new Map([["a", "d1"], ["b", "d3"]]))], ["a"]);
    assert.deepEqual([...await a.claimed(T0, new Map([["a", "d1"], ["b", "d3"]]))], ["b"]);
  });

  it("drops marks older than the presence TTL when it writes, and keeps the rest", async () => {
    const store = createMemoryStore();
    await store.putSetting(
      SHARES_KEY,
      JSON.stringify({ gone: [T0 - PRESENCE_TTL_MS - 1, "x"], near: [T0 - 60_000, "y"] }),
    );
    await createShareMarks({ store, node: "a", log: memoryLogger() }).note(T0, "d");
    assert.deepEqual(JSON.parse((await store.getSetting(SHARES_KEY))!), { near: [T0 - 60_000, "y"], a: [T0, "d"] });
  });

  it("a bad stored value, a bad entry or a failing store means no mark, never an error", async () => {
    const store = createMemoryStore();
    const log = memoryLogger();
    const b = createShareMarks({ store, node: "b", log });
    const owners = new Map([["a", "d"], ["c", "d"]]);
    for (const text of ["{not json", "[1]", "null", JSON.stringify({ a: [String(T0), "d"], c: { at: T0 } })]) {
      await store.putSetting(SHARES_KEY, text);
      assert.deepEqual([...await b.claimed(T0, owners)], [], text);
    }
    // A bad value is replaced by the next note.
    await createShareMarks({ store, node: "a", log }).note(T0, "d");
    assert.deepEqual([...await b.claimed(T0, owners)], ["a"]);
    store.setFailing(true);
    assert.deepEqual([...await b.claimed(T0, owners)], []);
    await b.note(T0, "d"); // resolves
    store.setFailing(false);
    assert.deepEqual(
      JSON.parse((await store.getSetting(SHARES_KEY))!),
      { a: [T0, "d"] },
      "the failed note wrote nothing",
    );
  });

  it("a share's digest does not depend on order, and changes with a name, a schedule, a timezone or enabled", () => {
    const base = [job("a"), job("b"), job("c")];
    const digest = shareDigest(base);
    assert.equal(shareDigest([...base].reverse()), digest);
    assert.notEqual(shareDigest(base.slice(0, 2)), digest);
    assert.notEqual(shareDigest([job("a"), job("b"), job("d")]), digest);
    assert.notEqual(shareDigest([job("a"), job("b"), job("c", "*/2 * * * *")]), digest);
    assert.notEqual(
      shareDigest([
        job("a"),
        job("b"),
        resolveJob("c", { schedule: "* * * * *", timezone: "Asia/Tokyo", run: () => {} }, {}),
      ]),
      digest,
    );
    assert.notEqual(shareDigest([job("a"), job("b"), job("c", "* * * * *", false)]), digest);
    assert.equal(shareDigest([]), shareDigest([]));
  });
});
