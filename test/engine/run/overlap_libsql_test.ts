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
import { MIN, rows, SEC, setup, T0 } from "../_helpers.ts";
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
    const a = setup({ store: sa, node: "a", start: T0 - MIN });
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
    assert.deepEqual((await rows(sa, "j")).map((r) => [(r.slot - T0) / MIN, r.status, r.error]), [[0, "ok", null], [1, "ok", null], [2, "skipped", "overlap"]]);
    assert.equal(h.state.peak, 1);
  });

  it("cancelOther: B's slot aborts A's live run at A's next heartbeat; A records it cancelled and the new slot runs once", async () => {
    const [sa, sb] = twoConnections();
    const a = setup({ store: sa, node: "a", start: T0 - MIN });
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
    assert.deepEqual((await rows(sb, "j")).map((r) => [(r.slot - T0) / MIN, r.status, r.error]), [[0, "cancelled", "superseded"], [1, "ok", null]]);
    assert.equal(h.state.peak, 1);
  });
});
