// Deno KV store behaviour beyond the shared contract: the port methods of this round,
// user-chosen job names, two handles on one KV file, and the limits of the medium.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { request } from "../contract.ts";
import { freshStore, newKvPath, openKv, skipReason } from "./_open.ts";
import { denoKvStore, kvStore } from "../../../src/store/deno-kv/mod.ts";
import { SchedulerError } from "../../../src/core/errors.ts";
import type { RunUpdate, Store } from "../../../src/store/types.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MIN = 60_000;

async function using(fn: (store: Store) => Promise<void>): Promise<void> {
  const store = await freshStore();
  await store.init();
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

// Options are checked before any KV is touched: these run on every runtime.
describe("denoKvStore options", () => {
  const kv = { atomic() {} } as never;
  const refuses = (options: unknown, re: RegExp): void => {
    assert.throws(() => denoKvStore(kv, options as never), (e: unknown) => {
      assert.ok(e instanceof SchedulerError && e.code === "invalid-spec", String(e));
      assert.match(e.message, re);
      return true;
    }, JSON.stringify(options) ?? String(options));
  };

  it("refuses a misspelt option, naming the nearest, instead of using the default prefix", () => {
    // `prefx` put this app's rows under ["edgecron"], shared with every other app on the KV.
    refuses(
      { prefx: ["app"] },
      /^invalid-spec: denoKvStore\.prefx: unknown option \(it takes prefix, closeKv\); did you mean "prefix"\?$/,
    );
    refuses({ closekv: true }, /denoKvStore\.closekv: unknown option .*did you mean "closeKv"\?/);
    refuses({ ttl: 5 }, /denoKvStore\.ttl: unknown option \(it takes prefix, closeKv\)$/);
    refuses(null, /^invalid-spec: denoKvStore: expected options \{ prefix, closeKv \}, got "null"/);
    refuses("app", /denoKvStore: expected options/);
    assert.doesNotThrow(() => denoKvStore(kv, { prefix: undefined, closeKv: undefined } as never));
  });

  it("refuses a prefix KV cannot use as a key, at once rather than at every call", () => {
    // Each failed every write as store-error ("expected string, number, …", "Key too large").
    refuses(
      { prefix: [{}] },
      /^invalid-spec: denoKvStore\.prefix\[0\]: expected a string, number, bigint, boolean or Uint8Array, got "\[object Object\]"/,
    );
    refuses({ prefix: ["app", undefined] }, /denoKvStore\.prefix\[1\]: expected a string/);
    refuses({ prefix: [null] }, /denoKvStore\.prefix\[0\]/);
    refuses(
      { prefix: ["x".repeat(3000)] },
      /denoKvStore\.prefix: expected at most 1024 bytes of key \(a KV key holds 2048\), got 3002/,
    );
    refuses({ prefix: "app" }, /denoKvStore\.prefix: expected an array of key parts, got "app"/);
    assert.doesNotThrow(() => denoKvStore(kv, { prefix: ["app", 2, 3n, true, new Uint8Array([1]), "x".repeat(900)] }));
  });

  it("a promise that resolves to something else than a KV fails each call with invalid-spec saying so", async () => {
    // It failed as store-error "kv.atomic is not a function", a store outage to the engine.
    const store = denoKvStore(Promise.resolve({ get() {} }) as never);
    await assert.rejects(store.putSetting("k", "v"), (e: unknown) => {
      assert.ok(e instanceof SchedulerError && e.code === "invalid-spec", String(e));
      assert.match(
        e.message,
        /^invalid-spec: denoKvStore: expected the promise to resolve to a KV handle \(from openKv\(\)\), got "\[object Object\]"/,
      );
      return true;
    });
  });

  it('refuses a closeKv that is not a boolean ("yes" left the KV open)', () => {
    refuses({ closeKv: "yes" }, /^invalid-spec: denoKvStore\.closeKv: expected true or false, got "yes"/);
  });
});

describe("kvStore (Deno KV)", { skip: skipReason }, () => {
  it("a claim racing a reclaim, both with overlap skip: never two live runs of the job", () =>
    using(async (store) => {
      await store.claim([request("a", T0, { leaseUntil: T0 + MIN })]);
      await store.reap(T0 + 2 * MIN);
      const now = T0 + 3 * MIN;
      const [claimed, reclaimed] = await Promise.all([
        store.claim([request("a", now, { batch: "t3", node: "node-b", now })]),
        store.reclaim({ job: "a", slot: T0, attempt: 1, node: "node-c", now, leaseUntil: now + MIN, overlap: "skip" }),
      ]);
      assert.equal((await store.snapshot(["a"], now)).running.length, 1, "exactly one live run");
      assert.equal(claimed[0]?.outcome === "won", !reclaimed);
    }));

  it("job names such as __proto__, hasOwnProperty and toString are plain keys in every result", () =>
    using(async (store) => {
      const names = ["__proto__", "hasOwnProperty", "toString"];
      const snap = await store.snapshot(names, T0);
      assert.deepEqual(Object.keys(snap.jobs), names);
      assert.equal(Object.getPrototypeOf(snap.jobs), Object.prototype, "no prototype was replaced");
      await store.claim(names.map((job) => request(job, T0, { status: "missed", batch: "t" })));
      assert.deepEqual(Object.keys((await store.read(names)).watermarks), names);
      assert.deepEqual(Object.keys(await store.counts(names)), names);
      assert.deepEqual(Object.keys(await store.lastOutcomes(names)), names);
      const overview = await store.overview(names, { since: T0 });
      assert.deepEqual(Object.keys(overview), names);
      assert.equal(Object.getOwnPropertyDescriptor(overview, "__proto__")?.value.recent[0].job, "__proto__");
    }));

  it("read() never writes: unknown names stay absent", () =>
    using(async (store) => {
      await store.snapshot(["a"], T0);
      await store.claim([request("a", T0, { status: "missed" })]);
      const read = await store.read(["a", "b"]);
      assert.deepEqual(read.jobs, { a: { name: "a", firstSeen: T0, paused: false } });
      assert.deepEqual(read.watermarks, { a: T0 });
      assert.deepEqual((await store.read(["b"])).jobs, {});
    }));

  it("renew() extends current leases only, in request order", () =>
    using(async (store) => {
      await store.claim([request("a", T0, { leaseUntil: T0 + MIN }), request("b", T0, { leaseUntil: T0 + 2 * MIN })]);
      const now = T0 + MIN + 1;
      const renewed = await store.renew([
        { job: "a", slot: T0, attempt: 1, node: "node-a", leaseUntil: now + MIN },
        { job: "b", slot: T0, attempt: 1, node: "node-a", leaseUntil: now + MIN },
        { job: "b", slot: T0, attempt: 2, node: "node-a", leaseUntil: now + MIN },
        { job: "zz", slot: T0, attempt: 1, node: "node-a", leaseUntil: now + MIN },
      ], now);
      assert.deepEqual(renewed, [false, true, false, false], "an ended lease is never revived");
      assert.equal((await store.getRun("b", T0))?.leaseUntil, now + MIN);
      assert.equal((await store.getRun("a", T0))?.leaseUntil, T0 + MIN);
    }));

  it("updateMany() answers each compare-and-set in order, across more rows than one commit holds", () =>
    using(async (store) => {
      const slots = Array.from({ length: 120 }, (_, i) => T0 + i * MIN);
      await store.claim(slots.map((slot) => request("a", slot, { batch: "t", overlap: "allow" })));
      const key = (slot: number) => ({ job: "a", slot, attempt: 1, node: "node-a" });
      const writes: RunUpdate[] = slots.map((slot) => ({
        key: key(slot),
        patch: { status: "ok", finishedAt: slot + 1, leaseUntil: null },
      }));
      writes.push({ key: key(T0), patch: { status: "error", finishedAt: T0, leaseUntil: null } });
      const results = await store.updateMany(writes);
      assert.deepEqual(results, [...slots.map(() => true), false], "the repeat sees the first write");
      assert.deepEqual((await store.counts(["a"])).a?.ok, 120);
      assert.deepEqual((await store.snapshot([], T0)).running, []);
    }));

  it("overview() gives last outcome, counts and recent rows newest first", () =>
    using(async (store) => {
      await store.claim(
        [0, 1, 2, 3].map((i) => request("a", T0 + i * MIN, { status: i === 3 ? "running" : "missed", batch: "t" })),
      );
      const view = await store.overview(["a", "none"], { since: T0 + MIN, perJob: 2 });
      assert.deepEqual(view.a?.recent.map((r) => r.slot), [T0 + 3 * MIN, T0 + 2 * MIN]);
      assert.equal(view.a?.last?.slot, T0 + 2 * MIN);
      assert.deepEqual([view.a?.counts.missed, view.a?.counts.running], [3, 1]);
      assert.deepEqual(view.none, {
        bufferFull: 0,
        last: undefined,
        counts: {
          running: 0,
          cancelling: 0,
          buffered: 0,
          ok: 0,
          error: 0,
          timeout: 0,
          skipped: 0,
          missed: 0,
          abandoned: 0,
          cancelled: 0,
        },
        recent: [],
      });
    }));

  it("a tick of 1000 jobs with 128-character names fits KV's per-commit key and size limits", () =>
    using(async (store) => {
      const names = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(4, "0")}-${"x".repeat(123)}`);
      const now = T0;
      const results = await store.claim(
        names.map((job) => request(job, T0, { batch: "tick", now, node: "n".repeat(128) })),
      );
      assert.ok(results.every((r, i) => r.outcome === "won" && r.job === names[i]));
      const reaped = await store.reap(T0 + 11 * MIN);
      assert.equal(reaped.length, 1000);
      assert.equal(await store.prune(T0 + 1), 1000);
    }));

  it("settings are shared through the KV", () =>
    using(async (store) => {
      assert.equal(await store.getSetting("epoch"), undefined);
      await store.putSetting("epoch", "7");
      assert.equal(await store.getSetting("epoch"), "7");
    }));

  it("made over an opener, it opens again after an open that failed (a KV folder missing at boot)", async () => {
    // Made over the promise of one open, denoStore() failed every call for the life of the
    // process once its first open had failed.
    const folder = join(dirname(newKvPath()), `later-${Date.now()}`);
    let opens = 0;
    const store = kvStore(() => (opens++, openKv(join(folder, "kv.db"))), { closeKv: true });
    try {
      await assert.rejects(
        store.putSetting("k", "v"),
        (e: unknown) => e instanceof SchedulerError && e.code === "store-error",
      );
      mkdirSync(folder, { recursive: true });
      await store.putSetting("k", "v");
      assert.equal(await store.getSetting("k"), "v");
      assert.equal(opens, 2);
    } finally {
      await store.close();
    }
  });

  it("two handles on one KV file (as two processes) win each slot once", async () => {
    const path = newKvPath();
    const a = kvStore(await openKv(path), { closeKv: true });
    const b = kvStore(await openKv(path), { closeKv: true });
    try {
      const slots = Array.from({ length: 50 }, (_, i) => T0 + i * 1000);
      const claims = (node: string) =>
        slots.map((slot) => request(`j${slot % 7}`, slot, { node, batch: `${node}-${slot}`, overlap: "allow" }));
      const [x, y] = await Promise.all([a.claim(claims("a")), b.claim(claims("b"))]);
      x.forEach((r, i) => assert.deepEqual([r.outcome, y[i]?.outcome].sort(), ["lost", "won"]));
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("refuses a spec larger than one KV value, and a non-KV argument, with invalid-spec", () =>
    using(async (store) => {
      const big = { blob: "x".repeat(70_000) };
      await assert.rejects(store.putDef("big", big, T0), (e: unknown) =>
        e instanceof SchedulerError && e.code === "invalid-spec");
      assert.throws(() =>
        kvStore({} as never), (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec");
    }));

  it("stores under different prefixes on one KV do not see each other", async () => {
    const kv = await openKv();
    try {
      const a = kvStore(kv, { prefix: ["app-a"] });
      const b = kvStore(kv, { prefix: ["app-b"] });
      assert.deepEqual((await a.claim([request("x", T0)]))[0]?.outcome, "won");
      assert.deepEqual((await b.claim([request("x", T0)]))[0]?.outcome, "won");
      assert.equal((await b.runs("x")).length, 1);
    } finally {
      (kv as unknown as { close(): void }).close();
    }
  });

  it("a snapshot of many jobs lists their pruned-run counters and gives each its own", () =>
    using(async (store) => {
      // Over 100 jobs the counters are listed, not read one by one; both paths agree.
      const names = Array.from({ length: 130 }, (_, i) => `job-${i}`);
      await store.snapshot(names, T0);
      await store.claim(names.map((job) => request(job, T0, { batch: "t1", maxRuns: 3 })));
      const done: RunUpdate[] = names.map((job) => ({
        key: { job, slot: T0, attempt: 1, node: "node-a" },
        patch: { status: "ok", finishedAt: T0 + 1, leaseUntil: null },
      }));
      await store.updateMany(done);
      // Every other job runs a second slot, then everything before T0 + 2 min is pruned.
      const twice = names.filter((_, i) => i % 2 === 0);
      await store.claim(twice.map((job) => request(job, T0 + MIN, { batch: "t2", maxRuns: 3 })));
      await store.updateMany(
        done.filter((_, i) => i % 2 === 0).map(({ key, patch }) => ({
          key: { ...key, slot: T0 + MIN },
          patch,
        })),
      );
      assert.equal(await store.prune(T0 + 2 * MIN), 130 + 65);
      const many = await store.snapshot(names, T0 + 2 * MIN);
      assert.deepEqual(names.map((n) => many.jobs[n]?.prunedRuns), names.map((_, i) => (i % 2 === 0 ? 2 : 1)));
      const few = await store.read(["job-0", "job-1"]);
      assert.deepEqual([few.jobs["job-0"]?.prunedRuns, few.jobs["job-1"]?.prunedRuns], [2, 1]);
    }));
});
