// A data job deleted and re-created within the same millisecond (or by a node whose clock
// is behind) must reach every node: versions rise across deletes.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import { createManualClock } from "../../../src/engine/clock.ts";
import { MIN, setup, T0, tickAt } from "../_helpers.ts";

function fetchSpy() {
  const urls: string[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    urls.push(new Request(input, init).url);
    return Promise.resolve(new Response("ok"));
  };
  return { urls, fetch: fetch as typeof globalThis.fetch };
}

const spec = (url: string) => ({ schedule: "* * * * *", target: { url, method: "POST" as const } });

describe("data job versions across deletes", () => {
  for (const behindMs of [0, 300]) {
    it(`a delete and re-create ${behindMs === 0 ? "in the same millisecond" : "by a node 300 ms behind"} reaches the other node: no delivery to the deleted target`, async () => {
      const store = createMemoryStore();
      const spy = fetchSpy();
      const b = setup({ store, node: "b", start: T0 - MIN, fetch: spy.fetch, webhookSecret: "k" });
      const a = setup({ store, node: "a", clock: createManualClock(T0 - MIN - behindMs), webhookSecret: "k" });
      await a.scheduler.define("hook", spec("https://old.example.test/"));
      await tickAt(b, T0 - MIN + 1);
      spy.urls.length = 0; // b knows the old definition now (it may have delivered its first slot)
      // A deletes and re-creates at once (with its clock behind, the updatedAt can even repeat an older one).
      await a.scheduler.undefine("hook");
      await a.scheduler.define("hook", spec("https://new.example.test/"));
      for (let i = 0; i < 3; i++) await tickAt(b, T0 + i * MIN);
      assert.deepEqual(spy.urls, [
        "https://new.example.test/",
        "https://new.example.test/",
        "https://new.example.test/",
      ]);
    });
  }
});
