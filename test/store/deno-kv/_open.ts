// Opens a fresh Deno KV file per store for the tests; only under Deno (the KV is built
// into the Deno runtime). Node and Bun get `undefined` and skip the Deno KV tests.
import { mkdtempSync, rmSync } from "node:fs";
import { after } from "node:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type KvLike, kvStore } from "../../../src/store/deno-kv/mod.ts";
import type { ReclaimRequest, Store } from "../../../src/store/types.ts";

interface DenoKvRuntime {
  openKv(path?: string): Promise<KvLike>;
}

/** `Deno` when the tests run under Deno with KV enabled (`--unstable-kv`), else undefined. */
export const denoKv: DenoKvRuntime | undefined = (() => {
  const deno = (globalThis as { Deno?: Partial<DenoKvRuntime> }).Deno;
  return typeof deno?.openKv === "function" ? (deno as DenoKvRuntime) : undefined;
})();

/** Why the Deno KV tests are skipped here, or false when they run. */
export const skipReason: string | false = denoKv !== undefined
  ? false
  : "Deno KV exists only in the Deno runtime: these tests run in the deno step of npm test (deno test --unstable-kv)";

// Made on first use (Node and Bun never open a KV file), removed after the file's tests
// (Deno runs `after` hooks, not process exit listeners).
let dir: string | undefined;
let files = 0;
after(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Opens a new KV file, or `path` again (a second handle, as another process would). */
export function openKv(path = newKvPath()): Promise<KvLike> {
  if (denoKv === undefined) throw new Error(String(skipReason));
  return denoKv.openKv(path);
}

/** A path for a new KV file in this run's temporary directory. */
export function newKvPath(): string {
  if (dir === undefined) {
    dir = mkdtempSync(join(tmpdir(), "edgecron-kv-"));
  }
  files += 1;
  return join(dir, `kv-${files}.db`);
}

/**
 * A fresh store on a new KV file, closed with the store. Until the contract suite uses
 * the request form of `reclaim()`, positional calls are turned into a request here.
 */
export async function freshStore(): Promise<Store> {
  const store = kvStore(await openKv(), { closeKv: true });
  const reclaim = store.reclaim;
  const compatible = (first: ReclaimRequest, ...rest: unknown[]): Promise<boolean> => {
    if (rest.length === 0) return reclaim(first);
    const [node, now, leaseUntil, options] = rest as [
      string,
      number,
      number,
      { overlap?: "skip" | "allow" } | undefined,
    ];
    return reclaim({
      ...first,
      node,
      now,
      leaseUntil,
      ...(options?.overlap === undefined ? {} : { overlap: options.overlap }),
    });
  };
  return { ...store, reclaim: compatible as Store["reclaim"] };
}
