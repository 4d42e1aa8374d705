import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-ignore: plain JS module shared with scripts/test.mjs
import { portabilityViolations } from "../scripts/portability.mjs";

test("src/ names no runtime global (Deno, Bun, process, require, node:*)", () => {
  assert.deepEqual(portabilityViolations("src"), []);
});

test("the portability check catches each forbidden name", () => {
  const dir = mkdtempSync(join(tmpdir(), "edgecron-port-"));
  try {
    mkdirSync(join(dir, "sub"));
    writeFileSync(
      join(dir, "sub", "a.ts"),
      [
        "const a = Deno.env.get('X');",
        "const b = Bun.file('x');",
        "const c = process.env.X;",
        "const d = require('fs');",
        'import { readFile } from "node:fs/promises";',
        "const fine = globalThis.fetch;",
      ].join("\n"),
    );
    const found = (portabilityViolations(dir) as string[]).map((v) => v.replace(/^.*?:(\d+):/, "$1:"));
    assert.equal(found.length, 5);
    assert.deepEqual(found.map((v) => v.split(":")[0]), ["1", "2", "3", "4", "5"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
