// maxRuns across two schedulers, each with its own connection to one libSQL file and its
// own manual clock: the limit holds in the store's claim, not in a node's earlier read.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { libsqlStore } from "../../../src/store/libsql/mod.ts";
import type { MemoryStore } from "../../../src/store/memory/mod.ts";
import type { ClaimRequest, ClaimResult, Store } from "../../../src/store/types.ts";
import { MIN, rows, SEC, setup, T0 } from "../_helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "edgecron-maxruns-"));
const stores: Store[] = [];
after(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});
let files = 0;

/** A connection to `url` whose claims wait for `open()`; `reached` resolves when one waits. */
function gatedConnection(url: string): { store: Store; reached: Promise<void>; open: () => void } {
  const inner = libsqlStore({ url });
  stores.push(inner);
  let open = (): void => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  let reach = (): void => {};
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const store: Store = {
    ...inner,
    async claim(requests: readonly ClaimRequest[]): Promise<ClaimResult[]> {
      reach();
      await opened;
      return inner.claim(requests);
    },
  };
  return { store, reached, open };
}

describe("maxRuns on one libSQL file, two schedulers", () => {
  it("two nodes whose clocks differ, ticking at different instants, run exactly maxRuns slots in total", async () => {
    const url = `file:${join(dir, `db-${++files}.db`)}`;
    const sb = libsqlStore({ url });
    stores.push(sb);
    const gated = gatedConnection(url);
    // B's clock is behind A's: B ticks the 00:02 slot while A, at 00:03:30, ticks 00:03.
    const b = setup({ store: sb as unknown as MemoryStore, node: "b", start: T0 - MIN + 1 });
    const a = setup({ store: gated.store as unknown as MemoryStore, node: "a", start: T0 + 3 * MIN + 30 * SEC });
    const ran: { node: string; slot: number }[] = [];
    for (const [node, s] of [["a", a], ["b", b]] as const) {
      s.scheduler.job("j", {
        schedule: "* * * * *",
        maxRuns: 3,
        run: (ctx) => void ran.push({ node, slot: ctx.slot }),
      });
    }
    // B registers the job, then runs 00:00 and 00:01: two of three runs used.
    await b.scheduler.tick();
    for (const at of [T0, T0 + MIN]) {
      await b.clock.set(at);
      await b.scheduler.tick();
    }
    assert.equal((await b.scheduler.get("j"))?.remainingRuns, 1);

    // A, whose clock reads 00:03:30, reads the store (two used, one left: it plans 00:03,
    // 00:02 missed) and then waits at its claim.
    const ticking = a.scheduler.tick();
    await gated.reached;
    // Meanwhile B, whose clock reads 00:02:10, reads the same count and claims 00:02.
    await b.clock.set(T0 + 2 * MIN + 10 * SEC);
    await b.scheduler.tick();
    gated.open();
    await ticking;

    assert.deepEqual(ran.map((r) => [r.node, (r.slot - T0) / MIN]), [["b", 0], ["b", 1], ["b", 2]]);
    const history = (await rows(sb, "j")).map((r) => [(r.slot - T0) / MIN, r.status]);
    assert.deepEqual(history, [[0, "ok"], [1, "ok"], [2, "ok"]], "no row for the refused 00:03");
    const info = await a.scheduler.get("j");
    assert.deepEqual([info?.state, info?.remainingRuns], ["completed", 0]);
    // Later ticks on either node run nothing more.
    await a.clock.set(T0 + 10 * MIN);
    await a.scheduler.tick();
    await b.clock.set(T0 + 11 * MIN);
    await b.scheduler.tick();
    assert.equal(ran.length, 3);
  });
});
