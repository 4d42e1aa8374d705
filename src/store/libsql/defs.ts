/** The data-defined-job methods of the libSQL store. */
import type { Client } from "@libsql/client";
import { bind, jobDef } from "./sql.ts";
import { checkInstant, checkText, checkVersion, specText, versionConflict } from "../_validate.ts";
import type { JobDef, Store } from "../types.ts";

/** Runs `fn` on the ready client with busy retry and error mapping (the store's `op`). */
export type LibsqlRunner = <T>(operation: string, fn: (client: Client) => Promise<T>) => Promise<T>;

const SELECT = "SELECT name, spec, version, updated_at FROM edgecron_defs";

/** `listDefs`, `getDef`, `putDef` (compare-and-set on `version`) and `deleteDef` over `op`. */
export function libsqlDefs(op: LibsqlRunner): Pick<Store, "listDefs" | "getDef" | "putDef" | "deleteDef"> {
  return {
    async listDefs(): Promise<JobDef[]> {
      return op("listDefs", async (c) => (await c.execute(`${SELECT} ORDER BY name`)).rows.map(jobDef));
    },

    async getDef(name): Promise<JobDef | undefined> {
      checkText(name, "getDef.name");
      const [def] = await op("getDef", async (c) =>
        (await c.execute({ sql: `${SELECT} WHERE name = ?`, args: [name] })).rows.map(jobDef));
      return def;
    },

    async putDef(name, spec, now, options = {}): Promise<JobDef> {
      checkText(name, "putDef.name");
      checkInstant(now, "putDef.now");
      const text = specText(spec);
      const expected = options.ifVersion === undefined ? undefined : checkVersion(options.ifVersion, "putDef.ifVersion");
      // Compare-and-set inside one statement; the SELECT after it explains a refusal.
      const write = expected === undefined
        ? `INSERT INTO edgecron_defs (name, spec, version, updated_at) VALUES (:name, :spec, 1, :now)
            ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, version = version + 1, updated_at = excluded.updated_at
            RETURNING version`
        : expected === 0
        ? `INSERT INTO edgecron_defs (name, spec, version, updated_at) VALUES (:name, :spec, 1, :now)
            ON CONFLICT (name) DO NOTHING RETURNING version`
        : `UPDATE edgecron_defs SET spec = :spec, version = version + 1, updated_at = :now
            WHERE name = :name AND version = :expected RETURNING version`;
      const [written, , current] = await op("putDef", (c) =>
        c.batch([
          bind(write, { name, spec: text, now, expected: expected ?? 0 }),
          // A definition's life starts when it is stored, not when some node first ticks.
          bind(
            `INSERT INTO edgecron_jobs (name, first_seen, paused)
              SELECT name, :now, 0 FROM edgecron_defs WHERE name = :name
              ON CONFLICT (name) DO NOTHING`,
            { name, now },
          ),
          { sql: "SELECT version FROM edgecron_defs WHERE name = ?", args: [name] },
        ], "write"));
      const version = written?.rows[0]?.version;
      if (version === undefined || version === null) {
        throw versionConflict(name, Number(current?.rows[0]?.version ?? 0), expected ?? 0);
      }
      return { name, spec: JSON.parse(text), version: Number(version), updatedAt: now };
    },

    async deleteDef(name): Promise<boolean> {
      checkText(name, "deleteDef.name");
      const [result] = await op("deleteDef", (c) =>
        c.batch([{ sql: "DELETE FROM edgecron_defs WHERE name = ? RETURNING name", args: [name] }], "write"));
      return (result?.rows.length ?? 0) > 0;
    },
  };
}
