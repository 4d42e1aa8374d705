// Job names are user text: names that are also Object.prototype members must work on
// every node and every store; names URL normalisation would eat are refused.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { libsqlStore } from "../../../src/store/libsql/mod.ts";
import { createMemoryStore } from "../../../src/store/memory/mod.ts";
import type { Store } from "../../../src/store/types.ts";
import { MIN, setup, T0 } from "../_helpers.ts";

const PROTO_NAMES = [
  "hasOwnProperty",
  "toString",
  "valueOf",
  "__proto__",
  "constructor",
  "isPrototypeOf",
  "__defineGetter__",
];
const fetchOk = (() => Promise.resolve(new Response("ok"))) as typeof fetch;

const dir = mkdtempSync(join(tmpdir(), "edgecron-names-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const stores: [string, () => Store][] = [
  ["memory", () => createMemoryStore()],
  ["libsql", () => libsqlStore({ url: `file:${join(dir, "db.sqlite")}` })],
];

for (const [kind, make] of stores) {
  describe(`job names that are Object.prototype members (${kind} store)`, () => {
    it("are defined on one node and planned, run and described by a second node on the same store", async () => {
      const store = make() as ReturnType<typeof createMemoryStore>;
      const a = setup({ store, node: "a", webhookSecret: "s", fetch: fetchOk });
      for (const name of PROTO_NAMES) {
        await a.scheduler.define(name, { schedule: "*/5 * * * *", target: { url: "https://hooks.example/x" } });
      }
      const b = setup({ store, node: "b", webhookSecret: "s", fetch: fetchOk, clock: a.clock });
      b.scheduler.job("toLocaleString", { schedule: "*/5 * * * *", run: () => {} });
      await a.clock.set(T0 + 5 * MIN);
      const report = await b.scheduler.tick(T0 + 5 * MIN);
      assert.equal(report.ok, true);
      for (const name of PROTO_NAMES) {
        assert.ok(Object.hasOwn(report.jobs, name), name);
        assert.deepEqual(report.jobs[name]?.won, [T0 + 5 * MIN], name);
        assert.equal(report.jobs[name]?.outcomes[T0 + 5 * MIN], "ok", name);
      }
      // A code job is first seen by this tick, so it plans from the next slot on.
      await a.clock.set(T0 + 10 * MIN);
      const second = await b.scheduler.tick(T0 + 10 * MIN);
      for (const name of [...PROTO_NAMES, "toLocaleString"]) {
        assert.equal(second.jobs[name]?.outcomes[T0 + 10 * MIN], "ok", name);
      }
      assert.ok(
        !b.logger.lines.some((l) => l.includes("schedule failed") || l.includes("invalid")),
        b.logger.lines.join("\n"),
      );
      const listed = await b.scheduler.list();
      assert.deepEqual(listed.map((j) => j.name).sort(), [...PROTO_NAMES, "toLocaleString"].sort());
      for (const info of listed) {
        assert.equal(info.paused, false, info.name);
        assert.equal(info.lastOutcome?.status, "ok", info.name);
      }
      await b.scheduler.pause("__proto__");
      assert.equal((await a.scheduler.get("__proto__"))?.paused, true);
      assert.equal((await a.scheduler.get("hasOwnProperty"))?.paused, false);
      await store.close();
    });
  });
}

describe("names URL normalisation would eat", () => {
  it("refuses . and .. (but accepts other dotted names)", async () => {
    const { scheduler } = setup();
    for (const name of [".", ".."]) {
      assert.throws(() => scheduler.job(name, { schedule: "* * * * *", run: () => {} }), /invalid-name/);
      await assert.rejects(
        scheduler.define(name, { schedule: "* * * * *", target: { url: "https://h.example/" } }),
        /invalid-name/,
      );
    }
    scheduler.job("...", { schedule: "* * * * *", run: () => {} });
    scheduler.job(".hidden", { schedule: "* * * * *", run: () => {} });
  });

  it("refuses control characters in descriptions (tab and newline stay allowed)", async () => {
    const { scheduler } = setup();
    for (const bad of ["a\u0000b", "bell\u0007", "esc\u001b[31m", "del\u007f", "c1\u0085"]) {
      await assert.rejects(
        scheduler.define("d", { schedule: "* * * * *", description: bad, target: { url: "https://h.example/" } }),
        /invalid-spec: jobs\.d\.description: must not contain control characters/,
      );
    }
    scheduler.job("ok", { schedule: "* * * * *", description: "line one\n\tline two", run: () => {} });
  });
});
