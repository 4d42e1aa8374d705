// Claims per second on Deno KV (a local file), batches of 1, 100 and 1000, in the table
// format of bench/store.ts. Runs under Deno only: `deno run -A --unstable-kv bench/kv_store.ts`
// (`npm run bench` starts it). Same claims as the other stores: each a different job,
// overlap check on, so each claim also checks its job's running-set version.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claimsPerSecond } from "./store.ts";
import { type KvLike, kvStore } from "../src/store/deno-kv/mod.ts";

const deno = (globalThis as unknown as { Deno: { openKv(path: string): Promise<KvLike> } }).Deno;
const dir = mkdtempSync(join(tmpdir(), "edgecron-bench-kv-"));
try {
  const store = kvStore(await deno.openKv(join(dir, "bench.kv")), { closeKv: true });
  await store.init();
  const total = 5_000;
  const cells: string[] = [];
  for (const size of [1, 100, 1000]) {
    await claimsPerSecond(store, size, Math.min(total, size * 5), `warm-${size}`);
    const rate = await claimsPerSecond(store, size, size === 1 ? total / 5 : total, `b${size}`);
    cells.push(`${Math.round(rate).toLocaleString("en-US")}/s`.padEnd(12));
  }
  console.log("\nstore: claims per second on Deno KV (same claims as above; run by deno --unstable-kv)");
  console.log("store        | batch 1      | batch 100    | batch 1000");
  console.log(`${"deno-kv file".padEnd(12)} | ${cells.join(" | ")}`);
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
