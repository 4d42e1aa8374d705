// The unit tier stays fast because of what its files may not do: no unit test file, and
// no test helper one imports, loads a module that spawns processes, bundles or boots
// workerd or a browser. Such a test belongs in the stores tier (`*_process_test.ts`, or
// a folder in STORE_DIRS) or in test/integration/ (scripts/tiers.mjs).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
// @ts-ignore: plain JS module shared with scripts/test.mjs
import { E2E_BUILDS, E2E_LONGEST, testFiles, tierOf } from "../scripts/tiers.mjs";
// @ts-ignore: plain JS module
import { BUILD_ORDER } from "../scripts/build.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const FORBIDDEN = /^(?:node:child_process|child_process|esbuild|miniflare|wrangler|playwright-core|playwright)$/;
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^"'`]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The modules `file` imports, following relative imports that stay inside test/. */
function forbiddenImports(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const found: string[] = [];
  for (const m of readFileSync(join(root, file), "utf8").matchAll(IMPORT)) {
    if (/^\s*;?\s*(?:import|export) type\s/.test(m[0])) continue; // erased at run time
    const spec = (m[1] ?? m[2]) as string;
    if (FORBIDDEN.test(spec)) found.push(`${file} imports ${spec}`);
    if (spec.startsWith(".")) {
      const target = relative(root, join(root, dirname(file), spec));
      if (target.startsWith("test/") && target.endsWith(".ts")) found.push(...forbiddenImports(target, seen));
    }
  }
  return found;
}

describe("test tiers", () => {
  it("no unit test file (or test helper it imports) spawns processes, bundles, or boots workerd or a browser", () => {
    const { unit } = testFiles(root) as { unit: string[] };
    assert.ok(unit.length > 50, `only ${unit.length} unit files found`);
    const found = unit.flatMap((file) => forbiddenImports(file));
    assert.deepEqual(
      found,
      [],
      "move these to a *_process_test.ts file (stores tier) or test/integration/ (see scripts/tiers.mjs)",
    );
  });

  it("every file npm test starts first in the e2e tier exists and is an e2e file", () => {
    const { e2e } = testFiles(root) as { e2e: string[] };
    for (const file of E2E_LONGEST as string[]) assert.ok(e2e.includes(file), `${file} is not an e2e test file`);
  });

  it("every file with its own dist/ outputs is an e2e file, and names outputs the build makes", () => {
    const { e2e } = testFiles(root) as { e2e: string[] };
    const builds = E2E_BUILDS as Record<string, string[]>;
    assert.ok(Object.keys(builds).length > 0);
    for (const [file, names] of Object.entries(builds)) {
      assert.ok(e2e.includes(file), `${file} is not an e2e test file`);
      assert.ok(names.length > 0, `${file} names no output`);
      for (const name of names) assert.ok((BUILD_ORDER as string[]).includes(name), `${file}: no output "${name}"`);
    }
  });

  it("a file's tier follows from its path", () => {
    const cases: [string, string][] = [
      ["test/integration/lease_test.ts", "e2e"],
      ["test/store/d1/contract_test.ts", "stores"],
      ["test/store/deno-kv/mod_test.ts", "stores"],
      ["test/store/postgres/contract_test.ts", "stores"],
      ["test/store/libsql/claims_process_test.ts", "stores"],
      ["test/core/cron/hash_process_test.ts", "stores"],
      ["test/store/libsql/mod_test.ts", "unit"],
      ["test/store/memory_test.ts", "unit"],
      ["test/http/api_test.ts", "unit"],
      ["test/adapters/deno/store_test.ts", "unit"],
    ];
    for (const [file, tier] of cases) assert.equal(tierOf(file), tier, file);
  });

  it("finds the forbidden imports it is meant to find", () => {
    assert.deepEqual(forbiddenImports("test/store/libsql/claims_process_test.ts"), [
      "test/store/libsql/claims_process_test.ts imports node:child_process",
    ]);
    // Lazy imports count (they still run); type-only imports do not.
    assert.deepEqual(forbiddenImports("test/store/d1/contract_test.ts"), [
      "test/store/d1/_miniflare.ts imports miniflare",
      "test/store/d1/_miniflare.ts imports esbuild",
      "test/store/d1/_miniflare.ts imports miniflare",
    ]);
  });
});
