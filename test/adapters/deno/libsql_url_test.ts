// denoStore() with a LIBSQL_URL the libSQL client refuses: an error naming the variable,
// never the token. Runs against a stand-in `Deno` global (its env alone), so it runs on
// Node and Bun; on Deno, whose own global it cannot replace, it is skipped.
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../../src/core/errors.ts";
import type { Store } from "../../../src/store/types.ts";
import { needsStandInDeno } from "../_runtime.ts";

// A computed specifier keeps tsc (which has no Deno types) out of the adapter.
const ADAPTER = "../../../adapters/deno/mod.ts";
type DenoStore = (options?: { kvPath?: string }) => Store;
const loadDenoStore = async (): Promise<DenoStore> => ((await import(ADAPTER)) as { denoStore: DenoStore }).denoStore;

function fakeEnv(vars: Record<string, string>): void {
  (globalThis as { Deno?: unknown }).Deno = { env: { get: (key: string) => vars[key] } };
}

describe("denoStore() with a malformed LIBSQL_URL", {
  skip: needsStandInDeno,
}, () => {
  afterEach(() => void delete (globalThis as { Deno?: unknown }).Deno);

  for (
    const [url, shown] of [
      ["db.example.com?authToken=s3cr3t", "db.example.com?authToken=***"],
      ["file:edgecron.db", "file:edgecron.db"],
      ["postgres://app:s3cr3t@db.example.com/app", "postgres://***@db.example.com/app"],
    ] as const
  ) {
    it(`names LIBSQL_URL and hides the secret: ${shown}`, async () => {
      fakeEnv({ LIBSQL_URL: url, LIBSQL_AUTH_TOKEN: "t" });
      const denoStore = await loadDenoStore();
      assert.throws(() => denoStore(), (e: unknown) => {
        assert.ok(e instanceof SchedulerError, `a SchedulerError, got ${String(e)}`);
        assert.equal(e.code, "invalid-spec");
        assert.equal(e.path, "LIBSQL_URL");
        assert.equal(e.message, `invalid-spec: LIBSQL_URL: expected a libsql:, https: or wss: URL, got "${shown}"`);
        return true;
      });
    });
  }
});
