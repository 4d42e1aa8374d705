// Claims per second on the memory store and on a libSQL file, in batches of 1, 100
// and 1000 (one `claim()` call = one batch = one round trip). Each claim is a
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

/** Prints claims/s for memory and libSQL (file) at batch sizes 1, 100 and 1000. */
export async function benchStore(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "edgecron-bench-"));
  try {
    const stores: Array<[string, Store, number]> = [
      ["memory", createMemoryStore(), 20_000],
      ["libsql file", libsqlStore({ url: `file:${join(dir, "bench.db")}` }), 5_000],
    ];
    console.log("\nstore: claims per second (each claim a different job, overlap check on)");
    console.log("store        | batch 1      | batch 100    | batch 1000");
    for (const [name, store, total] of stores) {
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
