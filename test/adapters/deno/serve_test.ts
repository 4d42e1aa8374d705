// serveDeno() with a store that is down at boot: no crash, and the trigger and requests
// take the store up once it is back. Runs against a stand-in `Deno` global (the trigger's
// handler and the server's handler are called directly: no real minute), so it runs on
// Node and Bun; on Deno, whose own global it cannot replace, it is skipped.
import { afterEach, beforeEach, describe, it, mock } from "node:test";
import assert from "node:assert/strict";
import { createScheduler } from "../../../src/mod.ts";
import { memoryStore } from "../../../src/store/memory/mod.ts";
import type { Scheduler, TickReport } from "../../../src/engine/types.ts";
import { needsStandInDeno } from "../_runtime.ts";

// A computed specifier keeps tsc (which has no Deno types) out of the adapter.
const ADAPTER = "../../../adapters/deno/mod.ts";
interface Handle {
  ready: Promise<void>;
  shutdown(): Promise<void>;
}
type ServeDeno = (scheduler: Scheduler, options: object) => Handle;
const loadServeDeno = async (): Promise<ServeDeno> => ((await import(ADAPTER)) as { serveDeno: ServeDeno }).serveDeno;

type Serve = (request: Request, info: { remoteAddr: { hostname: string } }) => Promise<Response>;

/** A `Deno` global with what serveDeno calls; keeps the cron and serve handlers. */
function fakeDeno(
  shutdown: () => Promise<void> = () => Promise.resolve(),
): { crons: (() => Promise<void>)[]; serves: Serve[] } {
  const crons: (() => Promise<void>)[] = [];
  const serves: Serve[] = [];
  (globalThis as { Deno?: unknown }).Deno = {
    cron: (_name: string, _schedule: string, ...rest: unknown[]) => {
      const [options, handler] = rest.length === 1 ? [{}, rest[0]] : rest;
      crons.push(handler as () => Promise<void>);
      cronOptions.push(options as { signal?: AbortSignal });
    },
    serve: (_options: object, handler: Serve) => {
      serves.push(handler);
      return { shutdown };
    },
    permissions: { querySync: () => ({ state: "denied" }) },
    env: { get: () => undefined },
    addSignalListener: (signal: string, listener: () => void) => void signalled.push([signal, listener]),
    removeSignalListener: () => {},
    exit: (code: number) => void exits.push(code),
  };
  return { crons, serves };
}

/** The options of each Deno.cron call. */
const cronOptions: { signal?: AbortSignal }[] = [];

/** The signal listeners serveDeno added, and the codes it exited with. */
const signalled: [string, () => void][] = [];
const exits: number[] = [];

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** A memory store whose first `init()` fails, as a database not yet reachable at boot. */
function downAtBoot() {
  const store = memoryStore();
  let inits = 0;
  const init = async (): Promise<void> => {
    inits += 1;
    if (inits === 1) {
      store.setFailing(true);
      try {
        await store.init();
      } finally {
        store.setFailing(false);
      }
    }
    await store.init();
  };
  return { ...store, init };
}

describe(
  "serveDeno with a store down at boot",
  { skip: needsStandInDeno },
  () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    beforeEach(() => {
      unhandled.length = 0;
      process.on("unhandledRejection", onUnhandled);
    });
    afterEach(() => {
      process.off("unhandledRejection", onUnhandled);
      delete (globalThis as { Deno?: unknown }).Deno;
    });

    it("does not end the process with an unhandled rejection, and the next trigger ticks once the store is back", async () => {
      const { crons, serves } = fakeDeno();
      const serveDeno = await loadServeDeno();
      const reports: TickReport[] = [];
      const scheduler = createScheduler({ store: downAtBoot(), logger: quiet })
        .job("minutely", { schedule: "* * * * *", run: () => {} });
      const handle = serveDeno(scheduler, {
        token: "t0123456789",
        signals: false,
        tickOnStart: true,
        timer: true,
        onTick: (report: TickReport) => void reports.push(report),
      });
      await assert.rejects(handle.ready, /store-error/);
      // Let every rejection the adapter left unhandled be reported.
      await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(unhandled, [], "a store down at boot must not end the process");

      assert.equal(crons.length, 1);
      await crons[0]!();
      assert.ok(reports.length >= 1, "the trigger ticked");
      assert.equal(reports.at(-1)!.ok, true, "the trigger's tick initialised the store, which is back");

      const res = await serves[0]!(
        new Request("http://deno/health", { headers: { authorization: "Bearer t0123456789" } }),
        { remoteAddr: { hostname: "127.0.0.1" } },
      );
      assert.equal(res.status, 200);
      await handle.shutdown();
    });

    it("refuses a missing token before registering the trigger", async () => {
      const { crons } = fakeDeno();
      const serveDeno = await loadServeDeno();
      const scheduler = createScheduler({ logger: quiet });
      assert.throws(() => serveDeno(scheduler, { signals: false, serve: false }), /router\.token/);
      assert.equal(crons.length, 0, "no Deno.cron left behind, which would refuse the name on a retry");
    });
  },
);

