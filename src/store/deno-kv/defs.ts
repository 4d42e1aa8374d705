/**
 * Data-defined jobs, job flags and shared settings on Deno KV. Definitions keep their
 * spec as JSON text (as the SQL stores do) with a version for compare-and-set.
 */
import { CONFLICT, type KvContext } from "./_context.ts";
import { getAll, type KvLike, type KvListed, listAll, type Row } from "./_kv.ts";
import { isOpenStatus } from "../_overlap.ts";
import {
  checkBoolean,
  checkInstant,
  checkSettingValue,
  checkText,
  checkVersion,
  MAX_SPEC_BYTES,
  pauseRecord,
  resolveDefsQuery,
  specText,
  versionConflict,
} from "../_validate.ts";
import { quote, SchedulerError } from "../../core/errors.ts";
import type { JobDef, Store } from "../types.ts";

interface StoredDef {
  /**
   * The spec's JSON as UTF-8 bytes (a string before 4 December, still read). As a string,
   * one character past U+00FF made KV keep all of it at two bytes a character: a spec of
   * 33 000 bytes passed the 60 000-byte check and was refused as "Value too large".
   */
  spec: string | Uint8Array;
  version: number;
  updatedAt: number;
}

/** A stored definition; one whose spec text is not a JSON object comes back `broken` (that job alone is disabled). */
function toDef(name: string, stored: StoredDef): JobDef {
  const def: JobDef = { name, spec: {}, version: stored.version, updatedAt: stored.updatedAt };
  try {
    const spec: unknown = JSON.parse(
      typeof stored.spec === "string" ? stored.spec : new TextDecoder().decode(stored.spec),
    );
    if (typeof spec === "object" && spec !== null && !Array.isArray(spec)) def.spec = spec as Record<string, unknown>;
    else def.broken = `deno-kv: definition ${JSON.stringify(name)}: field spec is not a JSON object`;
  } catch (e) {
    def.broken = `deno-kv: definition ${JSON.stringify(name)}: field spec is not valid JSON (${
      e instanceof Error ? e.message : String(e)
    })`;
  }
  return def;
}

/**
 * Every definition sorted by name (KV key order is code-unit order for ASCII names), or a
 * page: the names strictly after `after`, at most `limit`.
 */
export async function readDefs(
  kv: KvLike,
  ctx: KvContext,
  page: { after?: string | undefined; limit?: number | undefined } = {},
): Promise<JobDef[]> {
  const prefix = ctx.keys.def();
  const { after, limit } = page;
  // `start` is inclusive: one entry more, and the name `after` itself dropped.
  const selector = after === undefined ? { prefix } : { prefix, start: ctx.keys.def(after) };
  const entries: KvListed[] = [];
  const want = limit === undefined ? Infinity : limit + (after === undefined ? 0 : 1);
  const options = want === Infinity ? { batchSize: 1000 } : { batchSize: Math.min(1000, want), limit: want };
  for await (const entry of kv.list(selector, options)) entries.push(entry);
  return entries.map((e) => toDef(String(e.key[e.key.length - 1]), e.value as StoredDef))
    .filter((def) => after === undefined || def.name > after)
    .slice(0, limit);
}

