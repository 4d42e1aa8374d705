// Postgres beside libSQL, on a real local server (test/store/postgres/_server.ts starts one
// in a temp dir): claims/s at batch 1/100/1000, the time of one outcome group commit
// (updateMany) of 1 000 and 10 000 outcomes, and 100 minutely jobs on 4 workers beside
// pg-boss's schedule() on the same server (start lateness p50/p99 for both, in one run).
// `npm run bench` runs it with the rest; `npm run bench -- --postgres` (or
// `npx tsx bench/postgres.ts`) alone; `--minutes=N` sets the lateness window (default 2).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import PgBoss from "pg-boss";
import { createScheduler } from "../src/engine/mod.ts";
import { libsqlStore } from "../src/store/libsql/mod.ts";
import { postgresStore } from "../src/store/postgres/mod.ts";
import type { ClaimRequest, Store } from "../src/store/types.ts";
import { freshSchema, pgServer, skipReason } from "../test/store/postgres/_server.ts";
import { claimsPerSecond } from "./store.ts";

const T0 = Date.UTC(2026, 0, 1);
const rate = (n: number): string => `${Math.round(n).toLocaleString("en-US")}/s`.padEnd(12);
const ms = (n: number): string => `${n.toFixed(0)} ms`.padEnd(12);

async function claimRow(name: string, store: Store, total: number): Promise<void> {
  await store.init();
  const cells: string[] = [];
  for (const size of [1, 100, 1000]) {
    await claimsPerSecond(store, size, Math.min(total, size * 5), `warm-${size}`);
    cells.push(rate(await claimsPerSecond(store, size, size === 1 ? total / 5 : total, `b${size}`)));
  }
  console.log(`${name.padEnd(12)} | ${cells.join(" | ")}`);
}

