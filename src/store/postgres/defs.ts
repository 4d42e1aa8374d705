/** The data-defined-job methods of the Postgres store: `listDefs`, `getDef`, `putDef` (compare-and-set on `version`), `deleteDef`. */
import { checkInstant, checkText, checkVersion, resolveDefsQuery, specText, versionConflict } from "../_validate.ts";
import { jobDef } from "../sql/statements.ts";
import type { Store } from "../types.ts";
import type { PgConnection } from "./connection.ts";
import type { PgTables } from "./schema.ts";
import {
  defJobStatement,
  defsStatement,
  deleteDefStatements,
  forgetStatements,
  putDefStatement,
} from "./statements.ts";

type Defs = Pick<Store, "listDefs" | "getDef" | "putDef" | "deleteDef">;

/** The definition methods over `db`; `ready` runs before each call (init on first use). */
export function pgDefs(db: PgConnection, t: PgTables, ensureReady: () => Promise<void>): Defs {
  return {
    async listDefs(query) {
      const { after, limit } = resolveDefsQuery(query);
      await ensureReady();
      const page = { ...(after === undefined ? {} : { after }), ...(limit === undefined ? {} : { limit }) };
      return (await db.one("listDefs", defsStatement(t, undefined, page), "read")).map((row) =>
        jobDef(row, "postgres")
      );
    },

    async getDef(name) {
      checkText(name, "getDef.name");
      await ensureReady();
      return (await db.one("getDef", defsStatement(t, name), "read")).map((row) => jobDef(row, "postgres"))[0];
    },

    async putDef(name, spec, now, options = {}) {
      checkText(name, "putDef.name");
      checkInstant(now, "putDef.now");
      const text = specText(spec);
      const expected = options.ifVersion === undefined
        ? undefined
        : checkVersion(options.ifVersion, "putDef.ifVersion");
      await ensureReady();
      const results = await db.many("putDef", [
        // A new definition owns nothing left under its name (a node's claim after a delete).
        ...(expected !== undefined && expected > 0 ? [] : forgetStatements(t, name, "NOT")),
        putDefStatement(t, name, text, now, expected),
        defJobStatement(t, name, now),
        // Explains a refusal: the version the compare-and-set did not match.
        { text: `SELECT version FROM ${t.defs} WHERE name = $1`, args: [name] },
      ], "write");
      const [written = [], , current = []] = results.slice(-3);
      const version = written[0]?.version;
      if (version === undefined || version === null) {
        throw versionConflict(name, Number(current[0]?.version ?? 0), expected ?? 0);
      }
      return { name, spec: JSON.parse(text), version: Number(version), updatedAt: now };
    },

    async deleteDef(name) {
      checkText(name, "deleteDef.name");
      await ensureReady();
      const deleted = (await db.many("deleteDef", deleteDefStatements(t, name), "write")).at(-1) ?? [];
      return deleted.length > 0;
    },
  };
}
