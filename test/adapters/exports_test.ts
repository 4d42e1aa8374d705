import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
// @ts-ignore: plain JS module shared with `npm run exports`
import { denoImports, exportsDrift, packageExports } from "../../scripts/exports.mjs";
import * as root from "../../src/mod.ts";
import * as store from "../../src/store/mod.ts";
import * as testing from "../../src/testing.ts";
import * as webhook from "../../src/webhook/mod.ts";

const repo = new URL("../../", import.meta.url);
const readJson = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(name, repo), "utf8").replace(/^\s*\/\/.*$/gm, "")) as Record<string, unknown>;

/** The subpaths the README documents; other subpaths may be added (one line in deno.json). */
const DOCUMENTED = [".", "./store", "./testing", "./webhook", "./libsql", "./hono", "./deno", "./cloudflare", "./bun", "./node"];

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

  it("deno.json imports every runtime dependency as npm: at package.json's range, and nothing else", () => {
    assert.deepEqual(deno.imports, denoImports(pkg.dependencies));
    assert.equal((deno.imports as Record<string, string>).hono, `npm:hono@${(pkg.dependencies as Record<string, string>).hono}`);
  });

  it("scripts/exports.mjs finds no drift (versions of package.json, deno.json and the CLI agree)", () => {
    assert.deepEqual(exportsDrift(), []);
  });

  it("has every documented subpath", () => {
    for (const subpath of DOCUMENTED) assert.ok(subpath in denoExports, subpath);
  });

  it("every source exists, is compiled by tsconfig.build.json and published", () => {
    const build = readJson("tsconfig.build.json");
    const include = build.include as string[];
    const files = pkg.files as string[];
    const published = (path: string): boolean =>
      files.some((f) => path === f || path.startsWith(`${f.replace(/\/\*\*\/\*\.ts$/, "")}/`));
    for (const [subpath, source] of Object.entries(denoExports)) {
      assert.ok(existsSync(fileURLToPath(new URL(source, repo))), `${subpath} → ${source} does not exist`);
      assert.ok(include.includes(source.slice(2).split("/")[0] ?? ""), `${source} is outside tsconfig.build.json include`);
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
    for (const hook of ["prepare", "preinstall", "install", "postinstall"]) assert.equal(scripts[hook], undefined, hook);
    assert.equal(scripts.prepack, "node scripts/build.mjs lib");
  });
});

describe("the public API per subpath", () => {
  it("the root keeps schedules, the scheduler, the memory store and SchedulerError", () => {
    for (const name of ["schedule", "cron", "every", "at", "createScheduler", "createMemoryStore", "SchedulerError", "parseDuration"]) {
      assert.equal(typeof (root as Record<string, unknown>)[name], "function", name);
    }
  });

  it("the root no longer exports planner internals, the manual clock or signing helpers", () => {
    for (const name of ["planSlots", "timerDelay", "MAX_TIMER_MS", "createManualClock", "signPayload", "verifySignature"]) {
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
});
