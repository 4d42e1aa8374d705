/** The data-defined-job half of the memory store: versioned definitions in a Map. */
import { checkInstant, checkText, checkVersion, resolveDefsQuery, specText, versionConflict } from "../_validate.ts";
import type { JobDef, Store } from "../types.ts";

// Specs are kept and handed out as fresh JSON copies, as the libSQL store does,
// so a caller mutating a returned spec never changes the stored one.
const copyDef = (def: JobDef): JobDef => ({ ...def, spec: JSON.parse(JSON.stringify(def.spec)) });

/** The definition methods of the memory store, and the sorted names `snapshot()` reads. */
export interface MemoryDefs {
  methods: Pick<Store, "listDefs" | "getDef" | "putDef" | "deleteDef">;
  /** Every definition's name, sorted (no copies: `snapshot()` copies them in pages). */
  names(): readonly string[];
  /** The definition of `name` as a copy, or undefined. */
  get(name: string): JobDef | undefined;
}

/** Creates an empty definition map; `guard` throws while the store is set to fail. */
export function createMemoryDefs(guard: (operation: string) => void): MemoryDefs {
  const defs = new Map<string, JobDef>();
  // The last version of each deleted definition: versions rise across deletes.
  const tombstones = new Map<string, number>();
  // Names in code-unit order (like SQLite's default BINARY collation for ASCII names),
  // sorted once per change, so a page of listDefs() is a binary search and a slice.
  let order: string[] | undefined;
  const names = (): string[] => order ??= [...defs.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  return {
    names,
    get: (name) => {
      const def = defs.get(name);
      return def === undefined ? undefined : copyDef(def);
    },
    methods: {
      async listDefs(query): Promise<JobDef[]> {
        guard("listDefs");
        const { after, limit } = resolveDefsQuery(query);
        const all = names();
        let from = 0;
        if (after !== undefined) {
          let hi = all.length;
          while (from < hi) {
            const mid = (from + hi) >>> 1;
            if (all[mid]! > after) hi = mid;
            else from = mid + 1;
          }
        }
        const page = all.slice(from, limit === undefined ? undefined : from + limit);
        return page.map((name) => copyDef(defs.get(name)!));
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
        if (!defs.has(name)) order = undefined;
        defs.set(name, def);
        return copyDef(def);
      },

      async deleteDef(name): Promise<boolean> {
        guard("deleteDef");
        checkText(name, "deleteDef.name");
        const def = defs.get(name);
        if (def === undefined) return false;
        tombstones.set(name, def.version);
        order = undefined;
        return defs.delete(name);
      },
    },
  };
}
