// edgecron/cloudflare/postgres outside workerd, on the real test server: which binding
// postgresFromEnv reads, bad bindings refused by name, and the connection per event that
// cloudflareWorker gives it (opened once for the event's calls, ended through waitUntil),
// counted from the server's own statistics. test/store/postgres/worker_test.ts runs the
// same worker inside workerd.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import postgres from "postgres";
import { SchedulerError } from "../../../src/core/errors.ts";
import { createScheduler } from "../../../src/mod.ts";
import { cloudflareWorker } from "../../../adapters/cloudflare/mod.ts";
import { type PostgresEnv, postgresFromEnv } from "../../../adapters/cloudflare/postgres.ts";
import { freshSchema, pgServer, skipReason } from "./_server.ts";

const invalid = (path: string) => (e: unknown): boolean =>
  e instanceof SchedulerError && e.code === "invalid-spec" && e.message.includes(path);

describe("postgresFromEnv: bindings", () => {
  it("refuses an env with neither HYPERDRIVE nor DATABASE_URL, naming both", () => {
    assert.throws(() => postgresFromEnv({}), invalid("env.HYPERDRIVE / env.DATABASE_URL"));
    assert.throws(() => postgresFromEnv({ DATABASE_URL: "" }), invalid("env.DATABASE_URL"));
  });

  it("refuses a Hyperdrive binding without a connection string, a bad URL (password hidden) and a bad max", () => {
    assert.throws(() => postgresFromEnv({ HYPERDRIVE: {} as never }), invalid("env.HYPERDRIVE"));
    assert.throws(
      () => postgresFromEnv({ DATABASE_URL: "mysql://u:hunter2@h/db" }),
      (e: unknown) => invalid("postgresStore.url")(e) && !String((e as Error).message).includes("hunter2"),
    );
    assert.throws(() => postgresFromEnv({ DATABASE_URL: "postgres://h/db" }, { max: 0 }), invalid("max"));
  });
});

describe("postgresFromEnv on a real server", { skip: skipReason }, () => {
  let url: string;
  let admin: postgres.Sql;
  before(async () => {
    url = (await pgServer()).url;
    admin = postgres(url, { onnotice: () => {}, max: 1 });
  });
  after(() => admin?.end());

  /** Sessions the server has opened so far (every database), and those of edgecron open now. */
  const sessions = async (): Promise<{ opened: number; open: number }> => {
    const [row] = await admin`SELECT (SELECT sum(sessions)::int FROM pg_stat_database) AS opened,
      (SELECT count(*)::int FROM pg_stat_activity WHERE application_name = 'edgecron') AS open`;
    return { opened: Number(row?.opened), open: Number(row?.open) };
  };
  const waitUntilSettled = async (pending: Promise<unknown>[]): Promise<void> => {
    while (pending.length > 0) await Promise.allSettled(pending.splice(0));
  };

  it("prefers the Hyperdrive binding over DATABASE_URL", async () => {
    const env: PostgresEnv = { HYPERDRIVE: { connectionString: url }, DATABASE_URL: "postgres://nobody@127.0.0.1:9/x" };
    const store = postgresFromEnv(env, { schema: freshSchema("cf") });
    await store.init();
    assert.equal(await store.getRun("nothing", 0), undefined);
    await store.close();
  });

  it("gives each scheduled event one connection for all its calls, ended through waitUntil", async () => {
    const env: PostgresEnv = { DATABASE_URL: url };
    const schema = freshSchema("cf");
    let ran = 0;
    const worker = cloudflareWorker((e: PostgresEnv) =>
      createScheduler({ store: postgresFromEnv(e, { schema }) }).job("minutely", {
        schedule: "* * * * *",
        run: () => {
          ran += 1;
        },
      })
    );
    const pending: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p) };
    const minute = Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000;

    // The second minute is delivered twice: the repeat is planned past and not run.
    for (const slot of [minute, minute + 60_000, minute + 60_000]) {
      const before = await sessions();
      await worker.scheduled({ scheduledTime: slot, cron: "* * * * *" }, env, ctx);
      await waitUntilSettled(pending);
      const afterEvent = await sessions();
      // A tick is several store calls (migrate, snapshot, claim, outcomes): one session
      // per call would open that many; the event opens at most its two connections.
      const opened = afterEvent.opened - before.opened;
      assert.ok(opened >= 1 && opened <= 2, `sessions opened by one event: ${opened}`);
      assert.equal(afterEvent.open, 0, "the event's connection is ended once waitUntil settles");
    }
    // The registering tick's own minute runs too (DESIGN §5), then the next one, once.
    assert.equal(ran, 2);
    const rows = await admin.unsafe(`SELECT slot::text, status FROM ${schema}.runs ORDER BY slot`);
    assert.deepEqual(rows.map((r) => [Number(r.slot), r.status]), [[minute, "ok"], [minute + 60_000, "ok"]]);
  });

  it("outside any event, a call opens a connection for itself and ends it", async () => {
    const store = postgresFromEnv({ DATABASE_URL: url }, { schema: freshSchema("cf") });
    await store.init();
    await store.putSetting("k", "v");
    assert.equal(await store.getSetting("k"), "v");
    // Each call's end is started when the call returns; it completes within a moment.
    const deadline = Date.now() + 10_000;
    while ((await sessions()).open > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal((await sessions()).open, 0);
    await store.close();
  });
});
