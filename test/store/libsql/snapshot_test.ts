// The libSQL snapshot at scale: read in pages of SNAPSHOT_PAGE names, the definitions and
// open rows once per snapshot, a turn of the event loop between pages (the embedded driver
// runs a statement synchronously: one statement over 100 000 names blocked the loop for
// 3 s), and only a page with a new name writes.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Client, createClient, type InStatement } from "@libsql/client";
import { libsqlStore } from "../../../src/store/libsql/mod.ts";
import { SNAPSHOT_PAGE } from "../../../src/store/sql/statements.ts";
import { request } from "../contract.ts";

const dir = mkdtempSync(join(tmpdir(), "edgecron-libsql-snapshot-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const MIN = 60_000;

interface Call {
  /** "write" for a write batch; "read" for a read batch or a lone statement. */
  mode: string;
  sql: string[];
  /** The longest JSON array bound to any statement of the call (the names of a page). */
  names: number;
}

/** The longest JSON array among a statement's arguments (0 when none). */
function longestList(statement: InStatement): number {
  const args = typeof statement === "string" ? [] : (statement.args as unknown[] | undefined) ?? [];
  let longest = 0;
  for (const arg of args) {
    if (typeof arg !== "string" || !arg.startsWith("[")) continue;
    const value: unknown = JSON.parse(arg);
    if (Array.isArray(value)) longest = Math.max(longest, value.length);
  }
  return longest;
}

/** A client that records every round trip of the store's snapshots. */
function recordingClient(): { client: Client; calls: Call[]; raw: Client } {
  const raw = createClient({ url: `file:${join(dir, `db-${++files}.db`)}` });
  const calls: Call[] = [];
  const record = (mode: string, statements: InStatement[]): void => {
    calls.push({
      mode: mode === "write" ? "write" : "read",
      sql: statements.map((s) => (typeof s === "string" ? s : s.sql)),
      names: Math.max(0, ...statements.map(longestList)),
    });
  };
  const client = Object.create(raw) as Client;
  client.batch = (statements: InStatement[], mode?: "write" | "read" | "deferred") => {
    record(mode ?? "write", statements);
    return raw.batch(statements, mode);
  };
  client.execute = ((statement: InStatement) => {
    record("read", [statement]);
    return raw.execute(statement);
  }) as Client["execute"];
  return { client, calls, raw };
}

const name = (i: number): string => `job-${String(i).padStart(5, "0")}`;

describe("libsqlStore snapshot() in pages", () => {
  it(`reads ${SNAPSHOT_PAGE * 3 + 500} names in pages of ${SNAPSHOT_PAGE}, definitions and open rows once, yielding between pages`, async () => {
    const { client, calls, raw } = recordingClient();
    const store = libsqlStore({ client });
    await store.init();
    await store.putDef("zz-hook", { schedule: "* * * * *" }, T0);
    const names = Array.from({ length: SNAPSHOT_PAGE * 3 + 500 }, (_, i) => name(i));
    const pages = Math.ceil((names.length + 1) / SNAPSHOT_PAGE);

    calls.length = 0;
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    const first = await store.snapshot(names, T0);
    assert.equal(timerRan, true, "a timer due during the snapshot ran before it resolved");
    assert.equal(Object.keys(first.jobs).length, names.length + 1);
    assert.ok(calls.length >= pages, `${calls.length} round trips for ${pages} pages`);
    for (const call of calls) assert.ok(call.names <= SNAPSHOT_PAGE, `a call bound ${call.names} names`);
    const statements = calls.flatMap((c) => c.sql);
    assert.equal(
      statements.filter((s) => /FROM edgecron_defs ORDER BY name/.test(s)).length,
      1,
      "definitions read once",
    );
    assert.equal(
      statements.filter((s) => /FROM edgecron_runs WHERE status IN/.test(s)).length,
      1,
      "open rows read once",
    );

    // Every job known: reads only, one per page; a new name in the third page writes that page alone.
    await store.claim([request(name(SNAPSHOT_PAGE), T0 + MIN, { batch: "t" })]);
    calls.length = 0;
    const known = await store.snapshot(names, T0 + MIN);
    assert.deepEqual(calls.map((c) => c.mode), Array(pages).fill("read"));
    assert.deepEqual(known.watermarks, { [name(SNAPSHOT_PAGE)]: T0 + MIN });
    assert.deepEqual(known.running.map((r) => r.job), [name(SNAPSHOT_PAGE)]);

    calls.length = 0;
    const more = [...names, "new-in-page-4"];
    const grown = await store.snapshot(more, T0 + 2 * MIN);
    assert.deepEqual(calls.map((c) => c.mode), [...Array(pages).fill("read"), "write"]);
    assert.equal(grown.jobs["new-in-page-4"]?.firstSeen, T0 + 2 * MIN);
    assert.equal(grown.jobs[name(SNAPSHOT_PAGE * 3)]?.firstSeen, T0);
    assert.equal(grown.jobs["zz-hook"]?.firstSeen, T0);
    await store.close();
    raw.close();
  });
});
