/**
 * The Postgres schema as numbered migrations, applied under a transaction-scoped
 * advisory lock: ten nodes starting at once queue on the lock, the first applies the
 * pending steps, and the others find the schema current. Postgres DDL is transactional,
 * so a failed step leaves nothing half-made.
 */
import { SchedulerError } from "../../core/errors.ts";
import type { PgConnection } from "./connection.ts";
import { isDenied, type PgTx } from "./driver.ts";

/** The tables of one schema, quoted once. */
export interface PgTables {
  schema: string;
  jobs: string;
  runs: string;
  defs: string;
  settings: string;
  versions: string;
}

/** The qualified table names in `schema` (validated by the options). */
export function pgTables(schema: string): PgTables {
  const q = (table: string): string => `"${schema}".${table}`;
  return {
    schema,
    jobs: q("jobs"),
    runs: q("runs"),
    defs: q("defs"),
    settings: q("settings"),
    versions: q("schema_version"),
  };
}

interface Migration {
  version: number;
  statements: (t: PgTables) => string[];
}

// Instants are epoch milliseconds (bigint); specs are JSON text (jsonb until version 4).
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: (t) => [
      `CREATE TABLE ${t.jobs} (
        name text PRIMARY KEY,
        first_seen bigint NOT NULL,
        paused boolean NOT NULL DEFAULT false
      )`,
      `CREATE TABLE ${t.runs} (
        job text NOT NULL,
        slot bigint NOT NULL,
        kind text NOT NULL,
        status text NOT NULL,
        attempt integer NOT NULL,
        node text NOT NULL,
        batch text NOT NULL,
        claimed_at bigint NOT NULL,
        started_at bigint NOT NULL,
        finished_at bigint,
        lease_until bigint,
        error text,
        PRIMARY KEY (job, slot)
      )`,
      // The watermark (MAX(slot) per job and kind) is one backward index scan per job.
      `CREATE INDEX runs_watermark ON ${t.runs} (job, kind, slot)`,
      // Running rows are few: the overlap check, reap and snapshot read only this index.
      `CREATE INDEX runs_running ON ${t.runs} (job, lease_until) WHERE status = 'running'`,
      `CREATE TABLE ${t.defs} (
        name text PRIMARY KEY,
        spec jsonb NOT NULL,
        version integer NOT NULL,
        updated_at bigint NOT NULL
      )`,
      `CREATE TABLE ${t.settings} (key text PRIMARY KEY, value text NOT NULL)`,
    ],
  },
  {
    version: 2,
    statements: (t) => [
      // Why, when and by whom a job was paused (cleared on resume).
      `ALTER TABLE ${t.jobs} ADD COLUMN pause_note text, ADD COLUMN paused_at bigint, ADD COLUMN paused_by text`,
      // Open rows (running, cancelling, buffered) are few: the overlap checks, promote, reap
      // and the snapshot read only this index, as version 1's read only running rows.
      `CREATE INDEX runs_open ON ${t.runs} (job, lease_until) WHERE status IN ('running', 'cancelling', 'buffered')`,
      `DROP INDEX IF EXISTS "${t.schema}".runs_running`,
    ],
  },
  {
    version: 3,
    // maxRuns: counted runs whose rows were pruned, so the limit survives retention.
    statements: (t) => [`ALTER TABLE ${t.jobs} ADD COLUMN pruned_runs bigint NOT NULL DEFAULT 0`],
  },
  {
    version: 4,
    // jsonb refused a NUL (`\u0000`) or a lone surrogate's escape in a spec's strings, which
    // every other store keeps: JSON text holds them as plain ASCII escapes. A node of
    // version 3 still writes here (jsonb to text is an assignment cast) and reads `spec::text`.
    statements: (t) => [`ALTER TABLE ${t.defs} ALTER COLUMN spec TYPE text USING spec::text`],
  },
];

/** The schema version this code writes and reads. */
export const PG_SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

const rows = async (tx: PgTx, text: string, args: unknown[] = []): Promise<readonly Record<string, unknown>[]> =>
  await tx.unsafe(text, args);

/**
 * Brings the schema to `PG_SCHEMA_VERSION` in one transaction under the schema's
 * migration lock. Each applied step records the backend that applied it.
 *
 * @throws {SchedulerError} `store-error` when the database is at a newer version, or
 * behind and this role may not migrate it (saying the schema's owner must run `init()`).
 */
export async function migrate(db: PgConnection, t: PgTables): Promise<void> {
  // The version found when the schema is behind: a role that may read it but not alter it
  // (the least-privilege role nodes run as) is told the owner must migrate.
  let behind = 0;
  try {
    await steps(db, t, (current) => (behind = current));
  } catch (error) {
    if (behind === 0 || !(error instanceof SchedulerError) || !isDenied(error.cause)) throw error;
    throw new SchedulerError(
      "store-error",
      `postgres: init failed: schema "${t.schema}" is at version ${behind}, this edgecron needs version ${PG_SCHEMA_VERSION}, and this role may not migrate it (42501: ${
        (error.cause as Error).message
      }); run init() once as a role that owns the schema (a deploy step before the nodes start)`,
      { cause: error.cause },
    );
  }
}

/** The migration itself; `behind` hears the version found when steps are to be applied. */
async function steps(db: PgConnection, t: PgTables, behind: (version: number) => void): Promise<void> {
  await db.transaction("init", async (tx) => {
    // One bigint key per schema; the claim locks use the two-int form, a separate key space.
    await rows(tx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`edgecron.migrate.${t.schema}`]);
    const [found] = await rows(tx, "SELECT to_regclass($1) IS NOT NULL AS found", [t.versions]);
    let current = 0;
    if (found?.found === true) {
      const [row] = await rows(tx, `SELECT COALESCE(MAX(version), 0) AS version FROM ${t.versions}`);
      current = Number(row?.version ?? 0);
    }
    if (current > PG_SCHEMA_VERSION) {
      throw new SchedulerError(
        "store-error",
        `postgres: schema "${t.schema}" is at version ${current}, newer than this edgecron (version ${PG_SCHEMA_VERSION}); upgrade edgecron`,
      );
    }
    if (current === PG_SCHEMA_VERSION) return;
    behind(current);
    if (current === 0) {
      const [schema] = await rows(tx, "SELECT 1 AS found FROM pg_namespace WHERE nspname = $1", [t.schema]);
      if (schema === undefined) await rows(tx, `CREATE SCHEMA "${t.schema}"`);
      await rows(
        tx,
        `CREATE TABLE ${t.versions} (version integer PRIMARY KEY, applied_at bigint NOT NULL, applied_by integer NOT NULL)`,
      );
    }
    for (const step of MIGRATIONS.filter((m) => m.version > current)) {
      for (const statement of step.statements(t)) await rows(tx, statement);
      await rows(
        tx,
        `INSERT INTO ${t.versions} (version, applied_at, applied_by)
          VALUES ($1, (extract(epoch from clock_timestamp()) * 1000)::bigint, pg_backend_pid())`,
        [step.version],
      );
    }
  });
}
