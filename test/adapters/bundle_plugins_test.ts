import { describe, it } from "node:test";
import assert from "node:assert/strict";
import JSBI from "jsbi";
import { Base64 } from "js-base64";
// @ts-ignore: plain JS build module
import { BASE64_NATIVE, JSBI_NATIVE } from "../../scripts/_bundle_plugins.mjs";

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
