// postgresStore specifics on a real server: options and their errors (never a
// credential), the lazily loaded driver, a shared pool, the schema option, migrations
// under the advisory lock (ten nodes starting at once migrate once), the overlap check
// serialised across pools, a caller's deadline, and a connection the server kills.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import postgres from "postgres";
import { SchedulerError } from "../../../src/core/errors.ts";
import { postgresStore } from "../../../src/store/postgres/mod.ts";
import { missingDriver, resolvePostgresOptions } from "../../../src/store/postgres/options.ts";
import { redactUrl } from "../../../src/store/postgres/url.ts";
import { storeError } from "../../../src/store/postgres/driver.ts";
import { PG_SCHEMA_VERSION } from "../../../src/store/postgres/schema.ts";
import type { MemoryStore } from "../../../src/store/memory/mod.ts";
import { setup, tickAt } from "../../engine/_helpers.ts";
import { request } from "../contract.ts";
import { freshSchema, PG_PASSWORD, pgServer, skipReason } from "./_server.ts";

const T0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;

/** Asserts `fn` rejects with a SchedulerError of `code` whose message matches `re` and never holds the password. */
async function rejects(fn: () => Promise<unknown>, code: string, re: RegExp): Promise<SchedulerError> {
  try {
    await fn();
  } catch (error) {
    assert.ok(error instanceof SchedulerError, `expected a SchedulerError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.match(error.message, re);
    assert.ok(!error.message.includes(PG_PASSWORD), `the password leaked: ${error.message}`);
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Error) {
      assert.ok(!`${cause.message}${cause.stack}`.includes(PG_PASSWORD), "the password leaked in the cause");
    }
    return error;
  }
  assert.fail("expected a rejection");
}

describe("postgresStore options", () => {
  it("refuses a URL that is not postgres:// with invalid-spec, its password blanked", () => {
    assert.throws(() => postgresStore({ url: `mysql://app:${PG_PASSWORD}@db/app` }), (e: unknown) => {
      assert.ok(e instanceof SchedulerError && e.code === "invalid-spec");
      assert.match(
        e.message,
        /postgresStore\.url: expected a postgres:\/\/ or postgresql:\/\/ URL, got "mysql:\/\/app:\*\*\*@db\/app"/,
      );
      return !e.message.includes(PG_PASSWORD);
    });
  });

  it("refuses a bad schema name, pool size, timeout or sql with invalid-spec naming the field", () => {
    const cases: [unknown, RegExp][] = [
      [{ url: "postgres://h/db", schema: "Edge-Cron" }, /postgresStore\.schema: .*got "Edge-Cron"/],
      [{ url: "postgres://h/db", schema: 'x"; drop table y; --' }, /postgresStore\.schema/],
      // Postgres's own names: init failed with store-error (42939, 42501) at every call.
      [
        { url: "postgres://h/db", schema: "pg_jobs" },
        /postgresStore\.schema: names starting with pg_ are Postgres's own, got "pg_jobs"/,
      ],
      [{ url: "postgres://h/db", schema: "pg_catalog" }, /postgresStore\.schema: names starting with pg_/],
      [{ url: "postgres://h/db", max: 0 }, /postgresStore\.max: expected an integer from 1 to 10000, got "0"/],
      [{ url: "postgres://h/db", connectTimeout: 1.5 }, /postgresStore\.connectTimeout/],
      [{ url: "postgres://h/db", prepare: "no" }, /postgresStore\.prepare/],
      [{ sql: { unsafe() {} } }, /postgresStore\.sql: expected a postgres\.js sql instance/],
      [null, /postgresStore: expected \{ url \} or \{ sql \}/],
    ];
    for (const [options, re] of cases) {
      assert.throws(
        () => postgresStore(options as never),
        (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && re.test(e.message),
      );
    }
  });

  it("refuses a pool or connect timeout too large to work, instead of running out of memory or timing out at once", () => {
    // postgres.js makes every pool slot up front: max 1e9 ended the process (heap out of
    // memory); a connectTimeout past the longest timer fired at once (CONNECT_TIMEOUT).
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ max: 1e9 }, /postgresStore\.max: expected an integer from 1 to 10000, got "1000000000"/],
      [{ max: 10_001 }, /postgresStore\.max: expected an integer from 1 to 10000/],
      [
        { connectTimeout: 1e12 },
        /postgresStore\.connectTimeout: expected an integer from 1 to 2147483, got "1000000000000"/,
      ],
      [{ connectTimeout: 2_147_484 }, /postgresStore\.connectTimeout: expected an integer from 1 to 2147483/],
    ];
    for (const [extra, re] of cases) {
      assert.throws(
        () => postgresStore({ url: "postgres://h/db", ...extra }),
        (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && re.test(e.message),
        JSON.stringify(extra),
      );
    }
    assert.doesNotThrow(() => postgresStore({ url: "postgres://h/db", max: 10_000, connectTimeout: 2_147_483 }));
  });

  it("refuses a URL the driver cannot read at once, its password blanked, with no cause to carry the URL", () => {
    // Before, the store was made and every call failed with store-error "Invalid URL",
    // whose cause (ERR_INVALID_URL) held the whole URL, password and all, in `input`.
    for (
      const url of [
        `postgres://app:${PG_PASSWORD}@db:54x32/app`,
        `postgres://app:${PG_PASSWORD}@db:99999/app`,
        `postgres://app:${PG_PASSWORD}@[::1/app`,
        `postgresql://app:${PG_PASSWORD}@db%zz/app`,
      ]
    ) {
      assert.throws(() => postgresStore({ url }), (e: unknown) => {
        assert.ok(e instanceof SchedulerError && e.code === "invalid-spec", String(e));
        assert.match(
          e.message,
          /^invalid-spec: postgresStore\.url: not a URL the driver can read .*got "postgres(ql)?:\/\/app:\*\*\*@/,
        );
        assert.ok(!e.message.includes(PG_PASSWORD), e.message);
        assert.equal((e as { cause?: unknown }).cause, undefined);
        return true;
      }, url);
    }
    // What postgres.js reads is accepted: several hosts, IPv6, no host at all (localhost).
    for (
      const url of [
        "postgres://app:pw@h1:5432,h2:5433/db",
        "postgres://app:pw@[::1]:5432/db",
        "postgres://",
        "postgres:///db",
      ]
    ) {
      assert.doesNotThrow(() => postgresStore({ url }), url);
    }
  });

  it("blanks all of a password holding a raw @, as the URL parser reads it", () => {
    assert.throws(() => postgresStore({ url: "mysql://app:se@cret@db/app" }), (e: unknown) => {
      assert.ok(e instanceof SchedulerError);
      assert.match(e.message, /got "mysql:\/\/app:\*\*\*@db\/app"/);
      return !e.message.includes("cret");
    });
    assert.ok(resolvePostgresOptions({ url: "postgres://app:se@cret@db/app" }).secrets.includes("se@cret"));
  });

  it("refuses a misspelt or misplaced option, naming it and the nearest it takes, instead of ignoring it", () => {
    // A misspelt schema put the tables in the default schema, shared with every other app.
    const sql = postgres("postgres://h/db");
    const cases: [unknown, RegExp][] = [
      [
        { url: "postgres://h/db", shcema: "staging" },
        /^invalid-spec: postgresStore\.shcema: unknown option \(\{ url \} takes url, schema, prepare, max, connectTimeout\); did you mean "schema"\?$/,
      ],
      [
        { url: "postgres://h/db", connecttimeout: 5 },
        /postgresStore\.connecttimeout: unknown option .*did you mean "connectTimeout"\?/,
      ],
      [
        { url: "postgres://h/db", ssl: true },
        /postgresStore\.ssl: unknown option \(\{ url \} takes url, schema, prepare, max, connectTimeout\)$/,
      ],
      [{ sql, max: 5 }, /postgresStore\.max: not an option of \{ sql \}: the store keeps no pool of its own/],
      [
        { sql, schema: "s", prepare: false, sheme: "x" },
        /postgresStore\.sheme: unknown option \(\{ sql \} takes sql, schema, prepare\); did you mean "schema"\?/,
      ],
      [
        { url: "postgres://h/db", lease: () => ({}), connectTimeout: 3 },
        /postgresStore\.connectTimeout: not an option of \{ url, lease \}/,
      ],
      [{ url: "postgres://h/db", sql }, /postgresStore: expected url or sql, not both/],
    ];
    for (const [options, re] of cases) {
      assert.throws(() => postgresStore(options as never), (e: unknown) => {
        assert.ok(e instanceof SchedulerError && e.code === "invalid-spec", String(e));
        assert.match(e.message, re);
        return true;
      });
    }
    // An option left undefined (a spread config without it) is no option at all.
    assert.doesNotThrow(() => postgresStore({ sql, max: undefined } as never));
    assert.doesNotThrow(() =>
      postgresStore({ url: "postgres://h/db", schema: undefined, max: 2, connectTimeout: 3 } as never)
    );
  });

  it("redactUrl blanks the password in user info and in a password parameter", () => {
    assert.equal(
      redactUrl("postgres://app:s3cr%40t@h:5432/db?sslmode=require"),
      "postgres://app:***@h:5432/db?sslmode=require",
    );
    assert.equal(redactUrl("postgresql://h/db?user=app&password=hunter2"), "postgresql://h/db?user=app&password=***");
    assert.equal(redactUrl("postgres://app@h/db"), "postgres://app@h/db");
  });

  it("blanks the password but never a bare user name (a user called postgres leaves messages readable)", () => {
    assert.deepEqual(resolvePostgresOptions({ url: "postgres://postgres@h/db" }).secrets, []);
    const secrets = resolvePostgresOptions({ url: "postgres://postgres:p%40ss@h/db?password=q" }).secrets;
    assert.deepEqual([...new Set(secrets)].sort(), ["p%40ss", "p@ss", "postgres:p%40ss", "q"]);
  });

  it("blanks a password in the driver's words only: one that is also a common word leaves this store's own text readable", () => {
    // With the password "postgres", every message read "***: init failed: connect …".
    const secrets = resolvePostgresOptions({ url: "postgres://postgres:postgres@h/db" }).secrets;
    const refused = storeError("init", new Error("connect ECONNREFUSED 127.0.0.1:1"), secrets, "edgecron");
    assert.equal(refused.message, "store-error: postgres: init failed: connect ECONNREFUSED 127.0.0.1:1");
    const echoed = storeError("claim", new Error('bad password "postgres" for "postgres"'), secrets, "edgecron");
    assert.equal(echoed.message, 'store-error: postgres: claim failed: bad password "***" for "***"');
  });

  it("a missing postgres package is a store-error that says what to install", async () => {
    const resolved = resolvePostgresOptions(
      { url: "postgres://h/db" },
      () => Promise.reject(missingDriver(new Error("Cannot find package 'postgres'"))),
    );
    await rejects(
      () => ("open" in resolved ? resolved.open() : Promise.resolve()),
      "store-error",
      /the "postgres" package \(postgres\.js 3\.x\) is not installed.*npm install postgres/,
    );
  });
});

