/** The data-defined-job half of the memory store: versioned definitions in a Map. */
import { checkInstant, checkText, checkVersion, specText, versionConflict } from "../_validate.ts";
import type { JobDef, Store } from "../types.ts";

// Specs are kept and handed out as fresh JSON copies, as the libSQL store does,
// so a caller mutating a returned spec never changes the stored one.
const copyDef = (def: JobDef): JobDef => ({ ...def, spec: JSON.parse(JSON.stringify(def.spec)) });

/** The definition methods of the memory store, and a sorted read for `snapshot()`. */
export interface MemoryDefs {
  methods: Pick<Store, "listDefs" | "getDef" | "putDef" | "deleteDef">;
  /** Every definition, sorted by name, as copies. */
  sorted(): JobDef[];
}

/** Creates an empty definition map; `guard` throws while the store is set to fail. */
export function createMemoryDefs(guard: (operation: string) => void): MemoryDefs {
  const defs = new Map<string, JobDef>();
  // The last version of each deleted definition: versions rise across deletes.
  const tombstones = new Map<string, number>();
  // Code-unit order, like SQLite's default BINARY collation for ASCII names.
  const sorted = (): JobDef[] =>
    [...defs.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(copyDef);

  return {
    sorted,
    methods: {
      async listDefs(): Promise<JobDef[]> {
        guard("listDefs");
        return sorted();
      },

      async getDef(name): Promise<JobDef | undefined> {
        guard("getDef");
        checkText(name, "getDef.name");
        const def = defs.get(name);
        return def === undefined ? undefined : copyDef(def);
      },

      async putDef(name, spec, now, options = {}): Promise<JobDef> {
        guard("putDef");
        checkText(name, "putDef.name");
        checkInstant(now, "putDef.now");
        const text = specText(spec);
        const expected = options.ifVersion === undefined
          ? undefined
          : checkVersion(options.ifVersion, "putDef.ifVersion");
        const current = defs.get(name)?.version ?? 0;
        if (expected !== undefined && expected !== current) throw versionConflict(name, current, expected);
        const base = defs.has(name) ? current : tombstones.get(name) ?? 0;
        const def: JobDef = { name, spec: JSON.parse(text), version: base + 1, updatedAt: now };
        defs.set(name, def);
        return copyDef(def);
      },

      async deleteDef(name): Promise<boolean> {
        guard("deleteDef");
        checkText(name, "deleteDef.name");
        const def = defs.get(name);
        if (def === undefined) return false;
        tombstones.set(name, def.version);
        return defs.delete(name);
      },
    },
  };
}