/** Claims `n` running rows, then times ONE updateMany() that finishes them all. */
async function groupCommitMs(store: Store, n: number, tag: string): Promise<number> {
  const requests: ClaimRequest[] = Array.from({ length: n }, (_, i) => ({
    job: `${tag}-${i}`,
    slot: T0,
    kind: "scheduled",
    status: "running",
    overlap: "allow",
    node: "bench",
    batch: tag,
    now: T0,
    leaseUntil: T0 + 600_000,
  }));
  for (let i = 0; i < n; i += 1000) await store.claim(requests.slice(i, i + 1000));
  const writes = requests.map((r) => ({
    key: { job: r.job, slot: r.slot, attempt: 1, node: "bench" },
    patch: { status: "ok" as const, finishedAt: T0 + 1_000, leaseUntil: null },
  }));
  const start = performance.now();
  const done = await store.updateMany(writes);
  const took = performance.now() - start;
  if (done.some((ok) => !ok)) throw new Error("bench: an outcome was not written");
  return took;
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/**
 * 100 jobs every minute on 4 workers: edgecron (4 schedulers on postgresStore) and
 * pg-boss (4 PgBoss instances, `schedule()` per queue) at the same time on one server.
 * Lateness = when a handler started minus its minute (pg-boss: the minute it started in).
 */
async function latenessBesidePgBoss(url: string, minutes: number): Promise<void> {
  const JOBS = 100;
  const names = Array.from({ length: JOBS }, (_, i) => `minutely-${String(i).padStart(3, "0")}`);
  // [minute, lateness ms] per run.
  const ours: [number, number][] = [];
  const theirs: [number, number][] = [];
  const schema = freshSchema("lat");
  const stores = Array.from({ length: 4 }, () => postgresStore({ url, schema, max: 2 }));
  await stores[0]!.init();
  const schedulers = stores.map((store, w) => {
    const scheduler = createScheduler({
      store,
      node: `w${w}`,
      logger: { debug() {}, info() {}, warn() {}, error: (m) => console.error(m) },
    });
    for (const name of names) {
      scheduler.job(name, {
        schedule: "* * * * *",
        run: ({ slot }) => void ours.push([slot, Date.now() - slot]),
      });
    }
    return scheduler;
  });
  const bosses = Array.from(
    { length: 4 },
    () => new PgBoss({ connectionString: url, schema: `pgboss_${schema}`, max: 2 }),
  );
  for (const boss of bosses) boss.on("error", (e) => console.error(`pg-boss: ${String(e)}`));
  await bosses[0]!.start();
  for (const boss of bosses.slice(1)) await boss.start();
  for (const name of names) {
    await bosses[0]!.createQueue(name);
    await bosses[0]!.schedule(name, "* * * * *");
  }
  for (const boss of bosses) {
    for (const name of names) {
      await boss.work(name, async () => {
        const now = Date.now();
        theirs.push([now - (now % 60_000), now % 60_000]);
      });
    }
  }
  await Promise.all(schedulers.map((s) => s.ready()));
  for (const s of schedulers) s.start();
  // Count whole minutes only: from the next minute boundary on.
  const from = Math.ceil(Date.now() / 60_000) * 60_000;
  await new Promise((resolve) => setTimeout(resolve, from - Date.now()));
  // Then `minutes` minutes of slots, and time for late runs of the last one to start.
  await new Promise((resolve) => setTimeout(resolve, (minutes - 1) * 60_000 + 45_000));
  const counted = (runs: [number, number][]): number[] =>
    runs.filter(([m]) => m >= from && m < from + minutes * 60_000).map(([, late]) => late);
  const oursNow = counted(ours);
  const theirsNow = counted(theirs);
  await Promise.all(schedulers.map((s) => s.stop({ grace: "2s", deadline: "5s" })));
  await Promise.all(stores.map((s) => s.close()));
  await Promise.all(bosses.map((b) => b.stop({ graceful: false, wait: true })));
  const expected = JOBS * minutes;
  console.log(
    `\n100 minutely jobs on 4 workers, ${minutes} min on one Postgres server (start lateness after the minute)`,
  );
  console.log("scheduler          | runs        | p50         | p99");
  console.log(
    `edgecron postgres  | ${`${oursNow.length}/${expected}`.padEnd(11)} | ${ms(percentile(oursNow, 50))}| ${
      ms(percentile(oursNow, 99))
    }`,
  );
  console.log(
    `pg-boss schedule() | ${`${theirsNow.length}/${expected}`.padEnd(11)} | ${ms(percentile(theirsNow, 50))}| ${
      ms(percentile(theirsNow, 99))
    }`,
  );
}

/** Prints the Postgres rows beside libSQL. */
export async function benchPostgres(options: { minutes?: number } = {}): Promise<void> {
  if (skipReason !== false) {
    console.log(`\npostgres: skipped (${skipReason})`);
    return;
  }
  const { url } = await pgServer();
  const dir = mkdtempSync(join(tmpdir(), "edgecron-bench-pg-"));
  try {
    console.log("\nstore: claims per second, Postgres beside libSQL (each claim a different job, overlap check on)");
    console.log("store        | batch 1      | batch 100    | batch 1000");
    const pg = postgresStore({ url, schema: freshSchema("bench"), max: 4 });
    const lib = libsqlStore({ url: `file:${join(dir, "bench.db")}` });
    await claimRow("postgres", pg, 5_000);
    await claimRow("libsql file", lib, 5_000);
    console.log("\nstore: one outcome group commit (updateMany of every outcome of a tick)");
    console.log("store        | 1 000        | 10 000");
    for (const [name, store] of [["postgres", pg], ["libsql file", lib]] as const) {
      const cells = [ms(await groupCommitMs(store, 1_000, "g1k")), ms(await groupCommitMs(store, 10_000, "g10k"))];
      console.log(`${name.padEnd(12)} | ${cells.join(" | ")}`);
    }
    await pg.close();
    await lib.close();
    await latenessBesidePgBoss(url, options.minutes ?? 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const minutes = Number(process.argv.find((a) => a.startsWith("--minutes="))?.slice(10) ?? 2);
  await benchPostgres({ minutes });
  process.exit(0);
}
