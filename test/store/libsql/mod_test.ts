import { type AddressInfo, createServer } from "node:net";
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { SchedulerError } from "../../../src/core/errors.ts";
import { libsqlStore } from "../../../src/store/libsql/mod.ts";
import {
  bind,
  jobStatesSql,
  readStatements,
  reapStatement,
  snapshotReadStatements,
} from "../../../src/store/sql/statements.ts";
import { SCHEMA_VERSION } from "../../../src/store/sql/schema.ts";
import { claimsStatement, uniformClaim } from "../../../src/store/sql/claims.ts";
import {
  createTallyPace,
  RANGE_MIN,
  TALLY_FIRST_PART,
  TALLY_MAX_PART,
  TALLY_TARGET_MS,
  tallyOf,
  tallyStatement,
} from "../../../src/store/sql/tally.ts";
import { createSqlStore } from "../../../src/store/sql/store.ts";
import { SCRAPE_PAGE } from "../../../src/http/metrics.ts";
import { libsqlExecutor } from "../../../src/store/libsql/executor.ts";
import { libsqlConnection } from "../../../src/store/libsql/connection.ts";
import { resolveLibsqlOptions } from "../../../src/store/libsql/client.ts";
import { request, storeContract } from "../contract.ts";

const dir = mkdtempSync(join(tmpdir(), "edgecron-libsql-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshUrl = (): string => `file:${join(dir, `db-${++files}.db`)}`;

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MIN = 60_000;
const isCode = (code: string) => (error: unknown): boolean => error instanceof SchedulerError && error.code === code;

storeContract("libsql (file)", async () => libsqlStore({ url: freshUrl() }));

describe("libsqlStore schema", () => {
  it("init() migrates an empty file to the current version, once, and re-init keeps the data", async () => {
    const url = freshUrl();
    const first = libsqlStore({ url });
    await first.init();
    await first.claim([request("a", T0)]);
    await first.setPaused("a", true, T0);
    await first.close();

    const second = libsqlStore({ url });
    await second.init();
    assert.equal((await second.getRun("a", T0))?.status, "running");
    assert.equal((await second.snapshot(["a"], T0 + 1)).jobs.a?.paused, true);
    await second.close();

    const raw = createClient({ url });
    const versions = await raw.execute("SELECT version FROM edgecron_schema_version ORDER BY version");
    assert.deepEqual(
      versions.rows.map((r) => Number(r.version)),
      Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
    );
    const mode = await raw.execute("PRAGMA journal_mode");
    assert.equal(String(mode.rows[0]?.journal_mode).toLowerCase(), "wal");
    raw.close();
  });

  it("several stores calling init() at once on one new file all succeed and migrate once", async () => {
    const url = freshUrl();
    const stores = Array.from({ length: 6 }, () => libsqlStore({ url }));
    await Promise.all(stores.map((s) => s.init()));
    await Promise.all(stores.map((s) => s.close()));
    const raw = createClient({ url });
    const versions = await raw.execute("SELECT COUNT(*) AS n FROM edgecron_schema_version");
    assert.equal(Number(versions.rows[0]?.n), SCHEMA_VERSION);
    raw.close();
  });

  it("init() refuses a database written by a newer edgecron", async () => {
    const url = freshUrl();
    const store = libsqlStore({ url });
    await store.init();
    const raw = createClient({ url });
    await raw.execute({ sql: "INSERT INTO edgecron_schema_version VALUES (?, 0)", args: [SCHEMA_VERSION + 1] });
    raw.close();
    await store.close();
    const newer = libsqlStore({ url });
    await assert.rejects(
      newer.init(),
      (e: unknown) => isCode("store-error")(e) && /newer than this edgecron/.test(String(e)),
    );
    await newer.close();
  });

  it("the watermark and overlap queries are served by indexes (EXPLAIN QUERY PLAN)", async () => {
    const url = freshUrl();
    const store = libsqlStore({ url });
    await store.init();
    await store.close();
    const raw = createClient({ url });
    const plan = async (sql: string, args: Record<string, string | number>): Promise<string> => {
      const statement = bind(`EXPLAIN QUERY PLAN ${sql}`, args);
      return (await raw.execute(statement)).rows.map((r) => String(r.detail)).join("\n");
    };
    const watermark = await plan(jobStatesSql, { names: '["a"]' });
    assert.match(watermark, /SEARCH r USING COVERING INDEX edgecron_runs_watermark \(job=\? AND kind=\?\)/);
    const overlap = await plan(
      "SELECT 1 FROM edgecron_runs o WHERE o.job = :job AND o.status = 'running' AND o.lease_until > :now AND o.batch <> :batch",
      { job: "a", now: 1, batch: "b" },
    );
    assert.match(overlap, /edgecron_runs_running/);
    raw.close();
  });

  it("the snapshot's open rows, read()'s, reap() and a claim's overlap probes walk the open-row index, not the run history (EXPLAIN QUERY PLAN)", async () => {
    const url = freshUrl();
    const store = libsqlStore({ url });
    await store.init();
    await store.close();
    const raw = createClient({ url });
    const plan = async (statement: { sql: string; args: (string | number | null)[] }): Promise<string> =>
      (await raw.execute({ sql: `EXPLAIN QUERY PLAN ${statement.sql}`, args: statement.args })).rows
        .map((r) => String(r.detail)).join("\n");
    const [, , open] = snapshotReadStatements(["a"]);
    assert.match(await plan(open!), /USING INDEX edgecron_runs_open/);
    assert.match(await plan(readStatements(["a"])[2]!), /USING INDEX edgecron_runs_open/);
    const reap = await plan(reapStatement(T0, "x", "y"));
    assert.match(reap, /USING INDEX edgecron_runs_open/);
    assert.doesNotMatch(reap, /SCAN edgecron_runs$/m);
    // A claim's overlap and buffer probes: the job's open rows, not its history.
    const claim = await plan(claimsStatement([request("a", T0, { overlap: "bufferAll" })]));
    assert.match(claim, /SEARCH o USING INDEX edgecron_runs_open \(job=\?\)/);
    assert.match(claim, /SEARCH q USING INDEX edgecron_runs_open \(job=\?\)/);
    // A plain batch (skip or allow, no maxRuns) takes the short form: the same overlap probe
    // on the open rows, and none of the steps that materialise every request again.
    const plain = claimsStatement([request("a", T0), request("b", T0, { overlap: "allow" })]);
    assert.doesNotMatch(plain.sql, /MATERIALIZED|OVER \(/);
    assert.match(await plan(plain), /SEARCH o USING INDEX edgecron_runs_open \(job=\?\)/);
    assert.match(claimsStatement([request("a", T0), request("b", T0, { maxRuns: 3 })]).sql, /MATERIALIZED/);
    // A minute's batch (alike but for the job) binds what it shares: no row taken apart with
    // json_extract, and no row returned per claim: two reads of one primary-key probe per job
    // around the insert, each one JSON text. A job named twice goes to the row form.
    const minute = uniformClaim([request("a", T0, { batch: "t" }), request("b", T0, { batch: "t" })]);
    assert.equal(minute?.statements.length, 3);
    const [taken, insert, others] = minute!.statements;
    assert.doesNotMatch(insert!.sql, /json_extract|RETURNING/);
    assert.match(await plan(insert!), /SEARCH o USING INDEX edgecron_runs_open \(job=\?\)/);
    for (const read of [taken!, others!]) {
      assert.match(
        await plan(read),
        /SEARCH r USING (COVERING )?INDEX sqlite_autoindex_edgecron_runs_1 \(job=\? AND slot=\?\)/,
      );
    }
    assert.equal(uniformClaim([request("a", T0, { batch: "t" }), request("a", T0, { batch: "t" })]), undefined);
    raw.close();
  });

  it("tally() groups finished rows on edgecron_runs_tally alone (no sort, no table row) and open rows on edgecron_runs_open, a page of many names as a range; a version-5 file gains the index on init() (EXPLAIN QUERY PLAN)", async () => {
    const url = freshUrl();
    const first = libsqlStore({ url });
    await first.claim([request("a", T0, { batch: "t1" }), request("b", T0, { batch: "t1" })]);
    await first.update({ job: "a", slot: T0, attempt: 1, node: "node-a" }, { status: "ok", finishedAt: T0 + 10 });
    await first.close();
    // Make it a database written before migration 6.
    const raw = createClient({ url });
    await raw.batch(
      ["DROP INDEX edgecron_runs_tally", "DELETE FROM edgecron_schema_version WHERE version >= 6"],
      "write",
    );
    const store = libsqlStore({ url });
    const tally = await store.tally(["a", "b"], T0 + 1);
    assert.deepEqual([tally.a?.counts.ok, tally.a?.last?.finishedAt, tally.b?.runningSince], [1, T0 + 10, T0]);
    await store.close();
    raw.close();
    // A new connection: the one above still has the schema it read before init().
    const fresh = createClient({ url });
    const planOf = async (names: string[]): Promise<string> => {
      const { sql, args } = tallyStatement(names, T0);
      return (await fresh.execute({ sql: `EXPLAIN QUERY PLAN ${sql}`, args })).rows.map((r) => String(r.detail))
        .join("\n");
    };
    // A few names: a seek per name; a scrape's page of many: one walk along each index's range.
    const list = await planOf(["a", "b"]);
    const page = await planOf(Array.from({ length: RANGE_MIN }, (_, i) => `job-${String(i).padStart(3, "0")}`));
    fresh.close();
    assert.match(list, /SEARCH c USING COVERING INDEX edgecron_runs_tally \(job=\?\)/);
    assert.match(list, /SEARCH c USING INDEX edgecron_runs_open \(job=\?\)/);
    assert.match(list, /SEARCH j USING INDEX sqlite_autoindex_edgecron_jobs_1 \(name=\?\)/);
    assert.match(page, /SEARCH c USING COVERING INDEX edgecron_runs_tally \(job>\? AND job<\?\)/);
    assert.match(page, /SEARCH c USING INDEX edgecron_runs_open \(job>\? AND job<\?\)/);
    assert.match(page, /SEARCH j USING INDEX sqlite_autoindex_edgecron_jobs_1 \(name>\? AND name<\?\)/);
    // The open rows' groups are sorted (they are few); the finished rows' are not.
    for (const plan of [list, page]) assert.equal(plan.match(/USE TEMP B-TREE/g)?.length, 1);
  });

  it("tally() on a file goes in parts sized to the history, in name order, and answers as one statement does", async () => {
    const url = freshUrl();
    // The store over a libSQL executor whose reads are recorded.
    const executor = libsqlExecutor(libsqlConnection(resolveLibsqlOptions({ url })));
    const parts: unknown[] = [];
    const store = createSqlStore({
      ...executor,
      get blocking(): boolean {
        return executor.blocking === true;
      },
      prepare: () => executor.prepare!(),
      read: (operation, statements) => {
        if (operation === "tally") parts.push(statements[0]!.args);
        return executor.read(operation, statements);
      },
    });
    // 300 jobs, asked out of order and one twice, beside a name beyond U+FFFF and "__proto__".
    const names = Array.from({ length: 300 }, (_, i) => `job-${String((i * 7) % 300).padStart(3, "0")}`);
    names.push("job-005", "\u{1F600}", "__proto__");
    const ended = names.slice(0, 120);
    await store.claim(ended.map((name) => request(name, T0, { batch: "t" })));
    await store.updateMany(
      ended.map((job, i) => ({
        key: { job, slot: T0, attempt: 1, node: "node-a" },
        patch: { status: i % 3 === 0 ? "error" : "ok", finishedAt: T0 + i, leaseUntil: null },
      })),
    );
    await store.claim(names.slice(120, 140).map((name) => request(name, T0 + MIN, { batch: "u" })));
    await store.setPaused("job-010", true, T0);
    const tally = await store.tally(names, T0 + MIN);
    assert.ok(executor.blocking, "a file: URL runs on this thread");
    assert.ok(parts.length >= 3, `${parts.length} parts`);
    // The one-statement answer, read on another connection.
    const raw = createClient({ url });
    const { sql, args } = tallyStatement(names, T0 + MIN);
    const whole = tallyOf(names, (await raw.execute({ sql, args: args as (string | number)[] })).rows[0]);
    raw.close();
    assert.deepEqual({ ...tally }, { ...whole });
    assert.equal(Object.keys(tally).length, 302);
    assert.deepEqual([tally["job-010"]?.paused, tally[names[130]!]?.runningSince], [true, T0 + MIN]);
    await store.close();
  });

  it("the tally's pace: small at first, a part that took long shrinks the next to about 20 ms' worth, fast full parts double it up to the cap, above a page", () => {
    const pace = createTallyPace();
    assert.equal(pace.size, TALLY_FIRST_PART);
    pace.observe(TALLY_FIRST_PART, 400);
    assert.equal(pace.size, Math.floor((TALLY_FIRST_PART * TALLY_TARGET_MS) / 400));
    pace.observe(pace.size, 10_000);
    assert.equal(pace.size, 1, "never below one name");
    for (let i = 0; i < 20; i++) pace.observe(pace.size, 1);
    assert.equal(pace.size, TALLY_MAX_PART, "doubled back to the cap, no further");
    assert.ok(TALLY_MAX_PART > SCRAPE_PAGE, "a scrape's page and the next page's first name fit one statement");
    pace.observe(10, 1);
    assert.equal(pace.size, TALLY_MAX_PART);
    const short = createTallyPace();
    short.observe(5, 1);
    assert.equal(short.size, TALLY_FIRST_PART, "a part cut short by the list's end says nothing of the pace");
    short.observe(TALLY_FIRST_PART, TALLY_TARGET_MS);
    assert.equal(short.size, TALLY_FIRST_PART, "a part within the target keeps the size");
  });

  it("a snapshot of jobs the store knows is a read: it needs no write lock; a new name still writes", async () => {
    const url = freshUrl();
    const store = libsqlStore({ url, busyTimeout: 0 });
    await store.snapshot(["a", "b"], T0);
    await store.claim([request("a", T0 + MIN)]);
    const holder = createClient({ url });
    const tx = await holder.transaction("write");
    await tx.execute("INSERT INTO edgecron_settings (key, value) VALUES ('held', '1')");
    try {
      const view = await store.snapshot(["a", "b"], T0 + MIN);
      assert.deepEqual(Object.keys(view.jobs).sort(), ["a", "b"]);
      assert.equal(view.jobs.a?.firstSeen, T0, "the rows first seen at T0 are read as they are");
      assert.deepEqual(view.running.map((r) => `${r.job}@${r.slot}`), [`a@${T0 + MIN}`]);
      assert.equal(view.watermarks.a, T0 + MIN);
      await assert.rejects(store.snapshot(["a", "c"], T0 + MIN), /store-error/, "a missing row waits for the lock");
    } finally {
      await tx.rollback();
      holder.close();
    }
    const view = await store.snapshot(["a", "c"], T0 + 2 * MIN);
    assert.equal(view.jobs.c?.firstSeen, T0 + 2 * MIN, "once the lock is free, the new name gets its row");
    await store.close();
  });
});

describe("libsqlStore connections", () => {
  it("two clients on one file claiming the same 200 slots concurrently win each slot exactly once", async () => {
    const url = freshUrl();
    const a = libsqlStore({ url });
    const b = libsqlStore({ url });
    await Promise.all([a.init(), b.init()]);
    const slots = Array.from({ length: 200 }, (_, i) => T0 + i * 1000);
    const claimAll = (store: typeof a, node: string) =>
      Promise.all(
        slots.map((slot, i) => store.claim([request("job", slot, { node, batch: `${node}-${i}`, overlap: "allow" })])),
      );
    const [ra, rb] = await Promise.all([claimAll(a, "a"), claimAll(b, "b")]);
    slots.forEach((slot, i) => {
      const pair = [ra[i]?.[0]?.outcome, rb[i]?.[0]?.outcome].sort();
      assert.deepEqual(pair, ["lost", "won"], `slot ${slot}`);
    });
    assert.equal((await a.counts(["job"])).job?.running, 200);
    await Promise.all([a.close(), b.close()]);
  });

  it("a { client } store uses the given client and leaves closing it to its owner", async () => {
    const client = createClient({ url: freshUrl() });
    const store = libsqlStore({ client });
    await store.init();
    await store.claim([request("a", T0)]);
    await store.close();
    assert.equal(client.closed, false);
    const rows = await client.execute("SELECT COUNT(*) AS n FROM edgecron_runs");
    assert.equal(Number(rows.rows[0]?.n), 1);
    await assert.rejects(store.getRun("a", T0), isCode("store-error"));
    client.close();
  });

  it("an unreachable database rejects with store-error carrying the driver error, and recovers", async () => {
    const missing = join(dir, "no-such-dir", "x.db");
    const store = libsqlStore({ url: `file:${missing}` });
    await assert.rejects(store.init(), (e: unknown) => {
      assert.ok(isCode("store-error")(e), String(e));
      assert.ok((e as Error).cause !== undefined);
      assert.match((e as Error).message, /^store-error: libsql: init failed on file:.*no-such-dir\/x\.db: /);
      // Says what is wrong, not only SQLite's "unable to open ... : 14".
      assert.match(
        (e as Error).message,
        /The folder ".*no-such-dir" does not exist or is not writable: create it first/,
      );
      return true;
    });
    await assert.rejects(store.claim([request("a", T0)]), isCode("store-error"));
    assert.equal(existsSync(missing), false);
    mkdirSync(join(dir, "no-such-dir"));
    assert.deepEqual((await store.claim([request("a", T0)])).map((r) => r.outcome), ["won"]);
    await store.close();
  });

  it("bad options are refused at once with invalid-spec naming the field", () => {
    assert.throws(
      () => libsqlStore({ url: "postgres://db/x" }),
      (e: unknown) => isCode("invalid-spec")(e) && /url.*"postgres:\/\/db\/x"/.test(String(e)),
    );
    assert.throws(() => libsqlStore({ url: "file:x.db", busyTimeout: -1 }), isCode("invalid-spec"));
    // `file:` alone opened an unnamed database: nothing on disk, nothing shared between processes.
    for (const url of ["file:", "FILE://", "file:?mode=rwc"]) {
      assert.throws(
        () => libsqlStore({ url }),
        /libsqlStore\.url: "[^"]*" names no file; say "file:edgecron\.db"/,
        url,
      );
    }
    // Nor is a token quoted there.
    assert.throws(
      () => libsqlStore({ url: "file:?authToken=s3cret" }),
      (e: unknown) => isCode("invalid-spec")(e) && /names no file/.test(String(e)) && !/s3cret/.test(String(e)),
    );
    assert.throws(() => libsqlStore({ client: {} as never }), isCode("invalid-spec"));
  });

  it("a remote URL with no host is refused at once with invalid-spec naming url, never quoting a secret", () => {
    // `libsql://` was accepted and failed only at init, as a store-error.
    const hostless = [
      "libsql://",
      "LIBSQL://",
      "http://",
      "https://:8080",
      "ws:///db",
      "wss://[]:443",
      "libsql:db.turso.io",
      "libsql://?authToken=s3cr3t",
      "https://admin:hunter2@/db",
      "libsql:admin:hunter2@",
    ];
    for (const url of hostless) {
      assert.throws(() => libsqlStore({ url, authToken: "tok-hunter3" }), (e: unknown) => {
        assert.ok(isCode("invalid-spec")(e), `${url}: ${String(e)}`);
        assert.equal((e as SchedulerError).path, "url");
        assert.match((e as Error).message, /^invalid-spec: libsqlStore\.url: ".*" names no host; say "libsql:\/\//);
        for (const secret of ["s3cr3t", "hunter2", "tok-hunter3"]) assert.ok(!(e as Error).message.includes(secret));
        return true;
      });
    }
    assert.throws(() => libsqlStore({ url: "libsql://" }), {
      message: 'invalid-spec: libsqlStore.url: "libsql://" names no host; say "libsql://<database>.turso.io" or ' +
        '"http://127.0.0.1:8080"',
    });
    for (const url of ["libsql://db.turso.io", "wss://u:p@db.example:443/x", "http://[::1]:8080", "file:x.db"]) {
      assert.doesNotThrow(() => libsqlStore({ url }), url);
    }
  });

  it("accepts libsql:// and http(s):// URLs without connecting until used; a refused connection is a store-error", async () => {
    // Port 9 (discard) on loopback: nothing listens, so any connection attempt is refused.
    const remote = libsqlStore({ url: "libsql://127.0.0.1:9", authToken: "t" });
    assert.equal(await remote.close(), undefined, "closing a store that never connected does nothing");
    await assert.rejects(remote.getRun("a", T0), (e: unknown) => isCode("store-error")(e) && /closed/.test(String(e)));
    const http = libsqlStore({ url: "http://127.0.0.1:9" });
    await assert.rejects(
      http.getRun("a", T0),
      (e: unknown) => isCode("store-error")(e) && (e as Error).cause !== undefined,
    );
    await http.close();
  });

  it("a server that is down: the error names the URL without credentials, and the cause", async () => {
    const port = await freePort();
    const down = libsqlStore({ url: `http://127.0.0.1:${port}/?authToken=s3cr3t`, authToken: "tok-hunter3" });
    await assert.rejects(down.init(), (e: unknown) => {
      const text = `${String(e)} ${JSON.stringify(e)}`;
      assert.ok(isCode("store-error")(e), text);
      assert.match(String(e), new RegExp(`on http://127\\.0\\.0\\.1:${port}/\\?authToken=\\*\\*\\*: `));
      assert.match(
        String(e),
        /ECONNREFUSED|connection refused/i,
        'the underlying cause (Node and Bun say ECONNREFUSED, Deno "Connection refused")',
      );
      for (const secret of ["s3cr3t", "tok-hunter3"]) assert.ok(!text.includes(secret), secret);
      return true;
    });
    await down.close();
    // The driver quotes the URL in some errors: the user and password never get through.
    const withUser = libsqlStore({ url: "http://admin:hunter2@127.0.0.1:9/db" });
    await assert.rejects(
      withUser.init(),
      (e: unknown) => !String(e).includes("hunter2") && /http:\/\/\*\*\*@127/.test(String(e)),
    );
    await withUser.close();
  });

  it("a refused URL is echoed without its password, and the accepted schemes include http: and https:", () => {
    assert.throws(() => libsqlStore({ url: "postgres://u:p4ssw0rd@localhost/db" }), (e: unknown) => {
      const message = (e as Error).message;
      assert.ok(isCode("invalid-spec")(e));
      assert.ok(!message.includes("p4ssw0rd"), message);
      assert.match(
        message,
        /expected a file:, libsql:, https:, http:, wss: or ws: URL, got "postgres:\/\/\*\*\*@localhost\/db"/,
      );
      return true;
    });
  });
});

/** A loopback port nothing listens on (just released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
