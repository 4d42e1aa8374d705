#!/usr/bin/env node
// The `edgecron` command. Runs the esbuild bundle `dist/cli.mjs` (made by `npm run build`
// and by the `prepare` script on install); in a checkout without it, runs the TypeScript
// source through tsx, a dev dependency.
import { existsSync } from "node:fs";

const bundle = new URL("../dist/cli.mjs", import.meta.url);
if (existsSync(bundle)) {
  await import(bundle.href);
} else {
  try {
    const { register } = await import("tsx/esm/api");
    register();
  } catch {
    process.stderr.write("edgecron: dist/cli.mjs is missing; run `npm run build`\n");
    process.exit(2);
  }
  await import(new URL("../cli/main.ts", import.meta.url).href);
}
