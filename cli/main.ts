/**
 * Entry point of the `edgecron` binary: binds `runCli` to `process`. Compiled to
 * `dist/cli/main.js` by `scripts/build.mjs lib`; `bin/edgecron.mjs` loads it.
 *
 * @module
 */
import process from "node:process";
import { runCli } from "./cli.ts";

process.exitCode = runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  now: Date.now(),
});
