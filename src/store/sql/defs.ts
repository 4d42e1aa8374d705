/** The data-defined-job methods of the SQL stores (libSQL, D1). */
import { bind, FINISHED_ROWS, jobDef, listDefsStatement } from "./statements.ts";
import { checkInstant, checkText, checkVersion, resolveDefsQuery, specText, versionConflict } from "../_validate.ts";
import type { SqlExecutor, SqlStatement } from "./executor.ts";
import type { JobDef, Store } from "../types.ts";

const SELECT = "SELECT name, spec, version, updated_at FROM edgecron_defs";
/** The settings key that keeps a deleted definition's last version (plain SQL in every dialect). */
const TOMBSTONE = "edgecron.def-version:";
/** A new row's version: one above the last version of a deleted definition of that name, else 1. */
const FIRST_VERSION = "1 + COALESCE((SELECT CAST(value AS INTEGER) FROM edgecron_settings WHERE key = :tomb), 0)";

/**
 * Deletes the finished runs and the state of `name` when it has (`""`) or has no (`"NOT"`)
 * definition. Open rows stay until they end: a slot a node holds (running, or claimed ahead)
 * must keep blocking a claim of it by a job created again under the name, or it ran twice.
 */
const forget = (name: string, has: "" | "NOT"): SqlStatement[] =>
  [`DELETE FROM edgecron_runs WHERE job = ? AND ${FINISHED_ROWS}`, "DELETE FROM edgecron_jobs WHERE name = ?"].map((
    sql,
  ) => ({
    sql: `${sql} AND ${has} EXISTS (SELECT 1 FROM edgecron_defs WHERE name = ?)`,
    args: [name, name],
  }));

/**
 * `listDefs`, `getDef`, `putDef` (compare-and-set on `version`) and `deleteDef`;
 * `ready` runs before each call (init on first use).
 */
export function sqlDefs(
  db: SqlExecutor,
  ready: () => Promise<void>,
): Pick<Store, "listDefs" | "getDef" | "putDef" | "deleteDef"> {
  const toDef = (row: Record<string, unknown>): JobDef => jobDef(row, db.label);
  return {
    async listDefs(query): Promise<JobDef[]> {
      const { after, limit } = resolveDefsQuery(query);
      await ready();
      const [result] = await db.read("listDefs", [listDefsStatement(after, limit)]);
      return (result?.rows ?? []).map(toDef);
    },

    async getDef(name): Promise<JobDef | undefined> {
      checkText(name, "getDef.name");
      await ready();
      const [result] = await db.read("getDef", [{ sql: `${SELECT} WHERE name = ?`, args: [name] }]);
      return result?.rows.map(toDef)[0];
    },

    async putDef(name, spec, now, options = {}): Promise<JobDef> {
      checkText(name, "putDef.name");
      checkInstant(now, "putDef.now");
      const text = specText(spec);
      const expected = options.ifVersion === undefined
        ? undefined
        : checkVersion(options.ifVersion, "putDef.ifVersion");
      // Compare-and-set inside one statement; the SELECT after it explains a refusal.
      const write = expected === undefined
        ? `INSERT INTO edgecron_defs (name, spec, version, updated_at) VALUES (:name, :spec, ${FIRST_VERSION}, :now)
            ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, version = edgecron_defs.version + 1, updated_at = excluded.updated_at
            RETURNING version`
        : expected === 0
        ? `INSERT INTO edgecron_defs (name, spec, version, updated_at) VALUES (:name, :spec, ${FIRST_VERSION}, :now)
            ON CONFLICT (name) DO NOTHING RETURNING version`
        : `UPDATE edgecron_defs SET spec = :spec, version = version + 1, updated_at = :now
            WHERE name = :name AND version = :expected RETURNING version`;
      await ready();
      const results = await db.write("putDef", [
        // A new definition owns nothing left under its name (a node's claim after a delete).
        ...(expected !== undefined && expected > 0 ? [] : forget(name, "NOT")),
        bind(write, { name, spec: text, now, expected: expected ?? 0, tomb: TOMBSTONE + name }),
        // A definition's life starts when it is stored, not when some node first ticks.
        bind(
          `INSERT INTO edgecron_jobs (name, first_seen, paused)
            SELECT name, :now, 0 FROM edgecron_defs WHERE name = :name
            ON CONFLICT (name) DO NOTHING`,
          { name, now },
        ),
        { sql: "SELECT version FROM edgecron_defs WHERE name = ?", args: [name] },
      ]);
      const [written, , current] = results.slice(-3);
      const version = written?.rows[0]?.version;
      if (version === undefined || version === null) {
        throw versionConflict(name, Number(current?.rows[0]?.version ?? 0), expected ?? 0);
      }
      return { name, spec: JSON.parse(text), version: Number(version), updatedAt: now };
    },

    async deleteDef(name): Promise<boolean> {
      checkText(name, "deleteDef.name");
      await ready();
      const [, , , result] = await db.write("deleteDef", [
        // The tombstone first, in the same batch: a re-created definition continues above this version.
        bind(
          `INSERT INTO edgecron_settings (key, value) SELECT :tomb, CAST(version AS TEXT) FROM edgecron_defs WHERE name = :name
            ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          { tomb: TOMBSTONE + name, name },
        ),
        // Its history and state go with it, in the same batch: a job defined again under the
        // name showed the deleted one's runs, counts and maxRuns as its own.
        ...forget(name, ""),
        { sql: "DELETE FROM edgecron_defs WHERE name = ? RETURNING name", args: [name] },
      ]);
      return (result?.rows.length ?? 0) > 0;
    },
  };
}
