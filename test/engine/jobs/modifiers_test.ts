import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { libsqlStore } from "../../../src/store/libsql/mod.ts";
import type { MemoryStore } from "../../../src/store/memory/mod.ts";
import type { Store } from "../../../src/store/types.ts";
import { HOUR, MIN, rows, setup, T0, tickAt } from "../_helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "edgecron-modifiers-"));
const stores: Store[] = [];
after(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("job modifiers: except, startAt, endAt", () => {
  it("an excluded slot is not planned; the next one runs", async () => {
    const s = setup({ start: T0 - MIN });
    const slots: number[] = [];
    // T0 is 2030-01-01, a Tuesday: excluded by date; the 2nd is excluded by expression.
    s.scheduler.job("report", {
      schedule: "0 9 * * *",
      except: ["2030-01-01", "* * 2 1 *"],
      run: (ctx) => void slots.push(ctx.slot),
    });
    await tickAt(s, T0 - MIN);
    for (const day of [0, 1, 2]) await tickAt(s, T0 + day * 24 * HOUR + 9 * HOUR);
    assert.deepEqual(slots, [T0 + 2 * 24 * HOUR + 9 * HOUR]);
    // An excluded slot is not a skip: no row at all.
    assert.deepEqual((await rows(s.store, "report")).map((r) => r.slot), [T0 + 2 * 24 * HOUR + 9 * HOUR]);
    const info = await s.scheduler.get("report");
    assert.equal(info?.state, "active");
    assert.deepEqual(info?.spec, { cron: "0 9 * * *", timezone: "UTC", except: ["2030-01-01", "* * 2 1 *"] });
  });

  it("no slot before startAt nor at or after endAt; get() then says ended", async () => {
    const s = setup({ start: T0 - MIN });
    const slots: number[] = [];
    s.scheduler.job("window", {
      schedule: "*/10 * * * *",
      startAt: new Date(T0 + 20 * MIN),
      endAt: "2030-01-01T00:40:00Z",
      catchUp: { mode: "all" },
      run: (ctx) => void slots.push(ctx.slot),
    });
    await tickAt(s, T0 - MIN);
    for (let m = 0; m <= 60; m += 10) await tickAt(s, T0 + m * MIN);
    assert.deepEqual(slots, [T0 + 20 * MIN, T0 + 30 * MIN]);
    const info = await s.scheduler.get("window");
    assert.equal(info?.state, "ended");
    assert.deepEqual(info?.next, []);
  });

  it("refuses bad modifiers with the field named and the text quoted", () => {
    const s = setup();
    const run = (): void => {};
    assert.throws(
      () => s.scheduler.job("a", { schedule: "0 9 * * *", except: "61 * * * *", run }),
      /invalid-spec: jobs\.a\.except\[0\]: invalid-cron: minute/,
    );
    assert.throws(
      () => s.scheduler.job("b", { schedule: "0 9 * * *", except: ["2030-02-30"], run }),
      /jobs\.b\.except\[0\]: "2030-02-30" is not a calendar date/,
    );
    assert.throws(
      () => s.scheduler.job("c", { schedule: "0 9 * * 1-5", except: "* * * * 1-5", run }),
      /jobs\.c\.except: every fire time is excluded/,
    );
    assert.throws(() => s.scheduler.job("d", { schedule: "0 9 * * *", startAt: "soon", run }), /jobs\.d\.startAt/);
    assert.throws(
      () => s.scheduler.job("e", { schedule: "0 9 * * *", startAt: T0, endAt: T0, run }),
      /jobs\.e\.endAt: must be after startAt/,
    );
    assert.throws(
      () => s.scheduler.job("f", { schedule: "0 9 * * *", maxRuns: 0, run }),
      /jobs\.f\.maxRuns: expected a whole number of at least 1, got "0"/,
    );
    assert.throws(
      () => s.scheduler.job("g", { schedule: "0 9 * * *", jitter: "soon", run }),
      /jobs\.g\.jitter: expected a duration/,
    );
    assert.throws(
      () => s.scheduler.job("h", { schedule: "0 9 * * *", except: 5 as unknown as string, run }),
      /jobs\.h\.except: expected a cron expression/,
    );
  });

  it("H in an exclusion hashes the job's name, as in the schedule", async () => {
    const s = setup({ start: T0 - MIN });
    const slots: number[] = [];
    // "H" in the minute field of an hourly exclusion for "H * * * *" hashes the same key: every slot is excluded.
    assert.throws(
      () => s.scheduler.job("hashed", { schedule: "H * * * *", except: "H * * * *", run: () => {} }),
      /every fire time is excluded/,
    );
    s.scheduler.job("hashed2", {
      schedule: "H * * * *",
      except: "H 0-11 * * *",
      run: (ctx) => void slots.push(ctx.slot),
    });
    const next = (await s.scheduler.get("hashed2"))!.next;
    assert.equal(new Date(next[0]!).getUTCHours(), 12);
  });
});

describe("job modifiers: maxRuns", () => {
  it("runs at most maxRuns slots, retries counting once; then completed with remainingRuns 0", async () => {
    // Registered just after a minute: the registering tick plans [registered, now] and runs no slot.
    const s = setup({ start: T0 - MIN + 1 });
    let calls = 0;
    s.scheduler.job("thrice", {
      schedule: "* * * * *",
      maxRuns: 3,
      retries: { attempts: 2, backoff: 1 },
      run: () => {
        calls++;
        if (calls === 1) throw new Error("first attempt fails");
      },
    });
    await tickAt(s, T0 - MIN + 1);
    for (let m = 0; m < 6; m++) {
      await s.clock.set(T0 + m * MIN);
      const pending = s.scheduler.tick();
      await s.clock.advance(10);
      await pending;
    }
    const recorded = await rows(s.store, "thrice");
    assert.deepEqual(recorded.map((r) => [r.slot, r.status]), [[T0, "ok"], [T0 + MIN, "ok"], [T0 + 2 * MIN, "ok"]]);
    assert.equal(calls, 4);
    const info = await s.scheduler.get("thrice");
    assert.equal(info?.remainingRuns, 0);
    assert.equal(info?.state, "completed");
  });

  it("maxRuns: 3 on two schedulers sharing one libSQL file runs exactly three slots in total", async () => {
    const store = libsqlStore({ url: `file:${join(dir, "shared.db")}` });
    stores.push(store);
    const a = setup({ store: store as unknown as MemoryStore, node: "a", start: T0 - MIN });
    const b = setup({ store: store as unknown as MemoryStore, node: "b", start: T0 - MIN });
    const ran: string[] = [];
    for (const [node, s] of [["a", a], ["b", b]] as const) {
      s.scheduler.job("limited", {
        schedule: "* * * * *",
        maxRuns: 3,
        run: (ctx) => void ran.push(`${node}@${(ctx.slot - T0) / MIN}`),
      });
    }
    await tickAt(a, T0 - MIN);
    await tickAt(b, T0 - MIN);
    for (let m = 0; m < 8; m++) {
      // The nodes take turns ticking first, and b sometimes ticks a minute late.
      const first = m % 2 === 0 ? a : b, second = m % 2 === 0 ? b : a;
      await tickAt(first, T0 + m * MIN);
      await tickAt(second, T0 + m * MIN + (m % 3 === 0 ? 30_000 : 0));
    }
    const recorded = await rows(store, "limited");
    assert.equal(ran.length, 3, ran.join(" "));
    assert.equal(recorded.filter((r) => r.status === "ok").length, 3);
    assert.equal(recorded.length, 3);
    assert.equal((await a.scheduler.get("limited"))?.remainingRuns, 0);
    assert.equal((await b.scheduler.get("limited"))?.state, "completed");
  });

  it("a data job's maxRuns may be raised later, and it runs again", async () => {
    const calls: string[] = [];
    const fetch = async (input: Request | string | URL): Promise<Response> => {
      calls.push(String(input instanceof Request ? input.url : input));
      return new Response("ok");
    };
    const s = setup({ start: T0 - MIN, fetch: fetch as typeof globalThis.fetch, webhookSecret: "k" });
    const target = { url: "https://example.test/hook" };
    await s.scheduler.define("hook", { schedule: "* * * * *", maxRuns: 1, target });
    await tickAt(s, T0);
    await tickAt(s, T0 + MIN);
    assert.equal(calls.length, 1);
    assert.equal((await s.scheduler.get("hook"))?.state, "completed");
    await s.scheduler.define("hook", { schedule: "* * * * *", maxRuns: 2, target });
    assert.equal((await s.scheduler.get("hook"))?.remainingRuns, 1);
    await tickAt(s, T0 + 2 * MIN);
    await tickAt(s, T0 + 3 * MIN);
    assert.equal(calls.length, 2);
  });
});
