#!/usr/bin/env node
// `npm run build`: the npm package's compiled code, then the example bundles, in dist/.
//   dist/src, dist/adapters, dist/cli
//                         `lib`: what package.json `exports` and `bin` point at, one
//                         ESM .js, .js.map, .d.ts and .d.ts.map per source file, made by
//                         tsc (tsconfig.build.json). `npm pack` runs it (prepack).
//   dist/worker.mjs       the Cloudflare example worker: workerd conditions, Temporal
//                         polyfill and the libSQL web client bundled in.
//   dist/worker-d1.mjs    the same on D1 (examples/cloudflare-worker/worker_d1.ts): no libSQL client.
//   dist/deno-deploy.mjs  the Deno Deploy example: Temporal is native there, so the
//                         polyfill stays an `npm:` import that is never evaluated; the
//                         libSQL web client stays an `npm:` import Deno Deploy installs.
// `node scripts/build.mjs lib worker` builds only the named outputs.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { minify } from "terser";
import { fileURLToPath } from "node:url";
import { base64Native, denoNpm, honoTiny, jsbiNative, libsqlHttpOnly, sqlIndent } from "./_bundle_plugins.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));

const common = {
  absWorkingDir: root,
  bundle: true,
  format: "esm",
  minify: true,
  legalComments: "none",
  target: "es2022",
  logLevel: "warning",
  metafile: true,
};

/** Every bundle `npm run build` makes: name → esbuild options. */
export const bundles = {
  worker: {
    ...common,
    entryPoints: ["examples/cloudflare-worker/worker.ts"],
    outfile: "dist/worker.mjs",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser", "import"],
    mainFields: ["module", "main"],
    // workerd has no Temporal: the polyfill's dynamic import in src/core/temporal.ts is
    // inlined by esbuild, so the top-level await resolves during module evaluation.
    // A scheduled event wants one request per batch, not a WebSocket: the HTTP-only
    // libSQL client (libsql:, https:) leaves the WebSocket client out of the bundle.
    plugins: [libsqlHttpOnly, jsbiNative, base64Native, honoTiny, sqlIndent],
    shrink: true,
  },
  // The example worker on D1 alone: the same workerd build without the libSQL client.
  "worker-d1": {
    ...common,
    entryPoints: ["examples/cloudflare-worker/worker_d1.ts"],
    outfile: "dist/worker-d1.mjs",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser", "import"],
    mainFields: ["module", "main"],
    plugins: [libsqlHttpOnly, jsbiNative, base64Native, honoTiny, sqlIndent],
    shrink: true,
  },
  "deno-deploy": {
    ...common,
    entryPoints: ["examples/deno-deploy/main.ts"],
    outfile: "dist/deno-deploy.mjs",
    platform: "neutral",
    conditions: ["deno", "worker", "import"],
    mainFields: ["module", "main"],
    // The bare "@libsql/client" resolves to the native client under Deno; Deploy needs
    // the web (HTTP) one, which is all the libSQL store uses there.
    // cronstrue (24 KB, only the dashboard's words) stays an npm: import too.
    plugins: [
      denoNpm(["@js-temporal/polyfill", "@libsql/client", "cronstrue"], { "@libsql/client": "@libsql/client/web" }),
      honoTiny,
      sqlIndent,
    ],
    shrink: true,
  },
};

/**
 * Every output, in the order `npm run build` makes them: `lib` first (seconds), then the
 * bundles, the Deno Deploy one (the smallest) first. The test runner starts each e2e
 * file once what it reads is built.
 */
export const BUILD_ORDER = ["lib", "deno-deploy", "worker", "worker-d1"];

/** The folders `lib` writes (package.json `files` publishes them). */
export const LIB_DIRS = ["dist/src", "dist/adapters", "dist/cli"];

function* files(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

/**
 * Compiles src/, adapters/ and cli/ with tsc into dist/. tsc rewrites relative `.ts`
 * imports to `.js` in the JavaScript (rewriteRelativeImportExtensions) but keeps them in
 * the declarations. TypeScript 7 reads those, but TypeScript 5 and other tools that read
 * .d.ts files expect the `.js` a consumer imports, so they are rewritten here too. `.ts"`
 * and `.js"` have the same length, so the declaration maps stay exact.
 * The Deno adapter's declarations need Deno's types: `deno types` writes them to .tmp/.
 */
export function buildLib() {
  const bin = (name) => join(root, "node_modules", ".bin", name);
  const denoTypes = join(root, ".tmp", "deno.d.ts");
  if (!existsSync(denoTypes)) {
    mkdirSync(join(root, ".tmp"), { recursive: true });
    const types = spawnSync(bin("deno"), ["types"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    if (types.status !== 0) throw new Error(`deno types failed: ${types.stderr}`);
    writeFileSync(denoTypes, types.stdout);
  }
  for (const dir of LIB_DIRS) rmSync(join(root, dir), { recursive: true, force: true });
  const tsc = spawnSync(bin("tsc"), ["-p", "tsconfig.build.json"], { cwd: root, encoding: "utf8" });
  if (tsc.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed:\n${tsc.stdout}${tsc.stderr}`);
  for (const dir of LIB_DIRS) {
    for (const file of files(join(root, dir))) {
      if (!file.endsWith(".d.ts")) continue;
      const text = readFileSync(file, "utf8");
      const fixed = text.replace(/((?:from |import\()["']\.{1,2}\/[^"']*)\.ts(["'])/g, "$1.js$2");
      if (fixed !== text) writeFileSync(file, fixed);
    }
  }
}

/**
 * A second minification pass with terser for the edge bundles, whose size is budgeted:
 * esbuild's minifier favours speed, and terser's two compress passes take about 3 KB
 * gzipped more off the Workers bundle (most of it in the Temporal polyfill).
 */
async function shrinkFile(file) {
  const path = new URL(`../${file}`, import.meta.url);
  const result = await minify(readFileSync(path, "utf8"), {
    module: true,
    ecma: 2020,
    compress: { passes: 2 },
    mangle: true,
    format: { comments: false },
  });
  writeFileSync(path, result.code);
}

/**
 * Builds the named bundles (all by default); resolves to esbuild's results by name.
 * `outdir` (relative to the repository) writes the bundles there instead of dist/, so a
 * measurement can build beside a test that runs dist/.
 */
export async function buildAll(names = BUILD_ORDER, { outdir } = {}) {
  const results = {};
  for (const name of names) {
    if (name === "lib") {
      buildLib();
      continue;
    }
    const options = bundles[name];
    if (!options) throw new Error(`unknown output "${name}"; known: lib, ${Object.keys(bundles).join(", ")}`);
    const { shrink, ...esbuildOptions } = options;
    const outfile = outdir === undefined ? options.outfile : `${outdir}/${options.outfile.split("/").pop()}`;
    results[name] = await build({ ...esbuildOptions, outfile });
    if (shrink) await shrinkFile(outfile);
    // Beside the bundle, for `measure({ prebuilt: true })` (scripts/size.mjs): the e2e tier's
    // size test reads what the tier's build step made instead of building it again.
    const metafile = results[name].metafile;
    if (metafile) writeFileSync(new URL(`../${outfile}.meta.json`, import.meta.url), JSON.stringify(metafile));
  }
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const names = args.length > 0 ? args : BUILD_ORDER;
  await buildAll(names);
  for (const name of names) console.log(`built ${name === "lib" ? LIB_DIRS.join(", ") : bundles[name].outfile}`);
}
