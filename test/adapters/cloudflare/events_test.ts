// The per-event hook a store registers for a worker's bindings (adapters/cloudflare/_events.ts):
// cloudflareWorker runs every fetch and scheduled event inside it, store initialisation
// included, with the event's ctx; bindings without a hook run as before.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { cloudflareWorker, type ExecutionContext } from "../../../adapters/cloudflare/mod.ts";
import { type EventHook, wrapEvents } from "../../../adapters/cloudflare/_events.ts";
import { createScheduler, memoryStore } from "../../../src/mod.ts";
import type { Store } from "../../../src/store/types.ts";
import { createManualClock } from "../../../src/testing.ts";

const T0 = Date.UTC(2030, 0, 1, 0, 0);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** A memory store that logs its init and claims, and whether each ran inside a hooked event. */
function loggingStore(log: string[], inside: () => boolean): Store {
  const store = memoryStore();
  return {
    ...store,
    init: async () => {
      log.push(`init ${inside() ? "inside" : "outside"}`);
      await store.init();
    },
    claim: async (requests) => {
      log.push(`claim ${inside() ? "inside" : "outside"}`);
      return await store.claim(requests);
    },
  };
}

describe("per-event hooks", () => {
  it("runs each event inside the hook its store registered, init included, with the event's ctx", async () => {
    const log: string[] = [];
    let depth = 0;
    const contexts: ExecutionContext[] = [];
    const hook: EventHook = async (ctx, work) => {
      contexts.push(ctx);
      depth += 1;
      log.push("enter");
      try {
        return await work();
      } finally {
        depth -= 1;
        log.push("leave");
      }
    };
    const worker = cloudflareWorker((env: { EDGECRON_TOKEN: string }) => {
      wrapEvents(env, hook);
      const clock = createManualClock(T0);
      return createScheduler({ clock, store: loggingStore(log, () => depth > 0), logger: quiet }).job("minutely", {
        schedule: "* * * * *",
        run: () => void log.push(`run ${depth > 0 ? "inside" : "outside"}`),
      });
    });
    const env = { EDGECRON_TOKEN: "t" };
    const ctx: ExecutionContext = { waitUntil: () => {} };
    await worker.scheduled({ scheduledTime: T0, cron: "* * * * *" }, env, ctx);
    assert.deepEqual(log, ["enter", "init inside", "claim inside", "run inside", "leave"]);
    log.length = 0;
    const res = await worker.fetch(
      new Request("http://w/health", { headers: { authorization: "Bearer t" } }),
      env,
      ctx,
    );
    assert.equal(res.status, 200);
    assert.deepEqual(log, ["enter", "leave"], "a fetch event is wrapped too (init already done)");
    assert.deepEqual(contexts, [ctx, ctx]);
  });

  it("leaves another bindings object's events unwrapped", async () => {
    let wrapped = 0;
    const hooked = {};
    wrapEvents(hooked, async (_ctx, work) => {
      wrapped += 1;
      return await work();
    });
    const worker = cloudflareWorker(() => createScheduler({ clock: createManualClock(T0), logger: quiet }));
    await worker.scheduled({ scheduledTime: T0, cron: "* * * * *" }, {}, { waitUntil: () => {} });
    assert.equal(wrapped, 0);
  });
});