if (skipReason !== false) {
  describe("postgresStore on a real server", () =>
    it("is skipped without a Postgres server", { skip: skipReason }, () => {}));
} else {
  const server = await pgServer();
  const admin = postgres(server.url, { onnotice: () => {}, max: 2 });
  const wrongPassword = server.url.replace(PG_PASSWORD, `${PG_PASSWORD}-wrong`);

  // Every store a test opens is closed after the suite too: a failed assertion skips the
  // test's own close(), and an open pool kept this process (and its server) alive until
  // the runner's timeout, five minutes later.
  const opened: ReturnType<typeof postgresStore>[] = [];
  const open = (options: Parameters<typeof postgresStore>[0]) => {
    const store = postgresStore(options);
    opened.push(store);
    return store;
  };

  describe("postgresStore on a real server", () => {
    after(async () => {
      await Promise.allSettled(opened.map((store) => store.close()));
      await admin.end({ timeout: 1 });
    });

    it("ten stores initialising one fresh schema at once migrate it once, under the lock", async () => {
      const schema = freshSchema("mig");
      const stores = Array.from({ length: 10 }, () => open({ url: server.url, schema, max: 1 }));
      try {
        await Promise.all(stores.map((s) => s.init()));
        const rows = await admin.unsafe(`SELECT version, applied_by FROM "${schema}".schema_version`);
        assert.equal(rows.length, PG_SCHEMA_VERSION, "one row per schema version");
        assert.equal(new Set(rows.map((r) => r.applied_by)).size, 1, "one backend applied every step");
        // Every store works on the schema the winner made.
        const results = await Promise.all(
          stores.map((s, i) => s.claim([request("a", T0, { node: `n${i}`, batch: `b${i}`, overlap: "allow" })])),
        );
        assert.equal(results.flat().filter((r) => r.outcome === "won").length, 1);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it("keeps its tables in the chosen schema and refuses a schema at a newer version", async () => {
      const schema = freshSchema("own");
      const store = open({ url: server.url, schema });
      await store.init();
      const tables = await admin.unsafe(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
        [schema],
      );
      assert.deepEqual(tables.map((r) => r.table_name), ["defs", "jobs", "runs", "schema_version", "settings"]);
      await store.close();
      await admin.unsafe(`INSERT INTO "${schema}".schema_version VALUES (99, 0, 0)`);
      const newer = open({ url: server.url, schema });
      await rejects(() => newer.init(), "store-error", /schema ".*" is at version 99, newer than this edgecron/);
      await newer.close();
    });

    it("shares a pool given as { sql } and never ends it", async () => {
      const sql = postgres(server.url, { onnotice: () => {}, max: 2 });
      const store = open({ sql, schema: freshSchema() });
      await store.putSetting("k", "v");
      assert.equal(await store.getSetting("k"), "v");
      await store.close();
      assert.deepEqual([...await sql.unsafe("SELECT 7 AS n")], [{ n: 7 }], "the caller's pool still answers");
      await rejects(() => store.getSetting("k"), "store-error", /the store is closed/);
      await sql.end();
    });

    it("a wrong password is a store-error that never shows the password", async () => {
      const store = open({ url: wrongPassword, schema: freshSchema() });
      await rejects(
        () => store.init(),
        "store-error",
        /^store-error: postgres: init failed: .*password authentication failed/,
      );
      await store.close();
    });

    it("an unreachable server is a store-error within the caller's deadline, no password in it", async () => {
      const closed = server.url.replace(`:${server.port}/`, ":1/");
      const store = open({ url: closed, schema: freshSchema() });
      store.setCallTimeout?.(2_000);
      await rejects(() => store.init(), "store-error", /^store-error: postgres: init failed/);
      await store.close();
    });

    it("keeps a NUL or a lone surrogate in a spec's strings as JSON text, as every store keeps them", async () => {
      // The spec was jsonb, which refuses both escapes: a payload with "\u0000" was refused
      // as "putDef.spec: Postgres cannot store a NUL character" (naming no field of the spec).
      const schema = freshSchema("nul");
      const store = open({ url: server.url, schema });
      try {
        const spec = {
          payload: { note: "a\u0000b", ["k\u0000"]: ["\uD800", "\uDC00x"] },
          raw: "\\u0000",
          ok: "\u{1F642}",
        };
        assert.equal((await store.putDef("d", spec, T0)).version, 1);
        assert.deepEqual((await store.getDef("d"))?.spec, spec);
        const [row] = await admin.unsafe(`SELECT spec, pg_typeof(spec)::text AS type FROM "${schema}".defs`);
        assert.equal(row?.type, "text");
        assert.equal(row?.spec, JSON.stringify(spec), "plain ASCII escapes, as JSON.stringify writes them");
        // Names and other text columns cannot hold them: refused naming the field.
        await rejects(
          () => store.claim([request("a\u0000b", T0)]),
          "invalid-spec",
          /claim\[0\]\.job: must not contain a NUL character/,
        );
        await rejects(
          () => store.setPaused("j", true, T0, { note: "n\uDBFF", by: "me" }),
          "invalid-spec",
          /setPaused\.note: must not contain a lone surrogate/,
        );
        assert.deepEqual(await store.runs("a"), [], "nothing reached the table");
        const [won] = await store.claim([request("j\u{1F642}", T0)]);
        assert.equal(won?.outcome, "won", "a whole pair is stored as given");
      } finally {
        await store.close();
      }
    });

    it("under a scheduler: a handler error with a NUL is recorded as U+FFFD, a payload with one is defined as given", async () => {
      // The outcome write must survive any thrown text; the payload was refused as "putDef.spec".
      const store = open({ url: server.url, schema: freshSchema("engine") });
      const s = setup({
        store: store as unknown as MemoryStore,
        start: T0,
        webhookSecret: "k",
        fetch: async () => new Response(""),
      });
      s.scheduler.job("nul", {
        schedule: "* * * * *",
        run: () => {
          throw new Error("a\u0000b \ud800");
        },
      });
      const payload = { note: "a\u0000b" };
      const hook = { schedule: "0 0 1 1 *", target: { url: "https://example.test/hook" }, payload };
      assert.deepEqual((await s.scheduler.define("hook", hook)).def?.spec["payload"], payload);
      await tickAt(s, T0 + 1);
      assert.equal((await tickAt(s, T0 + MIN)).ok, true);
      const [row] = await s.scheduler.runs("nul");
      assert.deepEqual([row?.slot, row?.status, row?.error], [T0 + MIN, "error", "a\ufffdb \ufffd"]);
      assert.deepEqual((await store.getDef("hook"))?.spec["payload"], payload);
      await s.scheduler.stop();
    });

    it("overlap skip holds across separate pools: of eight nodes claiming one job's slots at once, one runs", async () => {
      const schema = freshSchema("ovl");
      const stores = Array.from({ length: 8 }, () => open({ url: server.url, schema, max: 1 }));
      try {
        await stores[0]!.init();
        for (let round = 0; round < 5; round++) {
          const now = T0 + round * 10 * MIN;
          const results = await Promise.all(
            stores.map((s, i) =>
              s.claim([
                request(`job-${round}`, now + i * 1_000, {
                  node: `n${i}`,
                  batch: `b${round}-${i}`,
                  now,
                  leaseUntil: now + 5 * MIN,
                }),
              ])
            ),
          );
          assert.equal(results.flat().filter((r) => r.outcome === "won").length, 1, `round ${round}: one run`);
          assert.equal(
            results.flat().filter((r) => r.outcome === "skipped").length,
            7,
            `round ${round}: the rest skipped`,
          );
        }
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it("bufferOne and promote hold across separate pools: eight nodes at once run one slot, buffer one, promote it once", async () => {
      const schema = freshSchema("buf");
      const stores = Array.from({ length: 8 }, () => open({ url: server.url, schema, max: 1 }));
      try {
        await stores[0]!.init();
        for (let round = 0; round < 3; round++) {
          const job = `job-${round}`;
          const now = T0 + round * 10 * MIN;
          const results = (await Promise.all(stores.map((s, i) =>
            s.claim([
              request(job, now + i * 1_000, {
                overlap: "bufferOne",
                node: `n${i}`,
                batch: `b${round}-${i}`,
                now,
                leaseUntil: now + 5 * MIN,
              }),
            ])
          ))).flat();
          const count = (o: string): number => results.filter((r) => r.outcome === o).length;
          assert.deepEqual(
            [count("won"), count("buffered"), count("skipped")],
            [1, 1, 6],
            `round ${round}: one runs, one waits`,
          );
          const winner = results.find((r) => r.outcome === "won")!;
          const held = (await stores[0]!.getRun(job, winner.slot))!;
          // While the run is live nothing starts; once it settles exactly one node starts the buffered slot.
          assert.deepEqual(
            await Promise.all(stores.map((s) => s.promote({ job, node: "p", now, leaseUntil: now + MIN }))),
            Array(8).fill(undefined),
          );
          assert.equal(await stores[0]!.update(held, { status: "ok", finishedAt: now, leaseUntil: null }), true);
          const started = (await Promise.all(stores.map((s, i) =>
            s.promote({ job, node: `p${i}`, now, leaseUntil: now + MIN })
          ))).filter((r) => r);
          assert.equal(started.length, 1, `round ${round}: the buffered slot starts once`);
          assert.equal(started[0]!.slot, results.find((r) => r.outcome === "buffered")!.slot);
        }
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });

    it("migrates a version-1 schema (before pause notes) to the current one, keeping its rows", async () => {
      const schema = freshSchema("v1");
      const first = open({ url: server.url, schema });
      await first.setPaused("old", true, T0);
      await first.claim([request("old", T0)]);
      await first.putDef("def", { payload: { z: 1, a: [true, null] } }, T0);
      await first.close();
      // Back to what version 1 made: no pause columns (nor version 3's pruned_runs), the running-only index.
      await admin.unsafe(
        `ALTER TABLE "${schema}".jobs DROP COLUMN pause_note, DROP COLUMN paused_at, DROP COLUMN paused_by,
          DROP COLUMN pruned_runs`,
      );
      await admin.unsafe(`DROP INDEX "${schema}".runs_open`);
      await admin.unsafe(`CREATE INDEX runs_running ON "${schema}".runs (job, lease_until) WHERE status = 'running'`);
      // Version 4 made the spec text; before it, jsonb.
      await admin.unsafe(`ALTER TABLE "${schema}".defs ALTER COLUMN spec TYPE jsonb USING spec::jsonb`);
      await admin.unsafe(`DELETE FROM "${schema}".schema_version WHERE version > 1`);
      const store = open({ url: server.url, schema });
      try {
        const before = await store.read(["old"]);
        assert.deepEqual([before.jobs.old?.paused, before.jobs.old?.pause, before.running.length], [
          true,
          undefined,
          1,
        ]);
        assert.deepEqual((await store.getDef("def"))?.spec, { payload: { z: 1, a: [true, null] } });
        await store.setPaused("old", true, T0 + MIN, { note: "migrated", by: "ops" });
        assert.deepEqual((await store.read(["old"])).jobs.old?.pause, { note: "migrated", at: T0 + MIN, by: "ops" });
        const versions = await admin.unsafe(`SELECT version FROM "${schema}".schema_version ORDER BY 1`);
        assert.deepEqual(
          versions.map((r) => Number(r.version)),
          Array.from({ length: PG_SCHEMA_VERSION }, (_, i) => i + 1),
        );
        // A node of version 3, still running, writes its jsonb spec (an assignment cast to text).
        await admin.unsafe(
          `UPDATE "${schema}".defs SET spec = $1::text::jsonb, version = version + 1 WHERE name = 'def'`,
          ['{"payload": {"b": 2}}'],
        );
        assert.deepEqual((await store.getDef("def"))?.spec, { payload: { b: 2 } });
      } finally {
        await store.close();
      }
    });

    it("a definition whose stored spec is not a JSON object comes back broken, naming the row; reads never throw", async () => {
      const schema = freshSchema("bad");
      const store = open({ url: server.url, schema });
      try {
        await store.putDef("good", { schedule: "* * * * *" }, T0);
        await store.putDef("bad", { schedule: "* * * * *" }, T0);
        await admin.unsafe(`UPDATE "${schema}".defs SET spec = '[1, 2]' WHERE name = 'bad'`);
        const defs = await store.listDefs();
        assert.deepEqual(defs.map((d) => [d.name, d.broken === undefined]), [["bad", false], ["good", true]]);
        assert.match(defs[0]!.broken!, /^postgres: edgecron_defs row "bad": column spec is not a JSON object/);
        assert.deepEqual(defs[0]!.spec, {});
        const snapshot = await store.snapshot([], T0);
        assert.equal(snapshot.defs.find((d) => d.name === "bad")?.broken, defs[0]!.broken);
        assert.equal((await store.getDef("good"))?.broken, undefined);
      } finally {
        await store.close();
      }
    });

    it("a call blocked past the caller's deadline rejects with store-error and its query is cancelled on the server", async () => {
      const schema = freshSchema("dl");
      const store = open({ url: server.url, schema });
      await store.init();
      store.setCallTimeout?.(500);
      const blocker = await admin.reserve();
      try {
        await blocker.unsafe(`BEGIN; LOCK TABLE "${schema}".runs IN ACCESS EXCLUSIVE MODE`);
        await rejects(
          () => store.claim([request("a", T0)]),
          "store-error",
          /^store-error: postgres: claim failed: no answer within 500 ms$/,
        );
        // The cancel reaches the server: nothing of ours is left waiting on the lock.
        // Up to 10 s for the cancel to land: a loaded machine (CI) is slow, never wrong.
        let waiting = 1;
        for (let i = 0; i < 500 && waiting > 0; i++) {
          const [row] = await admin.unsafe(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'edgecron' AND wait_event_type = 'Lock'",
          );
          waiting = Number(row?.n);
          if (waiting > 0) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.equal(waiting, 0, "the timed-out claim still waits on the server");
      } finally {
        await blocker.unsafe("ROLLBACK");
        blocker.release();
      }
      // What follows checks what the cancelled claim wrote, not the deadline: on a loaded
      // machine (CI runs every tier at once) 500 ms was too short for a plain claim.
      store.setCallTimeout?.(30_000);
      assert.deepEqual(
        (await store.claim([request("a", T0)])).map((r) => r.outcome),
        ["won"],
        "the cancelled claim wrote nothing",
      );
      await store.close();
    });

    it("a connection the server terminates is replaced: a read retries, a write fails as store-error, then works", async () => {
      const schema = freshSchema("kill");
      const store = open({ url: server.url, schema, max: 1 });
      await store.init();
      await store.runs("a");
      // This store's one connection: the last query it ran names its schema.
      const kill = () =>
        admin.unsafe(
          "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE application_name = 'edgecron' AND query LIKE $1",
          [`%${schema}%`],
        );
      assert.equal(Number((await kill())[0]?.n), 1);
      assert.deepEqual(await store.runs("a"), [], "the read went through on a fresh connection");
      assert.equal(Number((await kill())[0]?.n), 1);
      // A write's outcome is unknown when its connection dies, so it is not retried: it
      // fails as store-error (the engine settles it), and the pool heals for the next.
      const outcomes: string[] = [];
      for (let i = 0; i < 3 && outcomes.at(-1) !== "won"; i++) {
        outcomes.push(
          await store.claim([request(`w${i}`, T0)]).then((r) => r[0]!.outcome, (e: unknown) => {
            assert.ok(e instanceof SchedulerError && e.code === "store-error", String(e));
            assert.match(e.message, /^store-error: postgres: claim failed: /);
            return "store-error";
          }),
        );
      }
      assert.equal(outcomes.at(-1), "won", `the pool never healed: ${outcomes.join(", ")}`);
      await store.close();
    });

    it("close() ends its pool at once after the server dropped a connection under a write", async () => {
      // postgres.js's end({ timeout: 5 }) waited all 5 s on the broken connection, so
      // scheduler.close() failed as store-error with a storeTimeout of 5 s or less.
      const schema = freshSchema("drop");
      const store = open({ url: server.url, schema, max: 4 });
      await store.init();
      const holder = await admin.reserve();
      try {
        await holder.unsafe("BEGIN");
        await holder.unsafe(`LOCK TABLE "${schema}".settings IN ACCESS EXCLUSIVE MODE`);
        const write = store.putSetting("k", "v").then(() => "written", (e: unknown) => String(e));
        // Its backend waits on the lock: then it is terminated under the write.
        const waiting =
          `SELECT pid FROM pg_stat_activity WHERE application_name = 'edgecron' AND wait_event_type = 'Lock' AND query LIKE $1`;
        let pids: readonly { pid: number }[] = [];
        while (pids.length === 0) pids = await admin.unsafe(waiting, [`%${schema}%`]) as unknown as { pid: number }[];
        await admin.unsafe("SELECT pg_terminate_backend($1)", [pids[0]!.pid]);
        assert.match(await write, /^SchedulerError: store-error: postgres: putSetting failed: /);
      } finally {
        await holder.unsafe("ROLLBACK");
        holder.release();
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const closed = await Promise.race([
        store.close().then(() => "closed"),
        new Promise((resolve) => (timer = setTimeout(resolve, 2_000, "still closing after 2 s"))),
      ]).finally(() => clearTimeout(timer));
      assert.equal(closed, "closed");
    });
  });
}