describe("serveDeno's stop", { skip: needsStandInDeno }, () => {
  afterEach(() => {
    mock.timers.reset();
    delete (globalThis as { Deno?: unknown }).Deno;
  });

  it("does not wait forever for a request in flight (a client trickling its body held a SIGTERM open)", async () => {
    // Deno's server.shutdown() waits for every request in flight: this one never ends.
    fakeDeno(() => new Promise<void>(() => {}));
    const serveDeno = await loadServeDeno();
    let closed = false;
    const store = { ...memoryStore(), close: async () => void (closed = true) };
    const scheduler = createScheduler({ store, logger: quiet });
    const handle = serveDeno(scheduler, { token: "t0123456789", signals: false });
    await handle.ready;
    mock.timers.enable({ apis: ["setTimeout"] });
    let done = false;
    void handle.shutdown().then(() => (done = true));
    // A minute of mocked time, a second at a time.
    for (let i = 0; i < 60 && !done; i++) {
      mock.timers.tick(1_000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(done, true, "shutdown() resolved");
    assert.equal(closed, true, "the store was closed");
  });
});

describe("serveDeno's signals", { skip: needsStandInDeno }, () => {
  afterEach(() => {
    signalled.length = 0;
    exits.length = 0;
    delete (globalThis as { Deno?: unknown }).Deno;
  });

  it("a second SIGTERM while runs settle exits 1 saying why, as on Node and Bun (it exited without a word)", async () => {
    fakeDeno();
    const serveDeno = await loadServeDeno();
    const scheduler = createScheduler({ logger: quiet });
    const handle = serveDeno(scheduler, { token: "t0123456789", serve: false });
    await handle.ready;
    const said: string[] = [];
    const consoleError = console.error;
    console.error = (line: string) => void said.push(line);
    try {
      const onTerm = signalled.find(([signal]) => signal === "SIGTERM")?.[1];
      assert.ok(onTerm, "a SIGTERM listener");
      // Both before the stop the first one began can finish.
      onTerm();
      onTerm();
      assert.deepEqual(exits, [1]);
      assert.deepEqual(said, [
        "edgecron: SIGTERM: stopping (runs settle, then the store closes)",
        "edgecron: SIGTERM again, exiting now",
      ]);
    } finally {
      console.error = consoleError;
    }
    await handle.shutdown();
  });
});

describe(
  "serveDeno's trigger after a stop",
  { skip: needsStandInDeno },
  () => {
    afterEach(() => {
      cronOptions.length = 0;
      delete (globalThis as { Deno?: unknown }).Deno;
    });

    it("shutdown() unregisters the Deno.cron trigger: a stopped handle ran its jobs every minute on", async () => {
      const { crons } = fakeDeno();
      const serveDeno = await loadServeDeno();
      let runs = 0;
      const scheduler = createScheduler({ logger: quiet }).job("minutely", {
        schedule: "* * * * *",
        run: () => void (runs += 1),
      });
      const handle = serveDeno(scheduler, { token: "t0123456789", serve: false, signals: false });
      await handle.ready;
      await crons[0]!();
      assert.equal(runs, 1, "the trigger ran the job while serving");
      await handle.shutdown();
      assert.equal(cronOptions[0]?.signal?.aborted, true, "Deno.cron's signal is aborted: Deno calls it no more");
    });
  },
);
