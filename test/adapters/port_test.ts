// The long-lived adapters' `port` option from plain JavaScript, where nothing checks its
// type: `serveNode(scheduler, { port: process.env.PORT })`. Runs the adapter of the runtime
// it runs on (Node, Bun); on Deno, Deno.serve refuses a bad port itself.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { createScheduler } from "../../src/engine/scheduler.ts";
import type { Scheduler } from "../../src/engine/types.ts";
import { runtime } from "./_runtime.ts";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

async function serve(scheduler: Scheduler, port: unknown): Promise<{ shutdown(): Promise<void> }> {
  const options = { token: "t0123456789", port: port as number, signals: [] as [], exit: false, timer: false };
  if (runtime === "bun") return (await import("../../adapters/bun/mod.ts")).serveBun(scheduler, options);
  return (await import("../../adapters/node/mod.ts")).serveNode(scheduler, options);
}

describe(`serve${runtime === "bun" ? "Bun" : "Node"}'s port`, {
  skip: runtime === "deno" ? "Deno.serve checks it" : false,
}, () => {
  for (const port of ["abc", "", " 80", "0x50", "80a", "65536", Number.NaN, -1, 65_536, 80.5]) {
    it(`refuses ${JSON.stringify(port) ?? String(port)} naming the option (Node listened on a pipe named "abc")`, async () => {
      let opened = false;
      const scheduler = createScheduler({ logger: quiet });
      const ready = scheduler.ready;
      scheduler.ready = () => {
        opened = true;
        return ready();
      };
      let served: { shutdown(): Promise<void> } | undefined;
      try {
        served = await serve(scheduler, port);
      } catch (error) {
        assert.ok(error instanceof SchedulerError, String(error));
        assert.equal(error.code, "invalid-spec");
        assert.equal(error.path, "port");
        assert.match(error.message, /^invalid-spec: serve(Node|Bun): port must be a whole number from 0 to 65535/);
        assert.equal(opened, false, "refused before the store opens");
        return;
      }
      await served.shutdown();
      assert.fail(`served on port ${JSON.stringify(port)}`);
    });
  }

  it("takes a port's decimal text (process.env.PORT), as Node's listen does", async () => {
    const scheduler = createScheduler({ logger: quiet });
    const served = await serve(scheduler, "0");
    try {
      assert.match((served as unknown as { url: string }).url, /^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await served.shutdown();
    }
  });
});
