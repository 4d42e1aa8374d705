// Which test tier a test file belongs to, decided by its path alone, so a new test file
// lands in the right tier without editing any list (scripts/test.mjs runs the tiers):
//
//   e2e      test/integration/**                       real processes, servers, builds and minutes
//   stores   test/store/{d1,deno-kv,postgres}/**       a store that needs its own runtime or server
//            and any other file named *_process_test.ts (spawns processes, e.g. libSQL from three)
//   unit     every other test/**/*_test.ts             one Node process, manual clocks, memory and
//                                                      libSQL-file stores; also run on Deno and Bun
//                                                      by the `runtimes` tier
//
// A unit test file (and the test helpers it imports) must not import node:child_process,
// esbuild, miniflare, wrangler or playwright: test/tiers_test.ts fails if one does, naming
// the file and this rule.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Folders of test/store/ whose store needs workerd, Deno or a server (the `stores` tier). */
export const STORE_DIRS = ["test/store/d1/", "test/store/deno-kv/", "test/store/postgres/"];

/** The tier of a test file given relative to the repository with `/` separators. */
export function tierOf(file) {
  if (file.startsWith("test/integration/")) return "e2e";
  if (STORE_DIRS.some((dir) => file.startsWith(dir)) || file.endsWith("_process_test.ts")) return "stores";
  return "unit";
}

function* walk(root, dir) {
  for (const entry of readdirSync(join(root, dir)).sort()) {
    const path = `${dir}/${entry}`;
    if (entry === "fixtures" || entry === "artifacts" || entry === "node_modules") continue;
    if (statSync(join(root, path)).isDirectory()) yield* walk(root, path);
    else if (entry.endsWith("_test.ts")) yield path;
  }
}

/** Every test file under `root`/test, sorted, grouped by tier. */
export function testFiles(root) {
  const tiers = { unit: [], stores: [], e2e: [] };
  for (const file of walk(root, "test")) tiers[tierOf(file)].push(file);
  return tiers;
}

/**
 * The e2e files that wait longest on real time (40-80 s each on an idle machine: real
 * minutes, default leases, a real `Deno.cron`; the packed tarball's npm install and its
 * consumers), longest first: `npm test` starts them first
 * so that none holds the e2e tier open alone at its end. Other e2e files follow, largest
 * first. test/tiers_test.ts checks that each one exists.
 */
export const E2E_LONGEST = [
  "test/integration/consumer_test.ts",
  "test/integration/capacity_test.ts",
  "test/integration/run_ahead_test.ts",
  "test/integration/postgres_lease_test.ts",
  "test/integration/lease_test.ts",
  "test/integration/deno_test.ts",
  "test/integration/fencing_test.ts",
];

/**
 * The dist/ outputs (scripts/build.mjs names) an e2e file runs, when it reads only some:
 * the tier builds `lib` first, then the bundles one by one, and starts each file once
 * what it reads is built. An e2e file that reads dist/ and is not listed here waits for
 * every output. test/tiers_test.ts checks the names.
 */
export const E2E_BUILDS = {
  "test/integration/consumer_test.ts": ["lib"],
  "test/integration/cli_bin_test.ts": ["lib"],
  "test/integration/deno_test.ts": ["deno-deploy"],
  "test/integration/cloudflare_test.ts": ["worker"],
};
