// Adversarial scenarios that depend on the store's atomicity, replayed on a libSQL file.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import type { MemoryStore } from "../../src/store/memory/mod.ts";
import type { Store } from "../../src/store/types.ts";
import { faultyStore } from "./_faulty.ts";
import { deferred, MIN, ofType, rows, SEC, setup, T0, tally, tickAt } from "./_helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "edgecron-adversarial-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const stores: Store[] = [];
after(async () => {
  for (const store of stores) await store.close();
});
/** A fresh libSQL file store (typed as the helpers' store; only Store methods are used). */
function fileStore(): MemoryStore {
  const store = libsqlStore({ url: `file:${join(dir, `db-${++files}.db`)}` });
  stores.push(store);
  return store as unknown as MemoryStore;
}

describe("adversarial on libSQL", () => {
  it("a dead node's expired claim is not re-run beside a live manual run", async () => {
    const store = fileStore();
    const a = setup({ store, node: "a", start: T0 - MIN + 1 });
    let live = 0;
    let peak = 0;
    const gate = deferred();
    a.scheduler.job("single", {
      schedule: "0 * * * *",
      retries: { attempts: 2 },
      run: async () => {
        peak = Math.max(peak, ++live);
        await gate.promise;
        live--;
      },
    });
    await tickAt(a, T0 - MIN + 1);
    await store.claim([{
      job: "single",
      slot: T0,
      kind: "scheduled",
      status: "running",
      overlap: "skip",
      node: "dead",
      batch: "d",
      now: T0,
      leaseUntil: T0 + SEC,
    }]);
    await a.clock.set(T0 + MIN);
    const manual = a.scheduler.run("single", { mode: "force" });
    for (let i = 0; i < 100 && (await store.runs("single")).length < 2; i++) await a.clock.settle();
    const tick = a.scheduler.tick();
    for (let i = 0; i < 100 && (await store.getRun("single", T0))?.status === "running"; i++) await a.clock.settle();
    gate.resolve();
    await Promise.all([manual, tick]);
    assert.equal(peak, 1);
    assert.equal((await store.getRun("single", T0))!.status, "abandoned");
  });

  it("an outcome write that fails once is retried: the row ends ok, the slot runs once", async () => {
    const store = faultyStore(fileStore());
    const s = setup({ store });
    const ran: number[] = [];
    s.scheduler.job("once", {
      schedule: "* * * * *",
      timeout: "10s",
      retries: { attempts: 3 },
      run: (ctx) => void ran.push(ctx.slot),
    });
    await tickAt(s, T0 + 1);
    store.failNext("update");
    await s.clock.set(T0 + MIN);
    const pending = s.scheduler.tick();
    for (let i = 0; i < 20 && (await store.getRun("once", T0 + MIN))?.status !== "ok"; i++) await s.clock.advance(250);
    await pending;
    await tickAt(s, T0 + 2 * MIN);
    assert.deepEqual(ran, [T0 + MIN, T0 + 2 * MIN]);
    assert.deepEqual(tally(await rows(store, "once")), { ok: 2 });
  });

  it("a handler error with a lone surrogate or a NUL is recorded, well-formed, and reads back", async () => {
    // The batch write passed the text through JSON into SQLite, which stored the surrogate
    // as bytes that are not UTF-8: the next read of the row (runs(), the dashboard) made the
    // libSQL driver panic and took the process down. On Postgres the outcome was refused,
    // retried for as long as the lease held, and the tick never settled.
    const s = setup({ store: fileStore() });
    const thrown: Record<string, unknown> = {
      lone: new Error("bad \ud800 text"),
      low: new Error("\udc00 first"),
      nul: new Error("a\u0000b"),
      text: "thrown \udbff string",
    };
    for (const [job, value] of Object.entries(thrown)) {
      s.scheduler.job(job, {
        schedule: "* * * * *",
        run: () => {
          throw value;
        },
      });
    }
    s.scheduler.job("fine", { schedule: "* * * * *", run: () => {} });
    await tickAt(s, T0 + 1);
    const report = await tickAt(s, T0 + MIN);
    assert.equal(report.ok, true);
    const errors: Record<string, unknown> = {};
    for (const job of [...Object.keys(thrown), "fine"]) {
      const [row] = (await s.scheduler.runs(job)).filter((r) => r.slot === T0 + MIN);
      errors[job] = [row?.status, row?.error];
    }
    assert.deepEqual(errors, {
      lone: ["error", "bad \ufffd text"],
      low: ["error", "\ufffd first"],
      nul: ["error", "a\ufffdb"],
      text: ["error", "thrown \ufffd string"],
      fine: ["ok", null],
    });
  });

  it("run(due) records the skipped-over slots missed", async () => {
    const s = setup({ store: fileStore() });
    s.scheduler.job("m", { schedule: "* * * * *", run: () => {} });
    await tickAt(s, T0 + 1);
    await s.clock.set(T0 + 4 * MIN + SEC);
    assert.equal((await s.scheduler.run("m", { mode: "due" })).ok, true);
    assert.deepEqual((await rows(s.store, "m")).map((r) => r.status), ["missed", "missed", "missed", "ok"]);
    assert.equal(ofType(s.events, "missed").length, 3);
  });
});
