// denoStore(): Deno KV with no configuration, libSQL when LIBSQL_URL is set. Runs only
// under Deno (the adapter calls Deno.env and Deno.openKv); skipped with its reason elsewhere.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { newKvPath, skipReason } from "../../store/deno-kv/_open.ts";
import { request } from "../../store/contract.ts";
import type { Store } from "../../../src/store/types.ts";

interface DenoEnv {
  env: { get(key: string): string | undefined; set(key: string, value: string): void; delete(key: string): void };
}
const deno = (globalThis as { Deno?: DenoEnv }).Deno;

// A computed specifier keeps tsc (which has no Deno types) out of the adapter.
const ADAPTER = "../../../adapters/deno/mod.ts";
type DenoStore = (options?: { kvPath?: string }) => Store;
const loadDenoStore = async (): Promise<DenoStore> => ((await import(ADAPTER)) as { denoStore: DenoStore }).denoStore;

describe("denoStore() (adapters/deno)", { skip: skipReason }, () => {
  const withEnv = async (url: string | undefined, fn: () => Promise<void>): Promise<void> => {
    const saved = deno!.env.get("LIBSQL_URL");
    if (url === undefined) deno!.env.delete("LIBSQL_URL");
    else deno!.env.set("LIBSQL_URL", url);
    try {
      await fn();
    } finally {
      if (saved === undefined) deno!.env.delete("LIBSQL_URL");
      else deno!.env.set("LIBSQL_URL", saved);
    }
  };

  it("uses Deno KV when LIBSQL_URL is unset: claims are shared through the KV file", () =>
    withEnv(undefined, async () => {
      const denoStore = await loadDenoStore();
      const kvPath = newKvPath();
      const a = denoStore({ kvPath });
      const b = denoStore({ kvPath });
      try {
        assert.equal((await a.claim([request("job", 1_000)]))[0]?.outcome, "won");
        assert.equal((await b.claim([request("job", 1_000, { node: "node-b" })]))[0]?.outcome, "lost");
      } finally {
        await a.close();
        await b.close();
      }
    }));

  it("uses libSQL when LIBSQL_URL is set", () =>
    withEnv("http://127.0.0.1:9", async () => {
      const denoStore = await loadDenoStore();
      const store = denoStore();
      await assert.rejects(store.init(), (e: unknown) => e instanceof Error && /^store-error: libsql:/.test(e.message));
      await store.close();
    }));
});