/** The definitions of `names` (those that exist), sorted by name. */
export async function readNamedDefs(kv: KvLike, ctx: KvContext, names: readonly string[]): Promise<JobDef[]> {
  const entries = await getAll(kv, names.map((name) => ctx.keys.def(name)));
  const defs: JobDef[] = [];
  entries.forEach((e, i) => {
    if (e.versionstamp !== null) defs.push(toDef(names[i]!, e.value as StoredDef));
  });
  return defs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Keys deleted per commit by {@link sweep}: KV allows 81 920 bytes of keys in one. */
const SWEEP_KEYS = 200;

/**
 * Deletes job `name`'s history: its finished rows, counters and watermark. Open rows (with
 * their copies, the version key that counts them and the buffer's mark) stay until they end:
 * a slot a node holds keeps blocking a claim of it by a job created again under the name.
 */
async function sweep(kv: KvLike, ctx: KvContext, name: string): Promise<void> {
  const { keys } = ctx;
  const [runs, counts] = await Promise.all(
    [keys.runs(name), keys.count(name)].map((prefix) => listAll(kv, { prefix })),
  );
  const finished = runs!.filter((e) => !isOpenStatus((e.value as Row).status));
  const doomed = [...finished, ...counts!].map((e) => e.key);
  doomed.push(keys.mark(name), keys.pruned(name));
  for (let i = 0; i < doomed.length; i += SWEEP_KEYS) {
    const atomic = kv.atomic();
    for (const key of doomed.slice(i, i + SWEEP_KEYS)) atomic.delete(key);
    await atomic.commit();
  }
}

/** The definition, pause and setting methods of the KV store. */
export function kvDefs(
  ctx: KvContext,
): Pick<Store, "listDefs" | "getDef" | "putDef" | "deleteDef" | "setPaused" | "getSetting" | "putSetting"> {
  const { keys } = ctx;
  return {
    async listDefs(query): Promise<JobDef[]> {
      const page = resolveDefsQuery(query);
      return await ctx.op("listDefs", (kv) => readDefs(kv, ctx, page));
    },

    async getDef(name): Promise<JobDef | undefined> {
      checkText(name, "getDef.name");
      const entry = await ctx.op("getDef", (kv) => kv.get(keys.def(name)));
      return entry.versionstamp === null ? undefined : toDef(name, entry.value as StoredDef);
    },

    async putDef(name, spec, now, options = {}): Promise<JobDef> {
      checkText(name, "putDef.name");
      checkInstant(now, "putDef.now");
      const text = specText(spec);
      const bytes = new TextEncoder().encode(text);
      if (bytes.length > MAX_SPEC_BYTES) {
        throw new SchedulerError(
          "invalid-spec",
          `putDef.spec: ${quote(name)} is over ${MAX_SPEC_BYTES} bytes of JSON, more than one KV value holds`,
          {
            path: "spec",
          },
        );
      }
      const expected = options.ifVersion === undefined
        ? undefined
        : checkVersion(options.ifVersion, "putDef.ifVersion");
      const version = await ctx.op("putDef", (kv) =>
        ctx.retry("putDef", async () => {
          const [def, state, tomb] = await kv.getMany([keys.def(name), keys.job(name), keys.tombstone(name)]);
          const current = def!.versionstamp === null ? 0 : (def!.value as StoredDef).version;
          if (expected !== undefined && expected !== current) throw versionConflict(name, current, expected);
          // Versions rise across deletes: a re-created definition continues above the deleted one's.
          const base = def!.versionstamp === null && tomb!.versionstamp !== null ? Number(tomb!.value) : current;
          // A new definition owns nothing left under its name: a node's claim after a delete,
          // or a delete's sweep that a crash cut short.
          if (def!.versionstamp === null) await sweep(kv, ctx, name);
          const atomic = kv.atomic().check(def!, state!, tomb!);
          atomic.set(keys.def(name), { spec: bytes, version: base + 1, updatedAt: now } satisfies StoredDef);
          // A definition's life starts when it is stored, not when some node first ticks.
          if (def!.versionstamp === null || state!.versionstamp === null) {
            atomic.set(keys.job(name), { firstSeen: now, paused: false });
          }
          return (await atomic.commit()).ok ? base + 1 : CONFLICT;
        }));
      return { name, spec: JSON.parse(text), version, updatedAt: now };
    },

    async deleteDef(name): Promise<boolean> {
      checkText(name, "deleteDef.name");
      return ctx.op("deleteDef", async (kv) => {
        const deleted = await ctx.retry("deleteDef", async () => {
          const def = await kv.get(keys.def(name));
          if (def.versionstamp === null) return false;
          const last = (def.value as StoredDef).version;
          const atomic = kv.atomic().check(def).delete(keys.def(name)).set(keys.tombstone(name), last);
          // Its state and history go with it: a job defined again under the name showed the
          // deleted one's runs, counts and maxRuns as its own. The history may be more than
          // one commit holds, so it follows; a crash before it ends leaves it to putDef().
          return (await atomic.delete(keys.job(name)).commit()).ok ? true : CONFLICT;
        });
        if (deleted) await sweep(kv, ctx, name);
        return deleted;
      });
    },

    async setPaused(name, paused, now, info): Promise<void> {
      checkText(name, "setPaused.name");
      checkBoolean(paused, "setPaused.paused");
      checkInstant(now, "setPaused.now");
      const pause = pauseRecord(paused, now, info);
      await ctx.op("setPaused", (kv) =>
        ctx.retry("setPaused", async () => {
          const state = await kv.get(keys.job(name));
          const firstSeen = state.versionstamp === null ? now : (state.value as { firstSeen: number }).firstSeen;
          const atomic = kv.atomic().check(state).set(
            keys.job(name),
            pause === undefined ? { firstSeen, paused } : { firstSeen, paused, pause },
          );
          return (await atomic.commit()).ok ? undefined : CONFLICT;
        }));
    },

    async getSetting(key): Promise<string | undefined> {
      checkText(key, "getSetting.key");
      const entry = await ctx.op("getSetting", (kv) => kv.get(keys.setting(key)));
      return entry.versionstamp === null ? undefined : String(entry.value);
    },

    async putSetting(key, value): Promise<void> {
      checkText(key, "putSetting.key");
      checkSettingValue(value);
      await ctx.op("putSetting", (kv) => kv.atomic().set(keys.setting(key), value).commit());
    },
  };
}
