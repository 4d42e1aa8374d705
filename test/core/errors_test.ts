import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SCHEDULER_ERROR_CODES, SchedulerError } from "../../src/core/errors.ts";
import type { SchedulerErrorCode } from "../../src/core/errors.ts";

const repo = fileURLToPath(new URL("../../", import.meta.url));

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (entry.endsWith(".ts")) yield path;
  }
}

/** The first argument of every `new SchedulerError("…"` in the shipped code, literals only. */
function thrownCodes(): Set<string> {
  const codes = new Set<string>();
  for (const dir of ["src", "adapters", "cli"]) {
    for (const file of sources(join(repo, dir))) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/new SchedulerError\(\s*"([^"]+)"/g)) codes.add(m[1] ?? "");
      // parseDuration({ code: "…" }) and the scheduler's field helpers pass the code as an option.
      for (const m of text.matchAll(/\bcode: "(invalid-[a-z-]+)"/g)) codes.add(m[1] ?? "");
    }
  }
  return codes;
}

describe("SchedulerErrorCode: one list of error codes", () => {
  it("every code thrown under src/, adapters/ and cli/ is in SCHEDULER_ERROR_CODES", () => {
    const listed = new Set<string>(SCHEDULER_ERROR_CODES);
    assert.deepEqual([...thrownCodes()].filter((code) => !listed.has(code)), []);
  });

  it("every listed code is used somewhere in src/ (no dead entries)", () => {
    const text = [...sources(join(repo, "src"))].map((f) => readFileSync(f, "utf8")).join("\n");
    const unused = SCHEDULER_ERROR_CODES.filter((code) =>
      !text.replace(/SCHEDULER_ERROR_CODES = \[[^\]]*\]/, "").includes(`"${code}"`)
    );
    assert.deepEqual(unused, []);
  });

  it("the constructor keeps the code as typed and prefixes the message with it", () => {
    const code: SchedulerErrorCode = "invalid-cron";
    const error = new SchedulerError(code, 'minute must be 0-59, got "61"', { path: "minute" });
    assert.equal(error.code, "invalid-cron");
    assert.equal(error.message, 'invalid-cron: minute must be 0-59, got "61"');
    assert.equal(error.path, "minute");
  });
});
