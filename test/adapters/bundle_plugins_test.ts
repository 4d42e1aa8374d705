import { describe, it } from "node:test";
import assert from "node:assert/strict";
import JSBI from "jsbi";
import { Base64 } from "js-base64";
// @ts-ignore: plain JS build module
import { BASE64_NATIVE, dropTemplateIndent, JSBI_NATIVE } from "../../scripts/_bundle_plugins.mjs";
import { readdirSync, readFileSync } from "node:fs";

const load = async <T>(source: string): Promise<T> => await import(`data:text/javascript;base64,${btoa(source)}`) as T;

type Ops = Record<string, (...args: unknown[]) => unknown>;

describe("the edge bundles' stand-in for jsbi (native BigInt)", () => {
  it("gives the same answers as jsbi for every operation the Temporal polyfill uses", async () => {
    const native = (await load<{ default: Ops }>(JSBI_NATIVE)).default;
    const jsbi = JSBI as unknown as Ops;
    const values = [
      "0",
      "1",
      "-1",
      "1000000000",
      "-86400000000000",
      "8640000000000000000000",
      "9007199254740991999999999",
    ];
    const binary = [
      "add",
      "subtract",
      "multiply",
      "divide",
      "remainder",
      "equal",
      "notEqual",
      "lessThan",
      "lessThanOrEqual",
      "greaterThan",
      "greaterThanOrEqual",
    ];
    for (const a of values) {
      for (const b of values) {
        for (const op of binary) {
          if ((op === "divide" || op === "remainder") && b === "0") continue;
          const want = jsbi[op]!(JSBI.BigInt(a), JSBI.BigInt(b));
          const got = native[op]!(BigInt(a), BigInt(b));
          assert.equal(String(got), String(want), `${op}(${a}, ${b})`);
        }
      }
      assert.equal(String(native.unaryMinus!(BigInt(a))), String(JSBI.unaryMinus(JSBI.BigInt(a))));
      assert.equal(native.toNumber!(BigInt(a)), JSBI.toNumber(JSBI.BigInt(a)));
      assert.equal(String(native.BigInt!(a)), String(JSBI.BigInt(a)));
    }
    assert.equal(String(native.BigInt!(1e3)), "1000");
  });
});

describe("the edge bundles' stand-in for js-base64 (btoa/atob)", () => {
  it("encodes and decodes bytes exactly as js-base64 does, padded or not", async () => {
    const { Base64: native } = await load<{ Base64: typeof Base64 }>(BASE64_NATIVE);
    const samples = [
      new Uint8Array(),
      new Uint8Array([0]),
      new Uint8Array([255, 254, 0, 1]),
      new Uint8Array(70_000).map((_, i) => (i * 31) % 256),
    ];
    for (const bytes of samples) {
      const encoded = Base64.fromUint8Array(bytes);
      assert.equal(native.fromUint8Array(bytes), encoded);
      assert.deepEqual(native.toUint8Array(encoded), Base64.toUint8Array(encoded));
      const unpadded = encoded.replace(/=+$/, "");
      assert.deepEqual(native.toUint8Array(unpadded), bytes);
    }
    assert.deepEqual(native.toUint8Array("-_8"), Base64.toUint8Array("-_8"), "URL-safe alphabet");
  });
});

describe("the edge bundles' SQL without its indentation (dropTemplateIndent)", () => {
  const drop = dropTemplateIndent as (text: string) => string;

  it("drops spaces after a line break in template text only, not in comments, strings or `${}` code", () => {
    const source = [
      "// a comment with a ` backtick",
      "/* and `one` here,",
      "   indented */",
      "const s = 'a `quoted`\\' string';",
      "const q = `SELECT 1",
      "    FROM t ${cond ? `WHERE a",
      '      = 1` : ""}',
      "    LIMIT 2`;",
      "  const kept = 1;",
    ].join("\n");
    assert.equal(
      drop(source),
      [
        "// a comment with a ` backtick",
        "/* and `one` here,",
        "   indented */",
        "const s = 'a `quoted`\\' string';",
        "const q = `SELECT 1",
        "FROM t ${cond ? `WHERE a",
        '= 1` : ""}',
        "LIMIT 2`;",
        "  const kept = 1;",
      ].join("\n"),
    );
  });

  it("returns a comment or string left open as it is, instead of scanning without end", () => {
    for (const text of ["/* open\n   comment", "const a = 'open\n  ", 'const b = "open \\', "x // end"]) {
      assert.equal(drop(text), text);
    }
  });

  it("changes nothing in the SQL stores' sources but the indentation inside their templates", async () => {
    const dir = new URL("../../src/store/sql/", import.meta.url);
    let dropped = 0;
    for (const name of readdirSync(dir)) {
      const text = readFileSync(new URL(name, dir), "utf8");
      const out = drop(text);
      // Only spaces and tabs after a line break went, and each of them inside a template.
      assert.equal(out.replace(/\n[ \t]+/g, "\n"), text.replace(/\n[ \t]+/g, "\n"), name);
      const lines = (t: string) => t.split("\n").map((line) => line.trimStart());
      assert.deepEqual(lines(out), lines(text), name);
      dropped += text.length - out.length;
    }
    assert.ok(dropped > 1000, `dropped ${dropped} characters`);
  });
});
