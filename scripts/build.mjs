#!/usr/bin/env node
// `npm run build`: esbuild bundles in dist/.
//   dist/worker.mjs       the Cloudflare example worker: workerd conditions, Temporal
//                         polyfill and the libSQL web client bundled in.
//   dist/worker-d1.mjs    the same on D1 (examples/cloudflare-worker/worker_d1.ts): no libSQL client.
//   dist/deno-deploy.mjs  the Deno Deploy example: Temporal is native there, so the
//                         polyfill stays an `npm:` import that is never evaluated; the
//                         libSQL web client stays an `npm:` import Deno Deploy installs.
//   dist/cli.mjs          the `edgecron` CLI for Node 20 (dependencies left external).
// `node scripts/build.mjs worker` builds only the named bundles.
import { readFileSync, writeFileSync } from "node:fs";
import { build } from "esbuild";
import { minify } from "terser";
import { fileURLToPath } from "node:url";
import { base64Native, denoNpm, honoTiny, jsbiNative, libsqlHttpOnly } from "./_bundle_plugins.mjs";

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
    plugins: [libsqlHttpOnly, jsbiNative, base64Native, honoTiny],
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
    plugins: [libsqlHttpOnly, jsbiNative, base64Native, honoTiny],
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
    ],
    shrink: true,
  },
  cli: {
    ...common,
    minify: false,
    entryPoints: ["cli/main.ts"],
    outfile: "dist/cli.mjs",
    platform: "node",
    target: "node20",
    packages: "external",
  },
};

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

/** Builds the named bundles (all by default); resolves to esbuild's results by name. */
export async function buildAll(names = Object.keys(bundles)) {
  const results = {};
  for (const name of names) {
    const options = bundles[name];
    if (!options) throw new Error(`unknown bundle "${name}"; known: ${Object.keys(bundles).join(", ")}`);
    const { shrink, ...esbuildOptions } = options;
    results[name] = await build(esbuildOptions);
    if (shrink) await shrinkFile(options.outfile);
  }
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const names = process.argv.slice(2);
  await buildAll(names.length > 0 ? names : undefined);
  for (const name of names.length > 0 ? names : Object.keys(bundles)) {
    console.log(`built ${bundles[name].outfile}`);
  }
}
