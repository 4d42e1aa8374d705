// Claims per second on the memory store, a libSQL file and D1 (local, in Miniflare's
// workerd), in batches of 1, 100 and 1000 (one `claim()` call = one batch = one round trip). Each claim is a
// different job's slot with `overlap: "skip"`, as in a tick over many jobs, so every
// insert also runs the overlap check. Runnable alone: `npx tsx bench/store.ts`.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createMemoryStore } from "../src/store/memory/mod.ts";
import { libsqlStore } from "../src/store/libsql/mod.ts";
import { type D1DatabaseLike, d1Store } from "../src/store/d1/mod.ts";
import { Miniflare } from "miniflare";
import type { ClaimRequest, Store } from "../src/store/types.ts";

const T0 = Date.UTC(2026, 0, 1);

/** Claims `total` slots in calls of `size` and returns claims per second. */
export async function claimsPerSecond(store: Store, size: number, total: number, tag: string): Promise<number> {
  const calls = Math.ceil(total / size);
  const batches: ClaimRequest[][] = Array.from({ length: calls }, (_, k) =>
    Array.from({ length: size }, (_, j) => ({
      job: `${tag}-${k * size + j}`,
      slot: T0,
      kind: "scheduled",
      status: "running",
      overlap: "skip",
      node: "bench",
      batch: `${tag}-${k}`,
      now: T0,
      leaseUntil: T0 + 600_000,
    })));
  const start = performance.now();
  for (const batch of batches) {
    const results = await store.claim(batch);
    if (results.some((r) => r.outcome !== "won")) throw new Error("bench: a claim was not won");
  }
  return (calls * size) / ((performance.now() - start) / 1000);
}

/** Measures one store at batch sizes 1, 100 and 1000 and prints its row. */
async function printRow(name: string, store: Store, total: number): Promise<void> {
  await store.init();
  const cells: string[] = [];
  for (const size of [1, 100, 1000]) {
    // Warm-up pass first, so the numbers measure steady state, not JIT or file creation.
    await claimsPerSecond(store, size, Math.min(total, size * 5), `warm-${size}`);
    const rate = await claimsPerSecond(store, size, size === 1 ? total / 5 : total, `b${size}`);
    cells.push(`${Math.round(rate).toLocaleString("en-US")}/s`.padEnd(12));
  }
  console.log(`${name.padEnd(12)} | ${cells.join(" | ")}`);
  await store.close();
}

/**
 * The D1 row: the real local D1 in workerd through Miniflare, driven from Node, so each
 * call also crosses Miniflare's loopback hop (a Worker's own D1 calls do not).
 */
export async function benchD1Store(): Promise<void> {
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response(''); } };",
    compatibilityDate: "2025-09-01",
    d1Databases: { DB: "bench" },
  });
  try {
    const db = (await mf.getD1Database("DB")) as unknown as D1DatabaseLike;
    await printRow("d1 (mf)", d1Store(db), 2_000);
  } finally {
    await mf.dispose();
  }
}

/** Prints claims/s for memory, libSQL (file) and D1 at batch sizes 1, 100 and 1000. */
export async function benchStore(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "edgecron-bench-"));
  try {
    const stores: Array<[string, Store, number]> = [
      ["memory", createMemoryStore(), 20_000],
      ["libsql file", libsqlStore({ url: `file:${join(dir, "bench.db")}` }), 5_000],
    ];
    console.log("\nstore: claims per second (each claim a different job, overlap check on)");
    console.log("store        | batch 1      | batch 100    | batch 1000");
    for (const [name, store, total] of stores) await printRow(name, store, total);
    await benchD1Store();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Prints claims/s for Deno KV on a file, same table format. KV lives inside the Deno
 * runtime, so a deno process runs `bench/kv_store.ts` and prints the row.
 */
export async function benchKvStore(): Promise<void> {
  const root = new URL("..", import.meta.url).pathname;
  const res = spawnSync(join(root, "node_modules/.bin/deno"), ["run", "-A", "--unstable-kv", join(root, "bench/kv_store.ts")], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  if (res.status !== 0) throw new Error(`bench: deno-kv failed: ${res.stdout}${res.stderr}`);
  process.stdout.write(res.stdout);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await benchStore();
  await benchKvStore();
}
