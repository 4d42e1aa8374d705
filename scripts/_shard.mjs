// One node:test process for many test files (see scripts/test.mjs): the files named in
// EDGECRON_TEST_FILES (newline-separated, relative to the repository) are imported in
// order, so each registers its tests in this process and tsx compiles shared modules once.
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const root = new URL("..", import.meta.url).pathname;
for (const file of (process.env.EDGECRON_TEST_FILES ?? "").split("\n").filter((f) => f !== "")) {
  await import(pathToFileURL(resolve(root, file)).href);
}
