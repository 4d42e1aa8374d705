/**
 * The SQL schema (libSQL and D1) as numbered migrations, and the `init()` procedure
 * that applies them safely when several processes or isolates start at once.
 */
import { SchedulerError } from "../../core/errors.ts";
import { plain, type SqlExecutor, type SqlStatement } from "./executor.ts";

/** One schema step. Steps are applied in order, each exactly once per database. */
interface Migration {
  version: number;
  statements: readonly string[];
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE IF NOT EXISTS edgecron_jobs (
        name TEXT PRIMARY KEY,
        first_seen INTEGER NOT NULL,
        paused INTEGER NOT NULL DEFAULT 0
      )`,
      `CREATE TABLE IF NOT EXISTS edgecron_runs (
        job TEXT NOT NULL,
        slot INTEGER NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        node TEXT NOT NULL,
        batch TEXT NOT NULL,
        claimed_at INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        lease_until INTEGER,
        error TEXT,
        PRIMARY KEY (job, slot)
      )`,
      // Serves the watermark (MAX(slot) per job and kind) with one index seek per job.
      `CREATE INDEX IF NOT EXISTS edgecron_runs_watermark ON edgecron_runs (job, kind, slot)`,
      // Running rows are few: the overlap check, reap and snapshot read only this index.
      `CREATE INDEX IF NOT EXISTS edgecron_runs_running ON edgecron_runs (job, lease_until) WHERE status = 'running'`,
      `CREATE TABLE IF NOT EXISTS edgecron_defs (
        name TEXT PRIMARY KEY,
        spec TEXT NOT NULL,
        version INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      )`,
    ],
  },
  {
    version: 2,
    // Small values every node shares (the dashboard's session revocation epoch).
    statements: [`CREATE TABLE IF NOT EXISTS edgecron_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)`],
  },
  {
    version: 3,
    // Why, when and by whom a job was paused (cleared on resume).
    statements: [
      `ALTER TABLE edgecron_jobs ADD COLUMN pause_note TEXT`,
      `ALTER TABLE edgecron_jobs ADD COLUMN paused_at INTEGER`,
      `ALTER TABLE edgecron_jobs ADD COLUMN paused_by TEXT`,
    ],
  },
  {
    version: 4,
    // maxRuns: counted runs whose rows were pruned, so the limit survives retention.
    statements: [`ALTER TABLE edgecron_jobs ADD COLUMN pruned_runs INTEGER NOT NULL DEFAULT 0`],
  },
  {
    version: 5,
    // Open rows (running, cancelling, buffered) are few beside the history: the snapshot's
    // open-row read, read()'s and reap() walk this index instead of the whole runs table
    // (a scan of every row of history per tick and node before). The WHERE must stay the
    // statements' `status IN (...)` term word for word, or SQLite will not use it.
    statements: [
      `CREATE INDEX IF NOT EXISTS edgecron_runs_open ON edgecron_runs (job, slot)
        WHERE status IN ('running', 'cancelling', 'buffered')`,
    ],
  },
  {
    version: 6,
    // tally() (each page of a metrics scrape) groups a job's finished rows by status on
    // this index alone, in its order: no sort of the page's rows and no read of the table
    // per row (the newest slot's started and finished times are in the entry). Finished
    // rows only: a claim writes no entry (its outcome does, once), and the open-row
    // statements keep edgecron_runs_open (an index on every status would draw them to it).
    // The WHERE must stay the statements' FINISHED_ROWS word for word.
    statements: [
      `CREATE INDEX IF NOT EXISTS edgecron_runs_tally ON edgecron_runs (job, status, slot, started_at, finished_at)
        WHERE status NOT IN ('running', 'cancelling', 'buffered')`,
    ],
  },
];

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

const CREATE_VERSION_TABLE = `CREATE TABLE IF NOT EXISTS edgecron_schema_version (
  version INTEGER PRIMARY KEY,
  applied_at INTEGER NOT NULL
)`;

/** Reads the applied schema version (0 for an empty database). */
export async function readSchemaVersion(db: SqlExecutor): Promise<number> {
  const [, result] = await db.write("init", [
    plain(CREATE_VERSION_TABLE),
    plain("SELECT COALESCE(MAX(version), 0) AS version FROM edgecron_schema_version"),
  ]);
  return Number(result?.rows[0]?.version ?? 0);
}

/**
 * Brings the schema to `SCHEMA_VERSION`. Pending steps go in ONE write batch that
 * first inserts each step's row into `edgecron_schema_version`: when two processes
 * race, the loser's insert hits the primary key, its whole batch rolls back, and it
 * re-reads the version the winner wrote. So no step ever runs twice.
 *
 * @throws {SchedulerError} `store-error` when the database is at a newer version.
 */
export async function migrate(db: SqlExecutor): Promise<void> {
  for (let round = 0; round < 3; round += 1) {
    const current = await readSchemaVersion(db);
    if (current > SCHEMA_VERSION) {
      throw new SchedulerError(
        "store-error",
        `${db.label}: the database schema is at version ${current}, newer than this edgecron (version ${SCHEMA_VERSION}); upgrade edgecron`,
      );
    }
    if (current === SCHEMA_VERSION) return;
    const batch: SqlStatement[] = [plain(CREATE_VERSION_TABLE)];
    for (const step of MIGRATIONS.filter((m) => m.version > current)) {
      batch.push({
        sql:
          "INSERT INTO edgecron_schema_version (version, applied_at) VALUES (?, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))",
        args: [step.version],
      });
      batch.push(...step.statements.map(plain));
    }
    try {
      await db.write("init", batch);
      return;
    } catch (error) {
      // Another process applied a step first (its version row exists): re-read and go on.
      if (await readSchemaVersion(db) > current) continue;
      throw error;
    }
  }
}
