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

test("the edge bundles stay within their gzipped budgets (Workers 102 KB with the Temporal polyfill, Deno Deploy 48 KB)", async () => {
  const results = (await measure()) as Measured[];
  assert.deepEqual(results.map((r) => r.file).sort(), ["dist/deno-deploy.mjs", "dist/worker.mjs"]);
  for (const r of results) {
    console.log(`size: ${r.file} ${(r.gzipped / 1024).toFixed(1)} KB gzipped of ${(r.budget / 1024).toFixed(1)} KB`);
    assert.ok(r.gzipped <= r.budget, `${r.file}: ${r.gzipped} bytes gzipped, budget ${r.budget}`);
  }
  // The Workers bundle carries everything itself: nothing is left for the platform to fetch.
  assert.deepEqual(results.find((r) => r.file === "dist/worker.mjs")?.externals, []);
});
