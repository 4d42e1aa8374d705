// A large updateMany() on libSQL goes in parts of UPDATE_PART writes, each its own write
// transaction, with a turn of the event loop between them: the embedded driver runs a
// statement synchronously, and a tick's 20 000 outcomes in one statement held the loop
// for about a second.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Client, createClient, type InStatement } from "@libsql/client";
import { libsqlStore } from "../../../src/store/libsql/mod.ts";
import { UPDATE_PART } from "../../../src/store/sql/statements.ts";
import type { RunUpdate } from "../../../src/store/types.ts";
import { landedOf } from "../../../src/store/_landed.ts";
import { request } from "../contract.ts";

const dir = mkdtempSync(join(tmpdir(), "edgecron-libsql-update-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const name = (i: number): string => `job-${String(i).padStart(5, "0")}`;

describe("libsqlStore updateMany() in parts", () => {
  it(`writes ${UPDATE_PART * 2 + 500} outcomes in parts of ${UPDATE_PART}, in order, yielding between parts`, async () => {
    const raw = createClient({ url: `file:${join(dir, "db.db")}` });
    // The write batches the store sends: how many writes each binds.
    const writes: number[] = [];
    const client = Object.create(raw) as Client;
    client.batch = (statements: InStatement[], mode?: "write" | "read" | "deferred") => {
      if (mode === "write") {
        const sizes = statements.map((s) =>
          typeof s === "string" ? 0 : Math.max(
            0,
            ...((s.args ?? []) as unknown[]).map((a) =>
              typeof a === "string" && a.startsWith("[") ? (JSON.parse(a) as unknown[]).length : 0
            ),
          )
        );
        writes.push(Math.max(statements.length, ...sizes));
      }
      return raw.batch(statements, mode);
    };
    client.execute = ((statement: InStatement) => raw.execute(statement)) as Client["execute"];
    const store = libsqlStore({ client });
    const count = UPDATE_PART * 2 + 500;
    await store.claim(Array.from({ length: count }, (_, i) => request(name(i), T0, { batch: "t" })));
    const update = (i: number): RunUpdate => ({
      key: { job: name(i), slot: T0, attempt: 1, node: "node-a" },
      patch: { status: "ok", finishedAt: T0 + 1, leaseUntil: null },
    });
    // A row nobody claimed in the first part, and a row of the first part again in the
    // last (its compare-and-set sees the first part's write: no longer running).
    const batch = [...Array.from({ length: count }, (_, i) => update(i))];
    batch[10] = { ...update(0), key: { ...update(0).key, job: "ghost" } };
    batch.push(update(1));

    writes.length = 0;
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    const results = await store.updateMany(batch);
    assert.equal(timerRan, true, "a timer due during updateMany() ran before it resolved");
    assert.equal(writes.length, Math.ceil(batch.length / UPDATE_PART), `write batches: ${writes.join(", ")}`);
    for (const size of writes) assert.ok(size <= UPDATE_PART, `a write batch of ${size} writes`);
    assert.equal(results.length, batch.length);
    assert.deepEqual([results[0], results[10], results[count - 1], results[count]], [true, false, true, false]);
    assert.equal(results.filter((r) => r).length, count - 1);
    assert.equal((await store.getRun(name(count - 1), T0))?.status, "ok");
    assert.equal((await store.getRun(name(10), T0))?.status, "running");
    await store.close();
    raw.close();
  });

  it("a part that fails after earlier parts committed rejects with their results attached (landedOf)", async () => {
    const raw = createClient({ url: `file:${join(dir, "landed.db")}` });
    let writeBatches = 0;
    const client = Object.create(raw) as Client;
    client.batch = (statements: InStatement[], mode?: "write" | "read" | "deferred") => {
      // The second part of the group fails (not a lock: no retry).
      const sql = statements.map((st) => (typeof st === "string" ? st : st.sql)).join(";");
      if (mode === "write" && sql.includes("UPDATE edgecron_runs SET status") && ++writeBatches === 2) {
        return Promise.reject(new Error("disk I/O error"));
      }
      return raw.batch(statements, mode);
    };
    client.execute = ((statement: InStatement) => raw.execute(statement)) as Client["execute"];
    const store = libsqlStore({ client });
    const count = UPDATE_PART + 10;
    await store.claim(Array.from({ length: count }, (_, i) => request(name(i), T0, { batch: "t" })));
    const writes = Array.from({ length: count }, (_, i): RunUpdate => ({
      key: { job: i === 3 ? "ghost" : name(i), slot: T0, attempt: 1, node: "node-a" },
      patch: { status: "ok", finishedAt: T0 + 1, leaseUntil: null },
    }));
    const error = await store.updateMany(writes).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof Error, "the group rejects");
    assert.match(error.message, /disk I\/O error/);
    const landed = landedOf(error);
    assert.equal(landed?.length, UPDATE_PART, "the first part's results");
    assert.deepEqual([landed![0], landed![3], landed![UPDATE_PART - 1]], [true, false, true]);
    assert.equal((await store.getRun(name(UPDATE_PART - 1), T0))?.status, "ok", "the first part committed");
    assert.equal((await store.getRun(name(UPDATE_PART), T0))?.status, "running", "the second did not");
    await store.close();
    raw.close();
  });
});
