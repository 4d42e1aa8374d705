// The long-lived adapters' first minute: one start-up line through the scheduler's logger,
// loopback by default, and a busy port that says which port and how to choose another.
// Runs the adapter of the runtime it runs on (node --test, bun test, deno test --unstable-cron).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createScheduler } from "../../src/engine/scheduler.ts";
import type { Logger, Scheduler } from "../../src/engine/types.ts";
import { isAddressInUse, listenError, listenUrl } from "../../adapters/_listen.ts";
import { runtime } from "./_runtime.ts";

type Served = { url: string; port: number; shutdown(): Promise<void> };

async function serve(scheduler: Scheduler, port: number): Promise<Served> {
  const common = { token: "t0123456789", port, signals: [] as [], exit: false, timer: false };
  if (runtime === "node") return (await import("../../adapters/node/mod.ts")).serveNode(scheduler, common);
  if (runtime === "bun") return (await import("../../adapters/bun/mod.ts")).serveBun(scheduler, common);
  // By a variable: tsc (Node types) does not check the Deno adapter, deno does when it runs this.
  const denoAdapter = "../../adapters/deno/mod.ts";
  const { serveDeno } = await import(denoAdapter) as {
    serveDeno: (s: Scheduler, o: object) => { shutdown(): Promise<void> };
  };
  return await new Promise<Served>((resolve, reject) => {
    try {
      const handle = serveDeno(scheduler, {
        token: "t0123456789",
        name: `serve test ${Math.random().toString(36).slice(2)}`,
        signals: false,
        serve: { port },
        onListen: ({ url, port }: { url: string; port: number }) =>
          resolve({ url, port, shutdown: () => handle.shutdown() }),
      });
    } catch (error) {
      reject(error);
    }
  });
}

function recording(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const push = (message: string): void => void lines.push(message);
  return { lines, debug: push, info: push, warn: push, error: push };
}

describe(`serve on ${runtime}`, () => {
  it("logs one line with the URL through the scheduler's logger, on 127.0.0.1 by default", async () => {
    const logger = recording();
    const served = await serve(createScheduler({ logger }), 0);
    try {
      assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.deepEqual(logger.lines.filter((l) => l.includes("listening")), [
        `listening on ${served.url} (dashboard and API)`,
      ]);
      assert.equal((await fetch(`${served.url}/health`)).status, 401);
    } finally {
      await served.shutdown();
    }
  });

  it("a manual run still going at shutdown: its caller gets the outcome before the server closes", async () => {
    // Node and Bun cut every connection once the stop was over: the run was recorded `ok`,
    // and its caller got a connection reset instead of the answer.
    const scheduler = createScheduler({ logger: recording() }).job("slow", {
      schedule: "0 0 1 1 *",
      run: () => new Promise<void>((resolve) => setTimeout(resolve, 300)),
    });
    const served = await serve(scheduler, 0);
    const answer = fetch(`${served.url}/jobs/slow/run`, {
      method: "POST",
      headers: { authorization: "Bearer t0123456789" },
    }).then(async (res) => [res.status, (await res.json() as { outcome?: string }).outcome], (e) => String(e));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await served.shutdown();
    assert.deepEqual(await answer, [200, "ok"]);
  });

  it("a client that never finishes its request does not hold the shutdown open", async () => {
    // The answers in flight get a short while to be written; a trickling client is then cut.
    const served = await serve(createScheduler({ logger: recording() }), 0);
    const { connect } = await import("node:net");
    const socket = connect(served.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.on("error", () => {});
    socket.write("POST /jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{");
    await new Promise((resolve) => setTimeout(resolve, 50));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const outcome = await Promise.race([
      served.shutdown().then(() => "closed"),
      new Promise((resolve) => timer = setTimeout(() => resolve("still open after 10 s"), 10_000)),
    ]);
    clearTimeout(timer);
    socket.destroy();
    assert.equal(outcome, "closed");
  });

  it("a busy port is an error naming the port and the `port` option, not a raw EADDRINUSE", async () => {
    const first = await serve(createScheduler({ logger: recording() }), 0);
    try {
      await assert.rejects(serve(createScheduler({ logger: recording() }), first.port), (e: unknown) => {
        assert.ok(e instanceof Error);
        assert.match(e.message, new RegExp(`^edgecron: port ${first.port} on 127\\.0\\.0\\.1 is already in use`));
        assert.match(e.message, /the `port` option: serve(Node|Bun|Deno)\(scheduler, \{ port: \d+ \}\)/);
        assert.match(e.message, /PORT=/);
        assert.equal((e as { code?: unknown }).code, "EADDRINUSE");
        return true;
      });
    } finally {
      await first.shutdown();
    }
  });
});

describe("listen helpers", () => {
  it("recognise each runtime's address-in-use error and leave others alone", () => {
    assert.ok(
      isAddressInUse(
        Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:8787"), { code: "EADDRINUSE" }),
      ),
    );
    assert.ok(isAddressInUse(Object.assign(new Error("Address already in use (os error 98)"), { name: "AddrInUse" })));
    assert.ok(
      isAddressInUse(Object.assign(new Error("Failed to start server. Is port 8787 in use?"), { code: "EADDRINUSE" })),
    );
    const other = new Error("EACCES");
    assert.equal(listenError(other, 80, "127.0.0.1", "serveNode"), other);
    assert.equal(listenUrl("0.0.0.0", 8787), "http://localhost:8787");
    assert.equal(listenUrl("::1", 8787), "http://[::1]:8787");
  });
});
