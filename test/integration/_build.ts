/** Builds what an e2e file runs from dist/, unless the e2e tier built everything first. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

/**
 * `node scripts/build.mjs <names>`, skipped when EDGECRON_PREBUILT=1: `npm run test:e2e`
 * builds every output once before it runs several e2e files at once, so that no two
 * files rewrite dist/ while another one runs it.
 */
export function ensureBuilt(...names: string[]): void {
  if (process.env.EDGECRON_PREBUILT === "1") return;
  const build = spawnSync("node", ["scripts/build.mjs", ...names], { cwd: root, encoding: "utf8", timeout: 180_000 });
  assert.equal(build.status, 0, `${build.stdout}${build.stderr}`);
}
