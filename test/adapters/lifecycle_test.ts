import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createShutdown } from "../../adapters/_lifecycle.ts";
import type { Scheduler } from "../../src/engine/types.ts";

/** A scheduler stand-in that records the calls a shutdown makes. */
function recorder(fail: Partial<Record<"stop" | "close", boolean>> = {}): { scheduler: Scheduler; calls: string[] } {
  const calls: string[] = [];
  const scheduler = {
    stop: async (options: unknown) => {
      calls.push(`stop ${JSON.stringify(options)}`);
      if (fail.stop) throw new Error("stop failed");
    },
    close: async () => {
      calls.push("store.close");
      if (fail.close) throw new Error("close failed");
    },
  } as unknown as Scheduler;
  return { scheduler, calls };
}

describe("createShutdown", () => {
  it("stops the scheduler, then the server, then the store, passing grace and deadline", async () => {
    const { scheduler, calls } = recorder();
    const shutdown = createShutdown(scheduler, () => {
      calls.push("server.close");
    }, { grace: "2s", deadline: "5s" });
    await shutdown();
    assert.deepEqual(calls, ['stop {"grace":"2s","deadline":"5s"}', "server.close", "store.close"]);
  });

  it("defaults to a 10s grace and a 30s deadline", async () => {
    const { scheduler, calls } = recorder();
    await createShutdown(scheduler, () => {})();
    assert.equal(calls[0], 'stop {"grace":"10s","deadline":"30s"}');
  });

  it("runs once however often it is called", async () => {
    const { scheduler, calls } = recorder();
    const shutdown = createShutdown(scheduler, () => {
      calls.push("server.close");
    });
    const first = shutdown();
    const second = shutdown();
    assert.equal(first, second);
    await Promise.all([first, second, shutdown()]);
    assert.equal(calls.filter((c) => c === "store.close").length, 1);
    assert.equal(calls.length, 3);
  });

  it("reports a failing step and still closes the rest", async () => {
    const { scheduler, calls } = recorder({ stop: true, close: true });
    const errors: string[] = [];
    await createShutdown(scheduler, () => {
      calls.push("server.close");
      throw new Error("server close failed");
    }, { onError: (step, error) => errors.push(`${step}: ${(error as Error).message}`) })();
    assert.deepEqual(calls.slice(1), ["server.close", "store.close"]);
    assert.deepEqual(errors, [
      "stop scheduler: stop failed",
      "close server: server close failed",
      "close store: close failed",
    ]);
  });

  it("waits for the server to finish closing before closing the store", async () => {
    const { scheduler, calls } = recorder();
    await createShutdown(scheduler, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      calls.push("server.closed");
    })();
    assert.deepEqual(calls.slice(1), ["server.closed", "store.close"]);
  });
});
