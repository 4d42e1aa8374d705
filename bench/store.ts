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
import type { ClaimRequest, Store } from "../src/store/types.ts";
import { d1Worker } from "../test/store/d1/_miniflare.ts";

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
 * The D1 row: the real local D1, the claims made INSIDE workerd (Miniflare) by
 * bench/_d1_worker.ts on the worker's own binding, as a Worker makes them.
 */
export async function benchD1Store(): Promise<void> {
  const { mf, dispose } = await d1Worker(new URL("./_d1_worker.ts", import.meta.url), "bench");
  try {
    const rate = async (size: number, total: number): Promise<number> => {
      const body = (await (await mf.dispatchFetch(`http://bench.test/?size=${size}&total=${total}`)).json()) as {
        rate?: number;
        error?: string;
      };
      if (body.rate === undefined) throw new Error(`bench: d1 worker failed: ${body.error}`);
      return body.rate;
    };
    const cells: string[] = [];
    for (const size of [1, 100, 1000]) {
      await rate(size, Math.min(2_000, size * 5)); // warm-up
      cells.push(`${Math.round(await rate(size, size === 1 ? 500 : 5_000)).toLocaleString("en-US")}/s`.padEnd(12));
    }
    console.log(`${"d1 (workerd)".padEnd(12)} | ${cells.join(" | ")}`);
  } finally {
    await dispose();
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
  const res = spawnSync(join(root, "node_modules/.bin/deno"), [
    "run",
    "-A",
    "--unstable-kv",
    join(root, "bench/kv_store.ts"),
  ], {
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
