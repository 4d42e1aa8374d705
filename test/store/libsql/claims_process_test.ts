// libSQL from several OS processes on one file: no busy errors, each slot won once.
// In the stores tier (it spawns processes; see scripts/tiers.mjs), on Node, Deno and Bun:
// the children run on the same runtime as the test.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = mkdtempSync(join(tmpdir(), "edgecron-libsql-process-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const freshUrl = (): string => `file:${join(dir, `db-${++files}.db`)}`;

describe("libsqlStore across processes", () => {
  // Process start-up is slow on a loaded machine (Bun gives a test 5 s by default).
  it("three processes claiming the same 150 slots on one file: no busy errors, each slot won once", {
    timeout: 120_000,
  }, async () => {
    const url = freshUrl();
    const child = fileURLToPath(new URL("../_claim_child.ts", import.meta.url));
    const runtime = runtimeCommand(child);
    const outputs = await Promise.all(["p1", "p2", "p3"].map((node) => runChild(runtime, [url, node, "150"])));
    const results = outputs.map((text) =>
      JSON.parse(text.trim().split("\n").pop() ?? "{}") as { won: number[]; errors: string[] }
    );
    assert.deepEqual(results.flatMap((r) => r.errors), []);
    const won = results.flatMap((r) => r.won).sort((x, y) => x - y);
    assert.deepEqual(won, Array.from({ length: 150 }, (_, i) => Date.UTC(2026, 0, 1) + i * 1000));
  });
});

declare const Deno: { execPath(): string } | undefined;
declare const Bun: unknown;

/** How this runtime runs a TypeScript file in a child process. */
function runtimeCommand(script: string): { cmd: string; args: string[] } {
  if (typeof Deno === "object") return { cmd: Deno.execPath(), args: ["run", "-A", "--no-check", script] };
  if (typeof Bun === "object") return { cmd: process.execPath, args: [script] };
  return { cmd: process.execPath, args: ["--import", "tsx", script] };
}

function runChild(runtime: { cmd: string; args: string[] }, extra: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(runtime.cmd, [...runtime.args, ...extra], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += String(chunk)));
    child.stderr.on("data", (chunk) => (err += String(chunk)));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}
