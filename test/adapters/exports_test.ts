import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
// @ts-ignore: plain JS module shared with `npm run exports`
import { denoImports, exportsDrift, packageExports } from "../../scripts/exports.mjs";
// @ts-ignore: plain JS module shared with `node scripts/docs.mjs`
import { docSpecifiers, specifierOf, subpathOf } from "../../scripts/docs.mjs";
import * as root from "../../src/mod.ts";
import * as store from "../../src/store/mod.ts";
import * as testing from "../../src/testing.ts";
import * as webhook from "../../src/webhook/mod.ts";
import * as d1 from "../../src/store/d1/mod.ts";
import * as denoKv from "../../src/store/deno-kv/mod.ts";

const repo = new URL("../../", import.meta.url);
const readJson = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(name, repo), "utf8").replace(/^\s*\/\/.*$/gm, "")) as Record<string, unknown>;

interface Mention {
  specifier: string;
  file: string;
  line: number;
}
/** Every `edgecron` / `edgecron/…` specifier README.md and docs/** name (read, not typed here). */
const mentions = docSpecifiers() as Mention[];

describe("export subpaths (deno.json `exports` is the one list)", () => {
  const pkg = readJson("package.json");
  const deno = readJson("deno.json");
  const denoExports = deno.exports as Record<string, string>;
  const pkgExports = pkg.exports as Record<string, Record<string, string>>;

  it("package.json and deno.json export the same subpaths", () => {
    assert.deepEqual(Object.keys(pkgExports), Object.keys(denoExports));
  });

  it("each package.json export is the dist build of deno.json's source: types first, then the ESM default", () => {
    assert.deepEqual(pkgExports, packageExports(denoExports));
    for (const [subpath, conditions] of Object.entries(pkgExports)) {
      assert.deepEqual(Object.keys(conditions), ["types", "default"], subpath);
    }
  });

  it("deno.json imports every runtime dependency and optional peer (a store's driver) as npm: at package.json's range, and nothing else", () => {
    const peers = pkg.peerDependencies as Record<string, string> | undefined;
    assert.deepEqual(deno.imports, denoImports({ ...(pkg.dependencies as Record<string, string>), ...peers }));
    assert.equal((deno.imports as Record<string, string>).postgres, `npm:postgres@${peers?.postgres}`);
    assert.equal(
      (deno.imports as Record<string, string>).hono,
      `npm:hono@${(pkg.dependencies as Record<string, string>).hono}`,
    );
  });

  it("scripts/exports.mjs finds no drift (versions of package.json, deno.json and the CLI agree)", () => {
    assert.deepEqual(exportsDrift(), []);
  });

  it("exports every specifier README.md and docs/** name", () => {
    assert.ok(mentions.length > 20, `too few mentions found: ${mentions.length}`);
    const unknown = mentions.filter((m) => !(subpathOf(m.specifier) in denoExports));
    assert.deepEqual(unknown.map((m) => `${m.file}:${m.line}: ${m.specifier} is not exported`), []);
  });

  it("every export is documented: README.md or docs/** names each subpath", () => {
    const named = new Set(mentions.map((m) => subpathOf(m.specifier)));
    assert.deepEqual(
      Object.keys(denoExports).filter((s) => !named.has(s)).map((s) => `${specifierOf(s)} is in no doc`),
      [],
    );
  });

  it("the README's install table lists every subpath", () => {
    const readme = readFileSync(new URL("README.md", repo), "utf8");
    const rows = new Set([...readme.matchAll(/^\| `(edgecron(?:\/[\w-]+)*)` *\|/gm)].map((m) => subpathOf(m[1] ?? "")));
    assert.deepEqual(Object.keys(denoExports).filter((s) => !rows.has(s)), []);
  });

  it("every source exists, is compiled by tsconfig.build.json and published", () => {
    const build = readJson("tsconfig.build.json");
    const include = build.include as string[];
    const files = pkg.files as string[];
    const published = (path: string): boolean =>
      files.some((f) => path === f || path.startsWith(`${f.replace(/\/\*\*\/\*\.ts$/, "")}/`));
    for (const [subpath, source] of Object.entries(denoExports)) {
      assert.ok(existsSync(fileURLToPath(new URL(source, repo))), `${subpath} → ${source} does not exist`);
      assert.ok(
        include.includes(source.slice(2).split("/")[0] ?? ""),
        `${source} is outside tsconfig.build.json include`,
      );
      assert.ok(published(source.slice(2)), `${source} is not in package.json files`);
      for (const target of Object.values(pkgExports[subpath] ?? {})) {
        assert.ok(published(target.slice(2)), `${target} is not in package.json files`);
      }
    }
  });

  it("the bin runs the compiled CLI, and no install-time script exists", () => {
    assert.deepEqual(pkg.bin, { edgecron: "bin/edgecron.mjs" });
    assert.match(readFileSync(new URL("bin/edgecron.mjs", repo), "utf8"), /\.\.\/dist\/cli\/main\.js/);
    const scripts = pkg.scripts as Record<string, string>;
    for (const hook of ["prepare", "preinstall", "install", "postinstall"]) {
      assert.equal(scripts[hook], undefined, hook);
    }
    assert.equal(scripts.prepack, "node scripts/build.mjs lib");
  });
});

describe("the public API per subpath", () => {
  it("the root keeps schedules, the scheduler, the memory store and SchedulerError", () => {
    for (
      const name of [
        "schedule",
        "cron",
        "every",
        "at",
        "createScheduler",
        "memoryStore",
        "createMemoryStore",
        "SchedulerError",
        "parseDuration",
      ]
    ) {
      assert.equal(typeof (root as Record<string, unknown>)[name], "function", name);
    }
  });

  it("the root no longer exports planner internals, the manual clock or signing helpers", () => {
    for (
      const name of ["planSlots", "timerDelay", "MAX_TIMER_MS", "createManualClock", "signPayload", "verifySignature"]
    ) {
      assert.equal(name in root, false, name);
    }
  });

  it("edgecron/testing, /webhook and /store carry what moved out of the root", () => {
    assert.equal(typeof testing.createManualClock, "function");
    assert.equal(typeof webhook.signPayload, "function");
    assert.equal(typeof webhook.verifySignature, "function");
    assert.equal(webhook.SIGNATURE_HEADER, "Edgecron-Signature");
    assert.equal(typeof store.createMemoryStore, "function");
  });

  it("store factories follow one pattern; the former names are the same functions", () => {
    assert.equal(root.createMemoryStore, root.memoryStore);
    assert.equal(store.memoryStore, root.memoryStore);
    assert.equal(denoKv.kvStore, denoKv.denoKvStore);
    assert.equal(typeof d1.d1Store, "function");
  });
});

/** Every .ts file under a folder of the repository. */
