#!/usr/bin/env node
// The export subpaths live in ONE place: `exports` in deno.json (subpath → TypeScript
// source). package.json's `exports` (compiled JS and .d.ts in dist/) and deno.json's
// `imports` (npm: specifiers at package.json's versions) are derived from deno.json and
// package.json by this script:
//   node scripts/exports.mjs          checks both files are in sync (exit 1 if not)
//   node scripts/exports.mjs --write  rewrites the derived fields
// Adding a subpath: one line in deno.json `exports`, then `npm run exports`.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = new URL("..", import.meta.url);
const read = (name) => JSON.parse(readFileSync(new URL(name, root), "utf8"));

/** Where tsc (tsconfig.build.json) writes the build of a source file, without extension. */
export function distBase(source) {
  if (!/^\.\/.+\.ts$/.test(source)) {
    throw new Error(`export target must be a ./…/*.ts source, got ${JSON.stringify(source)}`);
  }
  return `./dist/${source.slice(2, -3)}`;
}

/** package.json `exports` for deno.json's: types first, then the ESM default. */
export function packageExports(denoExports) {
  const out = {};
  for (const [subpath, source] of Object.entries(denoExports)) {
    const base = distBase(source);
    out[subpath] = { types: `${base}.d.ts`, default: `${base}.js` };
  }
  return out;
}

/** deno.json `imports` for package.json's runtime dependencies (optional peers included: a store imports its driver lazily), at the same ranges. */
export function denoImports(dependencies) {
  const out = {};
  for (const name of Object.keys(dependencies).sort()) out[name] = `npm:${name}@${dependencies[name]}`;
  return out;
}

/** Differences between the derived fields and the files, as readable lines. */
export function exportsDrift() {
  const pkg = read("package.json");
  const deno = read("deno.json");
  const drift = [];
  if (JSON.stringify(pkg.exports) !== JSON.stringify(packageExports(deno.exports))) {
    drift.push("package.json exports differ from deno.json exports");
  }
  if (JSON.stringify(deno.imports) !== JSON.stringify(denoImports({ ...pkg.dependencies, ...pkg.peerDependencies }))) {
    drift.push("deno.json imports differ from package.json dependencies");
  }
  if (pkg.version !== deno.version) {
    drift.push(`versions differ: package.json ${pkg.version}, deno.json ${deno.version}`);
  }
  const cli = /VERSION = "([^"]*)"/.exec(readFileSync(new URL("cli/version.ts", root), "utf8"))?.[1];
  if (cli !== pkg.version) drift.push(`cli/version.ts says ${cli}, package.json ${pkg.version}`);
  return drift;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes("--write")) {
    const pkg = read("package.json");
    const deno = read("deno.json");
    pkg.exports = packageExports(deno.exports);
    deno.imports = denoImports({ ...pkg.dependencies, ...pkg.peerDependencies });
    writeFileSync(new URL("package.json", root), `${JSON.stringify(pkg, null, 2)}\n`);
    writeFileSync(new URL("deno.json", root), `${JSON.stringify(deno, null, 2)}\n`);
  }
  const drift = exportsDrift();
  for (const line of drift) console.error(`${line}: run \`npm run exports\``);
  process.exit(drift.length > 0 ? 1 : 0);
}
