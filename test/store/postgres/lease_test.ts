// postgresStore({ url, lease }): no pool, a connection lent for each call and given back
// once after it, whatever the call's fate (a failure, a deadline that passed before the
// lease came). The lease form is what edgecron/cloudflare/postgres uses on Workers.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import postgres from "postgres";
import { SchedulerError } from "../../../src/core/errors.ts";
import { type PostgresLease, type PostgresSqlLike, postgresStore } from "../../../src/store/postgres/mod.ts";
import { freshSchema, pgServer, skipReason } from "./_server.ts";

const isCode = (code: string, re: RegExp) => (e: unknown): boolean =>
  e instanceof SchedulerError && e.code === code && re.test(e.message);

describe("postgresStore lease: bad input", () => {
  it("refuses a lease that is not a function, naming the field", () => {
    assert.throws(
      () => postgresStore({ url: "postgres://h/db", lease: 5 as never }),
      isCode("invalid-spec", /postgresStore\.lease: expected a function, got "5"/),
    );
  });

  it("a lease that returns something else fails the call with invalid-spec, not a crash", async () => {
    const store = postgresStore({ url: "postgres://h/db", lease: () => ({ sql: {} }) as never });
    await assert.rejects(store.init(), isCode("invalid-spec", /expected it to return \{ sql, release \}/));
  });
});

describe("postgresStore lease on a real server", { skip: skipReason }, () => {
  let pool: postgres.Sql;
  let url: string;
  before(async () => {
    url = (await pgServer()).url;
    pool = postgres(url, { onnotice: () => {}, max: 2 });
  });
  after(() => pool?.end());

  it("lends once and gives back once per call, also when the call fails", async () => {
    let lent = 0;
    let given = 0;
    let broken = false;
    const bad = postgres("postgres://nobody@127.0.0.1:9/x", { max: 1, connect_timeout: 1 });
    const store = postgresStore({
      url,
      schema: freshSchema("lease"),
      lease: (target): PostgresLease => {
        assert.equal(target, url);
        lent += 1;
        return { sql: (broken ? bad : pool) as unknown as PostgresSqlLike, release: () => void (given += 1) };
      },
    });
    await store.init();
    await store.putSetting("k", "v");
    assert.equal(await store.getSetting("k"), "v");
    assert.ok(lent >= 3, `one lease per call at least (${lent})`);
    broken = true;
    await assert.rejects(store.putSetting("k", "w"), isCode("store-error", /putSetting failed/));
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(given, lent, "every lease was given back");
    await store.close();
    await bad.end();
  });

  it("a lease that comes after the caller's deadline is given back all the same", async () => {
    let arrive: ((lease: PostgresLease) => void) | undefined;
    let given = 0;
    const store = postgresStore({
      url,
      schema: freshSchema("lease"),
      lease: () => new Promise<PostgresLease>((resolve) => (arrive = resolve)),
    });
    store.setCallTimeout?.(50);
    await assert.rejects(store.init(), isCode("store-error", /no answer within 50 ms/));
    assert.ok(arrive !== undefined, "the lease was asked for");
    arrive({ sql: pool as unknown as PostgresSqlLike, release: () => void (given += 1) });
    for (let i = 0; i < 10 && given === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(given, 1);
    await store.close();
  });
});
