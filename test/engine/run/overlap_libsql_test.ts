// Overlap policies across two schedulers, each with its own connection to one libSQL
// file: the live run is on node A, the due slot on node B, and B buffers or cancels
// through the store.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { libsqlStore } from "../../../src/store/libsql/mod.ts";
import type { MemoryStore } from "../../../src/store/memory/mod.ts";
import type { Store } from "../../../src/store/types.ts";
import { HOUR, MIN, rows, SEC, setup, T0 } from "../_helpers.ts";
import { gate, register } from "./_gate.ts";

const dir = mkdtempSync(join(tmpdir(), "edgecron-overlap-"));
const stores: Store[] = [];
after(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});
let files = 0;
/** Two connections to one fresh file: one per node, as two processes would have. */
function twoConnections(): [MemoryStore, MemoryStore] {
  const url = `file:${join(dir, `db-${++files}.db`)}`;
  const pair = [libsqlStore({ url }), libsqlStore({ url })];
  stores.push(...pair);
  return pair as unknown as [MemoryStore, MemoryStore];
}

describe("overlap policies on one libSQL file, two schedulers", () => {
  it("bufferOne: B buffers its slot behind A's live run and A's settling starts it; B's next slot is skipped", async () => {
    const [sa, sb] = twoConnections();
    const a = setup({ store: sa, node: "a", start: T0 - MIN + 1 });
    const b = setup({ store: sb, node: "b", clock: a.clock });
    const h = gate(a.clock);
    for (const s of [a, b]) s.scheduler.job("j", { schedule: "* * * * *", overlap: "bufferOne", run: h.run });
    await register(a);
    const ticks = [a.scheduler.tick()];
    await h.until(() => h.state.started.length === 1, "A runs 00:00");
    await a.clock.set(T0 + MIN);
    ticks.push(b.scheduler.tick());
    await h.until(() => b.events.some((e) => e.type === "buffered"), "B buffers 00:01");
    await a.clock.set(T0 + 2 * MIN);
    ticks.push(b.scheduler.tick());
    await h.until(() => b.events.some((e) => e.type === "skipped"), "B skips 00:02");
    assert.deepEqual(h.state.started, [T0]);
    await h.release(T0);
    await h.until(() => h.state.started.length === 2, "the buffered slot starts");
    await h.release(T0 + MIN);
    await Promise.all(ticks);
    assert.deepEqual((await rows(sa, "j")).map((r) => [(r.slot - T0) / MIN, r.status, r.error]), [[0, "ok", null], [
      1,
      "ok",
      null,
    ], [2, "skipped", "overlap"]]);
    assert.equal(h.state.peak, 1);
  });

  it("cancelOther: B's slot aborts A's live run at A's next heartbeat; A records it cancelled and the new slot runs once", async () => {
    const [sa, sb] = twoConnections();
    const a = setup({ store: sa, node: "a", start: T0 - MIN + 1 });
    const b = setup({ store: sb, node: "b", clock: a.clock });
    const h = gate(a.clock);
    for (const s of [a, b]) s.scheduler.job("j", { schedule: "* * * * *", overlap: "cancelOther", run: h.run });
    await register(a);
    const ticks = [a.scheduler.tick()];
    await h.until(() => h.state.started.length === 1, "A runs 00:00");
    await a.clock.set(T0 + MIN);
    ticks.push(b.scheduler.tick());
    await h.until(() => b.events.some((e) => e.type === "buffered"), "B buffers 00:01");
    assert.equal((await sb.getRun("j", T0))?.status, "cancelling");
    await a.clock.advance(5 * SEC);
    await h.until(() => h.state.started.length === 2, "the new slot starts after the old one settled");
    assert.deepEqual(h.state.reasons, ["superseded"]);
    await h.release(T0 + MIN);
    await Promise.all(ticks);
    assert.deepEqual((await rows(sb, "j")).map((r) => [(r.slot - T0) / MIN, r.status, r.error]), [[
      0,
      "cancelled",
      "superseded",
    ], [1, "ok", null]]);
    assert.equal(h.state.peak, 1);
  });

  it("backfill: two schedulers backfilling the same range run each slot once, one at a time", async () => {
    const [sa, sb] = twoConnections();
    const a = setup({ store: sa, node: "a", start: T0 + HOUR });
    const b = setup({ store: sb, node: "b", clock: a.clock });
    let live = 0;
    let peak = 0;
    for (const s of [a, b]) {
      s.scheduler.job("j", {
        schedule: "*/10 * * * *",
        run: async () => {
          peak = Math.max(peak, ++live);
          await Promise.resolve();
          live--;
        },
      });
    }
    const range = { from: T0 - HOUR, to: T0 };
    let settled = false;
    const both = Promise.all([a.scheduler.backfill("j", range), b.scheduler.backfill("j", range)]).finally(
      () => (settled = true),
    );
    // A node waiting on the other's run looks again each heartbeat.
    for (let i = 0; i < 200 && !settled; i++) await a.clock.advance(SEC);
    const [ra, rb] = await both;
    const all = await rows(sa, "j");
    assert.deepEqual(
      all.map((r) => [(r.slot - T0) / MIN, r.status, r.attempt, r.kind]),
      [-60, -50, -40, -30, -20, -10].map((m) => [m, "ok", 1, "backfill"]),
    );
    assert.equal(ra.planned + rb.planned, 12);
    assert.deepEqual(
      [...ra.ran, ...rb.ran].sort((x, y) => x - y),
      all.map((r) => r.slot),
      "each slot is reported run by exactly one of the two",
    );
    assert.equal(ra.ran.length + ra.skipped.length, 6);
    assert.equal(rb.ran.length + rb.skipped.length, 6);
    assert.equal(peak, 1);
  });
});
