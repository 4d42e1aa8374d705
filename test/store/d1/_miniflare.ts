// One Miniflare (real workerd, real local D1) for the D1 store tests, and a way to get
// an empty database for each test without starting workerd again. esbuild and Miniflare
// load on first use, so a runtime that only registers a skip never loads them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Miniflare } from "miniflare";
import type { D1DatabaseLike } from "../../../src/store/d1/mod.ts";

const TABLES = ["edgecron_runs", "edgecron_jobs", "edgecron_defs", "edgecron_schema_version", "edgecron_settings"];

/** A running Miniflare with one D1 database bound as `DB`. */
export interface LocalD1 {
  mf: Miniflare;
  db: D1DatabaseLike;
  /** Drops every edgecron table, so the next store starts from an empty database. */
  empty(): Promise<void>;
  dispose(): Promise<void>;
}

/** Starts workerd with a D1 binding `DB` (in memory unless `persist` names a directory). */
export async function localD1(persist?: string): Promise<LocalD1> {
  const { Miniflare } = await import("miniflare");
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response('ok'); } };",
    compatibilityDate: "2025-09-01",
    d1Databases: { DB: "edgecron-test" },
    ...(persist === undefined ? {} : { d1Persist: persist }),
  });
  const db = await mf.getD1Database("DB") as unknown as D1DatabaseLike;
  return {
    mf,
    db,
    async empty(): Promise<void> {
      await db.batch(TABLES.map((t) => db.prepare(`DROP TABLE IF EXISTS ${t}`)));
    },
    dispose: () => mf.dispose(),
  };
}

/** The contract suite running inside workerd (test/store/d1/_contract_worker.ts). */
export interface ContractWorker {
  cases: string[];
  run(name: string): Promise<{ ok: boolean; error?: string }>;
  dispose(): Promise<void>;
}

/** A worker bundled for workerd and running in Miniflare with a D1 binding `DB`. */
export interface D1Worker {
  mf: Miniflare;
  dispose(): Promise<void>;
}

/**
 * Bundles `entry` for workerd (the conditions wrangler uses) into a temporary folder and
 * starts it with an in-memory D1 database `database` bound as `DB`.
 */
export async function d1Worker(entry: URL, database: string): Promise<D1Worker> {
  const dir = mkdtempSync(join(tmpdir(), "edgecron-d1-worker-"));
  const script = join(dir, "worker.mjs");
  const { build } = await import("esbuild");
  const { Miniflare } = await import("miniflare");
  await build({
    entryPoints: [entry.pathname],
    outfile: script,
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser", "import"],
    mainFields: ["module", "main"],
    target: "es2022",
    logLevel: "warning",
  });
  const mf = new Miniflare({
    modules: true,
    scriptPath: script,
    modulesRoot: dir,
    compatibilityDate: "2025-09-01",
    d1Databases: { DB: database },
  });
  return {
    mf,
    async dispose(): Promise<void> {
      await mf.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Bundles the contract worker for workerd and starts it with a D1 binding `DB`. */
export async function contractWorker(): Promise<ContractWorker> {
  const { mf, dispose } = await d1Worker(new URL("./_contract_worker.ts", import.meta.url), "edgecron-contract");
  const get = async <T>(path: string): Promise<T> =>
    (await (await mf.dispatchFetch(`http://contract.test${path}`)).json()) as T;
  return {
    cases: await get<string[]>("/cases"),
    run: (name) => get(`/run?name=${encodeURIComponent(name)}`),
    dispose,
  };
}
