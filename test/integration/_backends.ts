/**
 * The shared stores the multi-process tests run on: a libSQL file in a temp dir, or a
 * fresh schema on the test process's Postgres server. Worker fixtures open the target
 * with fixtures/_open_store.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "../../src/store/types.ts";
import { freshSchema, pgServer, skipReason } from "../store/postgres/_server.ts";
import { openStore, postgresTarget } from "./fixtures/_open_store.ts";

/** One shared database for a test. */
export interface SharedDb {
  /** What the worker fixtures take as their `<db>` argument. */
  target: string;
  /** A store on it, for the test's own reads. */
  open(): Store;
  cleanup(): void;
}

/** A kind of shared store. */
export interface Backend {
  /** Names it in test titles ("libSQL", "Postgres"). */
  label: string;
  /** Why it cannot run here, or false. */
  skip: string | false;
  fresh(name: string): Promise<SharedDb>;
}

export const libsqlBackend: Backend = {
  label: "libSQL",
  skip: false,
  async fresh(name) {
    const dir = mkdtempSync(join(tmpdir(), `edgecron-${name}-`));
    const target = join(dir, `${name}.db`);
    return { target, open: () => openStore(target), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  },
};

export const postgresBackend: Backend = {
  label: "Postgres",
  skip: skipReason,
  async fresh(name) {
    const { url } = await pgServer();
    const target = postgresTarget(url, freshSchema(name));
    return { target, open: () => openStore(target), cleanup: () => {} };
  },
};
