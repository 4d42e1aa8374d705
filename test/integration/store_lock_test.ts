// The libSQL store against a real lock held by another process (`BEGIN EXCLUSIVE` from
// test/store/libsql/_lock_child.ts): retries end at the caller's deadline and at
// close(), so no write lands after its call gave up, and the store writes again as
// soon as the lock is gone.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SchedulerError } from "../../src/core/errors.ts";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import { createScheduler } from "../../src/engine/mod.ts";
import type { ClaimRequest } from "../../src/store/types.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const LOCKER = join(ROOT, "test/store/libsql/_lock_child.ts");
const dir = mkdtempSync(join(tmpdir(), "edgecron-lock-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

const claimOf = (slot: number): ClaimRequest => ({
  job: "a",
  slot,
  kind: "scheduled",
  status: "running",
  overlap: "allow",
  node: "n",
  batch: `b-${slot}`,
  now: slot,
  leaseUntil: slot + 60_000,
});

/** Holds the file's write lock from another process; resolves once it is held. */
async function holdLock(path: string, ms: number): Promise<{ released: Promise<void>; isReleased: () => boolean }> {
  const child = spawn(process.execPath, ["--import", "tsx", LOCKER, path, String(ms)], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let isReleased = false;
  let onLocked: () => void = () => {};
  const locked = new Promise<void>((resolve) => (onLocked = resolve));
  child.stdout.on("data", (d: Buffer) => {
    if (String(d).includes("locked")) onLocked();
    if (String(d).includes("released")) isReleased = true;
  });
  const released = new Promise<void>((resolve) => child.on("close", () => resolve()));
  await locked;
  return { released, isReleased: () => isReleased };
}

async function freshStore(busyTimeout: number): Promise<{ path: string; store: ReturnType<typeof libsqlStore> }> {
  const path = join(dir, `db-${++files}.db`);
  const store = libsqlStore({ url: `file:${path}`, busyTimeout });
  await store.init();
  return { path, store };
}

const isStoreError = (error: unknown): boolean => error instanceof SchedulerError && error.code === "store-error";

describe("libsqlStore under a real lock from another process", { timeout: 60_000 }, () => {
  it("a claim gives up at the call timeout and never commits after it", async () => {
    const { path, store } = await freshStore(10_000);
    store.setCallTimeout?.(300);
    const lock = await holdLock(path, 2_500);
    await assert.rejects(store.claim([claimOf(T0)]), isStoreError);
    assert.equal(lock.isReleased(), false, "the claim gave up while the lock was still held");
    await lock.released;
    // Had a retry loop outlived its call, it would insert the row once the lock went.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await store.getRun("a", T0), undefined);
    // The lock is gone: a plain claim works (given more than 300 ms, for a loaded machine).
    store.setCallTimeout?.(30_000);
    assert.deepEqual((await store.claim([claimOf(T0 + 1)])).map((r) => r.outcome), ["won"]);
    await store.close();
  });

  it("close() ends a retry loop at once; nothing lands after it", async () => {
    const { path, store } = await freshStore(10_000);
    const lock = await holdLock(path, 2_500);
    const pending = store.claim([claimOf(T0)]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await store.close();
    await assert.rejects(pending, (e: unknown) => isStoreError(e) && /closed/.test(String(e)));
    assert.equal(lock.isReleased(), false, "the claim ended while the lock was still held");
    await lock.released;
    const reader = libsqlStore({ url: `file:${path}` });
    assert.equal(await reader.getRun("a", T0), undefined);
    await reader.close();
  });

  it("after write batches fail on the lock, the same store writes at once when it is gone", async () => {
    const { path, store } = await freshStore(200);
    const lock = await holdLock(path, 1_500);
    let failures = 0;
    for (let i = 0; !lock.isReleased(); i += 1) {
      await store.claim([claimOf(T0 + i)]).catch(() => (failures += 1));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await lock.released;
    assert.ok(failures > 0);
    for (let i = 0; i < 5; i += 1) {
      assert.deepEqual((await store.claim([claimOf(T0 + 1_000_000 + i)])).map((r) => r.outcome), ["won"]);
      assert.ok((await store.snapshot(["a"], T0)).jobs.a);
    }
    await store.close();
  });

  it("health() stays false while the lock is held though reads answer, and turns true once a write lands", async () => {
    // Found holding the demo server's file for 20 s: GET /health said ok at every probe,
    // because a snapshot read (WAL lets reads through) healed each failed claim.
    const { path, store } = await freshStore(300);
    const logger = { warn() {}, error() {} };
    const scheduler = createScheduler({ store, node: "n1", logger });
    scheduler.job("a", { schedule: "* * * * *", run: () => {} });
    await scheduler.ready();
    const lock = await holdLock(path, 2_500);
    const report = await scheduler.tick(T0);
    assert.equal(report.ok, false, "the claim failed on the lock");
    assert.equal((await scheduler.list()).length, 1, "a read answers beside the lock");
    const held = await scheduler.health();
    assert.equal(lock.isReleased(), false, "health() answered while the lock was held");
    assert.deepEqual([held.ok, held.store], [false, "error"]);
    await lock.released;
    const healed = await scheduler.health();
    assert.deepEqual([healed.ok, healed.store, healed.lastError], [true, "ok", undefined]);
    assert.equal((await scheduler.tick(T0 + 60_000)).ok, true);
    await scheduler.close();
  });
});
