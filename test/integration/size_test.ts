import { test } from "node:test";
import assert from "node:assert/strict";
// @ts-ignore: plain JS module shared with `npm run size`
import { measure } from "../../scripts/size.mjs";

interface Measured {
  file: string;
  gzipped: number;
  budget: number;
  externals: string[];
}

test("the edge bundles stay within their gzipped budgets (Workers 144 KB with the Temporal polyfill, Workers on D1 129 KB, Deno Deploy 98 KB)", async () => {
  // In the e2e tier (EDGECRON_PREBUILT=1) the tier's build step made the bundles: measured
  // as built there. Alone, built into .tmp/, so the examples other e2e files run from dist/
  // are left alone.
  const prebuilt = process.env.EDGECRON_PREBUILT === "1";
  const results = (await measure(prebuilt ? { prebuilt } : { outdir: ".tmp/size-test" })) as Measured[];
  assert.deepEqual(results.map((r) => r.file).sort(), [
    "dist/deno-deploy.mjs",
    "dist/worker-d1.mjs",
    "dist/worker.mjs",
  ]);
  for (const r of results) {
    console.log(`size: ${r.file} ${(r.gzipped / 1024).toFixed(1)} KB gzipped of ${(r.budget / 1024).toFixed(1)} KB`);
    assert.ok(r.gzipped <= r.budget, `${r.file}: ${r.gzipped} bytes gzipped, budget ${r.budget}`);
  }
  // The Workers bundle carries everything itself: nothing is left for the platform to fetch.
  assert.deepEqual(results.find((r) => r.file === "dist/worker.mjs")?.externals, []);
  // The D1 worker carries no libSQL client at all.
  const d1 = results.find((r) => r.file === "dist/worker-d1.mjs") as Measured & { inputs: { path: string }[] };
  assert.deepEqual(d1.inputs.filter((i) => i.path.includes("@libsql")), []);
  // Neither Workers bundle carries postgres.js or the Postgres store: only a worker that
  // imports edgecron/cloudflare/postgres does (and it needs nodejs_compat).
  for (const file of ["dist/worker.mjs", "dist/worker-d1.mjs"]) {
    const r = results.find((m) => m.file === file) as Measured & { inputs: { path: string }[] };
    assert.deepEqual(r.inputs.filter((i) => i.path.includes("postgres")).map((i) => i.path), [], file);
  }
});
