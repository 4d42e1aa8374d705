// The demo servers' settings (examples/node-server/demo.ts, shared with the Bun demo): what
// a hostile or mistyped PORT does.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { demoSettings, portFromEnv } from "../../../examples/node-server/demo.ts";

describe("the demo's PORT", () => {
  it("defaults to 8787 and takes a whole port number, 0 for any free port", () => {
    assert.equal(portFromEnv(undefined), 8787);
    assert.equal(portFromEnv("8080"), 8080);
    assert.equal(portFromEnv("0"), 0);
  });

  for (const text of ["", " ", "abc", "8080x", "-1", "65536", "1.5", "0x1f90", "1e3"]) {
    it(`refuses ${JSON.stringify(text)} naming PORT (an empty one listened on a random port, abc failed as an Invalid URL)`, () => {
      assert.throws(() => portFromEnv(text), {
        message: `PORT: expected a port number from 0 to 65535 (0 for any free port), got ${JSON.stringify(text)}`,
      });
    });
  }

  it("demoSettings() refuses an empty PORT instead of listening on a random port", () => {
    const keys = ["PORT", "DATABASE_URL", "LIBSQL_URL", "EDGECRON_DB"] as const;
    const saved = keys.map((key) => process.env[key]);
    // A database that is no file:.edgecron/ path, so nothing is created on disk.
    Object.assign(process.env, { PORT: "", EDGECRON_DB: "libsql://demo.invalid" });
    delete process.env.DATABASE_URL;
    delete process.env.LIBSQL_URL;
    try {
      assert.throws(() => demoSettings(), /^Error: PORT: expected a port number/);
    } finally {
      keys.forEach((key, i) => {
        if (saved[i] === undefined) delete process.env[key];
        else process.env[key] = saved[i];
      });
    }
  });
});
