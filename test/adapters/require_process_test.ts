// The require() check transforms every shipped module with esbuild, which starts a
// service process: it runs in the stores tier (scripts/tiers.mjs), not the unit loop.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { transformSync } from "esbuild";
import { fileURLToPath } from "node:url";

const repo = new URL("../../", import.meta.url);

function* tsFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* tsFiles(path);
    else if (entry.endsWith(".ts")) yield path;
  }
}

describe('require("edgecron") support', () => {
  it("no module the package ships awaits at the top level (Node's require() of ESM refuses those)", () => {
    // esbuild refuses top-level await when asked for CommonJS, so a transform to "cjs" finds
    // each one (the Temporal loader had one). test/integration/consumer_test.ts require()s
    // the packed package itself.
    const offenders: string[] = [];
    for (const dir of ["src", "adapters"]) {
      for (const file of tsFiles(fileURLToPath(new URL(dir, repo)))) {
        try {
          transformSync(readFileSync(file, "utf8"), { loader: "ts", format: "cjs", logLevel: "silent" });
        } catch (e) {
          offenders.push(`${file}: ${(e as { errors?: { text: string }[] }).errors?.[0]?.text ?? String(e)}`);
        }
      }
    }
    assert.deepEqual(offenders, []);
  });

  it("the check sees a top-level await (the former Temporal loader)", () => {
    const former =
      'const native = undefined;\nexport const Temporal = native ??\n  (await import("@js-temporal/polyfill")).Temporal;\n';
    assert.throws(() => transformSync(former, { loader: "ts", format: "cjs", logLevel: "silent" }), /Top-level await/);
  });
});
