// libSQL specifics of this round's port methods: each is ONE round trip (one batch or
// one statement), read() and overview() take no write lock, renew() never revives an
// ended lease, and updateMany() is compare-and-set per item in one transaction.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Client, createClient, type InStatement } from "@libsql/client";
import { libsqlStore } from "../../../src/store/libsql/mod.ts";
import { request } from "../contract.ts";

const dir = mkdtempSync(join(tmpdir(), "edgecron-libsql-ports-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MIN = 60_000;

interface Call {
  kind: "batch" | "execute";
  mode?: string | undefined;
  statements: number;
}

/** A client that records every round trip, for counting them. */
function countingClient(): { client: Client; calls: Call[]; raw: Client } {
  const raw = createClient({ url: `file:${join(dir, `db-${++files}.db`)}` });
  const calls: Call[] = [];
  const client = Object.create(raw) as Client;
  client.batch = (statements: InStatement[], mode?: "write" | "read" | "deferred") => {
    calls.push({ kind: "batch", mode, statements: statements.length });
    return raw.batch(statements, mode);
  };
  client.execute = ((statement: InStatement) => {
    calls.push({ kind: "execute", statements: 1 });
    return raw.execute(statement);
  }) as Client["execute"];
  return { client, calls, raw };
}

describe("libsqlStore: this round's port methods", () => {
  it("renew() of 500 leases is one statement in one write batch; results follow the request order", async () => {
    const { client, calls, raw } = countingClient();
    const store = libsqlStore({ client });
    await store.init();
    await store.claim(
      Array.from({ length: 500 }, (_, i) => request(`j${i}`, T0, { batch: "t", leaseUntil: T0 + MIN })),
    );
    calls.length = 0;
    const items = Array.from(
      { length: 500 },
      (_, i) => ({ job: `j${i}`, slot: T0, attempt: 1, node: i % 2 ? "node-a" : "other", leaseUntil: T0 + 2 * MIN }),
    );
    const results = await store.renew(items, T0 + 30_000);
    assert.deepEqual(calls, [{ kind: "batch", mode: "write", statements: 1 }]);
    assert.deepEqual(results, items.map((_, i) => i % 2 === 1));
    assert.equal((await store.getRun("j1", T0))?.leaseUntil, T0 + 2 * MIN);
    assert.equal((await store.getRun("j0", T0))?.leaseUntil, T0 + MIN);
    await store.close();
    raw.close();
  });

  it("renew() never revives an ended lease, even one not yet reaped, and a repeated key is renewed once", async () => {
    const store = libsqlStore({ url: `file:${join(dir, `db-${++files}.db`)}` });
    await store.claim([request("a", T0, { leaseUntil: T0 + MIN })]);
    const key = { job: "a", slot: T0, attempt: 1, node: "node-a" };
    assert.deepEqual(await store.renew([{ ...key, leaseUntil: T0 + 5 * MIN }], T0 + MIN + 1), [false]);
    assert.equal((await store.getRun("a", T0))?.leaseUntil, T0 + MIN);
    assert.deepEqual((await store.reap(T0 + MIN + 1)).map((r) => r.status), ["abandoned"], "the reaper still owns it");
    await store.claim([request("b", T0, { leaseUntil: T0 + MIN })]);
    const twice = [{ ...key, job: "b", leaseUntil: T0 + 2 * MIN }, { ...key, job: "b", leaseUntil: T0 + 2 * MIN }];
    assert.deepEqual(await store.renew(twice, T0), [true, true]);
    await store.close();
  });

  it("updateMany() is one write transaction; each compare-and-set sees the ones before it", async () => {
    const { client, calls, raw } = countingClient();
    const store = libsqlStore({ client });
    await store.claim([request("a", T0), request("b", T0, { batch: "x" })]);
    calls.length = 0;
    const a1 = { job: "a", slot: T0, attempt: 1, node: "node-a" };
    const results = await store.updateMany([
      { key: a1, patch: { attempt: 2, startedAt: T0 + 1 } }, // a retry moves the row to attempt 2
      { key: a1, patch: { status: "ok" } }, // attempt 1 is gone now
      { key: { ...a1, attempt: 2 }, patch: { status: "ok", finishedAt: T0 + 2, leaseUntil: null } },
      { key: { ...a1, job: "b" }, patch: {} }, // an empty patch only checks
      { key: { ...a1, job: "b", node: "thief" }, patch: { status: "error" } },
    ]);
    assert.deepEqual(results, [true, false, true, true, false]);
    assert.equal(calls.length, 1);
    assert.deepEqual([calls[0]?.kind, calls[0]?.mode, calls[0]?.statements], ["batch", "write", 5]);
    assert.deepEqual([(await store.getRun("a", T0))?.status, (await store.getRun("a", T0))?.attempt], ["ok", 2]);
    assert.equal((await store.getRun("b", T0))?.status, "running");
    await store.close();
    raw.close();
  });

  it("updateMany() of distinct rows (a tick's outcomes) is one transaction of a set-based statement per set of fields, compare-and-set per row", async () => {
    const { client, calls, raw } = countingClient();
    const store = libsqlStore({ client });
    await store.claim(
      Array.from({ length: 500 }, (_, i) => request(`j${i}`, T0, { batch: "t", leaseUntil: T0 + MIN })),
    );
    calls.length = 0;
    const writes = Array.from({ length: 500 }, (_, i) => ({
      key: { job: `j${i}`, slot: T0, attempt: 1, node: i % 3 === 0 ? "thief" : "node-a" },
      patch: i % 2 === 0
        ? { status: "ok" as const, finishedAt: T0 + i, leaseUntil: null }
        : { status: "error" as const, finishedAt: T0 + i, leaseUntil: null, error: `boom ${i}` },
    }));
    const results = await store.updateMany(writes);
    // Two sets of fields (the error patches also set `error`): two statements, each after the
    // read of the writes it refuses, in one transaction.
    assert.deepEqual(calls, [{ kind: "batch", mode: "write", statements: 4 }]);
    assert.deepEqual(results, writes.map((_, i) => i % 3 !== 0));
    const [j1, j2, j3] = await Promise.all([1, 2, 3].map((i) => store.getRun(`j${i}`, T0)));
    assert.deepEqual([j1?.status, j1?.finishedAt, j1?.leaseUntil, j1?.error, j1?.attempt], [
      "error",
      T0 + 1,
      null,
      "boom 1",
      1,
    ]);
    assert.deepEqual([j2?.status, j2?.finishedAt, j2?.leaseUntil, j2?.error], ["ok", T0 + 2, null, null]);
    assert.deepEqual([j3?.status, j3?.leaseUntil], ["running", T0 + MIN], "another node's key changes nothing");
    assert.equal((await store.getRun("j2", T0))?.startedAt, T0, "a field the patch leaves out keeps its value");
    await store.close();
    raw.close();
  });

  it("read() and overview() are one read each and work while another connection holds the write lock", async () => {
    const url = `file:${join(dir, `db-${++files}.db`)}`;
    const store = libsqlStore({ url, busyTimeout: 0 });
    await store.claim([request("a", T0), request("__proto__", T0, { status: "missed" })]);
    const holder = createClient({ url });
    const tx = await holder.transaction("write");
    await tx.execute("INSERT INTO edgecron_jobs (name, first_seen, paused) VALUES ('held', 0, 0)");
    try {
      await assert.rejects(
        store.snapshot(["a"], T0),
        /store-error/,
        "a write waits for the lock (busyTimeout 0: fails)",
      );
      const view = await store.read(["a", "__proto__", "new"]);
      assert.deepEqual(view.running.map((r) => r.job), ["a"]);
      assert.equal(Object.hasOwn(view.jobs, "new"), false);
      const overview = await store.overview(["a", "__proto__"], { since: T0 });
      assert.equal(overview["__proto__"]?.counts.missed, 1);
      assert.equal(overview["a"]?.recent[0]?.status, "running");
      assert.equal(overview["a"]?.last, undefined);
    } finally {
      await tx.rollback();
      holder.close();
    }
    const raw = createClient({ url });
    const names = await raw.execute("SELECT name FROM edgecron_jobs ORDER BY name");
    assert.deepEqual(names.rows.map((r) => r.name), [], "no job state was written by read() or overview()");
    raw.close();
    await store.close();
  });

  it("overview() reads 1000 rows per job at most and returns every asked name, duplicates once", async () => {
    const { client, calls, raw } = countingClient();
    const store = libsqlStore({ client });
    await store.claim(
      Array.from({ length: 1100 }, (_, i) => request("a", T0 + i * MIN, { status: "missed", batch: "t" })),
    );
    calls.length = 0;
    const view = await store.overview(["a", "a", "b"], { since: T0, perJob: 1000 });
    assert.equal(calls.length, 1, "one round trip");
    assert.equal(view["a"]?.recent.length, 1000);
    assert.equal(view["a"]?.recent[0]?.slot, T0 + 1099 * MIN);
    assert.equal(view["a"]?.counts.missed, 1100);
    assert.equal(view["a"]?.last?.slot, T0 + 1099 * MIN);
    assert.deepEqual(view["b"]?.recent, []);
    await store.close();
    raw.close();
  });

  it("settings: unset is undefined, put overwrites, keys are data; a version-1 database gains the table on init()", async () => {
    const url = `file:${join(dir, `db-${++files}.db`)}`;
    const first = libsqlStore({ url });
    await first.init();
    await first.close();
    // Make it a database written before migration 2 (and so before 3, the pause columns, and 4, pruned_runs).
    const raw = createClient({ url });
    await raw.batch([
      "DROP TABLE edgecron_settings",
      "ALTER TABLE edgecron_jobs DROP COLUMN pruned_runs",
      "ALTER TABLE edgecron_jobs DROP COLUMN pause_note",
      "ALTER TABLE edgecron_jobs DROP COLUMN paused_at",
      "ALTER TABLE edgecron_jobs DROP COLUMN paused_by",
      "DELETE FROM edgecron_schema_version WHERE version >= 2",
    ], "write");
    raw.close();
    const store = libsqlStore({ url }) as ReturnType<typeof libsqlStore> & {
      getSetting(key: string): Promise<string | undefined>;
      putSetting(key: string, value: string): Promise<void>;
    };
    assert.equal(await store.getSetting("epoch"), undefined);
    await store.putSetting("epoch", "1");
    await store.putSetting("epoch", "2");
    await store.putSetting("__proto__", "x");
    assert.deepEqual([await store.getSetting("epoch"), await store.getSetting("__proto__")], ["2", "x"]);
    await assert.rejects(store.putSetting("k", 3 as unknown as string), /invalid-spec/);
    // Migration 3 ran too: a pause note is kept.
    await store.setPaused("j", true, 1_000, { note: "after the upgrade" });
    assert.equal((await store.read(["j"])).jobs.j?.pause?.note, "after the upgrade");
    await store.close();
  });
});
