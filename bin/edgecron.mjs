#!/usr/bin/env node
// The `edgecron` command. Runs the compiled CLI, dist/cli/main.js (made by
// `npm run build` and by `prepack`, so always present in the published package); in a
// checkout that has not been built, runs the TypeScript source through tsx, a dev dependency.
import { existsSync } from "node:fs";

// A reader that stops early (`edgecron next ... -n 1000 | head -1`) closes the pipe; the
// rest of the output has nowhere to go, which is no error of the command's: end with its
// own exit code instead of an unhandled EPIPE and a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error?.code !== "EPIPE") throw error;
  });
}

const compiled = new URL("../dist/cli/main.js", import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  try {
    const { register } = await import("tsx/esm/api");
    register();
  } catch {
    process.stderr.write("edgecron: dist/cli/main.js is missing; run `npm run build`\n");
    process.exit(2);
  }
  await import(new URL("../cli/main.ts", import.meta.url).href);
}
