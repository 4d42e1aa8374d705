import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { storeFromEnv } from "../../../adapters/cloudflare/mod.ts";
import { SchedulerError } from "../../../src/core/errors.ts";

// A binding with D1's shape; never called here (a store connects on first use).
const fakeD1 = { prepare: () => ({}), batch: async () => [] };

describe("storeFromEnv", () => {
  it("picks D1 when the DB binding exists, even beside LIBSQL_URL", async () => {
    const store = storeFromEnv({ DB: fakeD1, LIBSQL_URL: "libsql://127.0.0.1:9" });
    assert.ok(store);
    await store.close();
    await assert.rejects(store.getRun("a", 0), /d1: the store is closed/);
  });

  it("takes another binding name", async () => {
    assert.equal(storeFromEnv({ JOBS: fakeD1 }), undefined);
    const store = storeFromEnv({ JOBS: fakeD1 }, { binding: "JOBS" });
    await store?.close();
    await assert.rejects(store!.getRun("a", 0), /d1:/);
  });

  it("falls back to libSQL from LIBSQL_URL, and to nothing (memory) without either", async () => {
    const store = storeFromEnv({ DB: "not a database", LIBSQL_URL: "libsql://127.0.0.1:9" });
    await store?.close();
    await assert.rejects(store!.getRun("a", 0), /libsql: the store is closed/);
    assert.equal(storeFromEnv({}), undefined);
    assert.equal(storeFromEnv({ LIBSQL_URL: "" }), undefined);
  });

  it("names postgresFromEnv when only a Postgres binding is set, and ignores an empty one", () => {
    const refused = (path: string) => (e: unknown): boolean =>
      e instanceof SchedulerError && e.code === "invalid-spec" && e.message.includes(`env.${path}`) &&
      e.message.includes('postgresFromEnv(env) from "edgecron/cloudflare/postgres"');
    assert.throws(() => storeFromEnv({ DATABASE_URL: "postgres://h/db" }), refused("DATABASE_URL"));
    assert.throws(() => storeFromEnv({ HYPERDRIVE: { connectionString: "postgres://h/db" } }), refused("HYPERDRIVE"));
    assert.equal(storeFromEnv({ DATABASE_URL: "", HYPERDRIVE: null }), undefined);
    // D1 or libSQL, when bound, still win.
    assert.ok(storeFromEnv({ DB: fakeD1, DATABASE_URL: "postgres://h/db" }));
  });

  it("refuses a D1 binding that is missing or something else when nothing else is bound (it fell back to memory)", () => {
    const refused = (path: string, got: string) => (e: unknown): boolean =>
      e instanceof SchedulerError && e.code === "invalid-spec" && e.path === path &&
      e.message.includes(`${path}: expected a D1 database binding`) && e.message.endsWith(got);
    // A typo in wrangler.toml's binding name, or the name given to a KV namespace or a var.
    assert.throws(() => storeFromEnv({ JOBS_DB: fakeD1 }, { binding: "JOBS" }), refused("env.JOBS", "got no binding"));
    assert.throws(() => storeFromEnv({ DB: "edgecron" }), refused("env.DB", "got a string"));
    assert.throws(() => storeFromEnv({ DB: { get() {}, put() {} } }), refused("env.DB", "got an object"));
  });
});
