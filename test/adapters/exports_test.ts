import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = new URL("../../", import.meta.url);
const readJson = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(name, root), "utf8")) as Record<string, unknown>;

const SUBPATHS = [".", "./libsql", "./deno-kv", "./hono", "./deno", "./cloudflare", "./bun", "./node"];

describe("export subpaths", () => {
  const pkg = readJson("package.json");
  const deno = readJson("deno.json");
  const pkgExports = pkg.exports as Record<string, string>;
  const denoExports = deno.exports as Record<string, string>;

  it("package.json and deno.json export the same subpaths with the same targets", () => {
    assert.deepEqual(Object.keys(pkgExports).sort(), Object.keys(denoExports).sort());
    for (const key of Object.keys(pkgExports)) {
      assert.equal(pkgExports[key], denoExports[key], `target of ${key}`);
    }
  });

  it("exports exactly the documented subpaths", () => {
    assert.deepEqual(Object.keys(pkgExports).sort(), [...SUBPATHS].sort());
  });

  it("every export target is a plain string naming an existing .ts file", () => {
    for (const [key, target] of Object.entries(pkgExports)) {
      assert.equal(typeof target, "string", `${key} must map to a path`);
      assert.match(target, /^\.\/.+\.ts$/, `${key} → ${target}`);
      assert.ok(existsSync(fileURLToPath(new URL(target, root))), `${key} → ${target} does not exist`);
    }
  });

  it("every export target and the CLI are inside the published files", () => {
    const files = pkg.files as string[];
    const published = (path: string): boolean =>
      files.some((f) => path === f || path.startsWith(`${f}/`));
    for (const target of Object.values(pkgExports)) {
      assert.ok(published(target.slice(2)), `${target} is not in package.json files`);
    }
    const bin = pkg.bin as Record<string, string>;
    assert.equal(bin.edgecron, "bin/edgecron.mjs");
    assert.ok(published("bin/edgecron.mjs"));
    assert.ok(published("dist/cli.mjs"), "the CLI bundle must be published");
  });

  it("the portable subpaths point into src/, the runtime ones into adapters/", () => {
    for (const key of [".", "./libsql", "./hono"]) assert.match(pkgExports[key] ?? "", /^\.\/src\//, key);
    for (const key of ["./deno", "./cloudflare", "./bun", "./node"]) {
      assert.equal(pkgExports[key], `./adapters/${key.slice(2)}/mod.ts`, key);
    }
  });
});
