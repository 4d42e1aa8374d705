// The published `edgecron` bin as a process: what the shell around it does to it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/edgecron.mjs", import.meta.url));

describe("bin/edgecron.mjs", () => {
  it("a reader that closes the pipe early (| head -1) ends it with the command's exit code, not an EPIPE stack trace", async () => {
    // The bin runs on Node (its shebang), whichever runtime runs this test.
    const child = spawn("node", [BIN, "next", "* * * * *", "-n", "1000", "--from", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Closed before the first line is written, as `head -1` does after its line.
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
    assert.equal(stderr, "");
    assert.equal(code, 0);
  });
});
