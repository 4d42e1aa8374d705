import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { didYouMean, editDistance, suggest, unknownOption } from "../../src/core/suggest.ts";
import { assertTimeZone } from "../../src/core/zone/mod.ts";

describe("suggest", () => {
  it("editDistance counts inserts, deletes, substitutions and adjacent swaps, case-insensitively", () => {
    const cases: [string, string, number][] = [
      ["", "", 0],
      ["abc", "abc", 0],
      ["Paris", "paris", 0],
      ["Pariss", "Paris", 1],
      ["Yrok", "York", 1],
      ["kitten", "sitting", 3],
      ["", "abc", 3],
    ];
    for (const [a, b, d] of cases) {
      assert.equal(editDistance(a, b), d, `${a} → ${b}`);
      assert.equal(editDistance(b, a), d, `${b} → ${a}`);
    }
    assert.equal(editDistance("aaaaaaaa", "bbbbbbbb", 2), 3, "stops past the limit");
  });

  it("unknownOption names the first option not taken, with its nearest name; one set to undefined is absent", () => {
    const takes = ["prefix", "closeKv"];
    assert.deepEqual(unknownOption({ prefix: [], prefx: [], ttl: 1 }, takes), {
      key: "prefx",
      hint: '; did you mean "prefix"?',
    });
    assert.deepEqual(unknownOption({ ttl: 5 }, takes), { key: "ttl", hint: "" });
    assert.equal(unknownOption({ prefix: [], closeKv: undefined, prefx: undefined }, takes), undefined);
    // A caller's own reach for the nearest: "ssl" is 2 edits from "url", too far within 1.
    assert.deepEqual(unknownOption({ ssl: true }, ["url"], () => 1), { key: "ssl", hint: "" });
    assert.deepEqual(unknownOption({ ssl: true }, ["url"]), { key: "ssl", hint: '; did you mean "url"?' });
  });

  it("suggest keeps the nearest names only, and a bare city finds its zone", () => {
    const zones = ["Europe/Paris", "Europe/Prague", "Europe/Madrid", "Asia/Tokyo", "America/New_York"];
    assert.deepEqual(suggest("Europe/Pariss", zones), ["Europe/Paris"]);
    assert.deepEqual(suggest("Paris", zones), ["Europe/Paris"]);
    assert.deepEqual(suggest("Nowhere/At_All", zones), []);
    assert.equal(didYouMean(["a", "b", "c"]), '; did you mean "a", "b" or "c"?');
    assert.equal(didYouMean([]), "");
  });

  it("an unknown time zone names the nearest valid ones where the runtime lists its zones", () => {
    const listed = typeof (Intl as { supportedValuesOf?: unknown }).supportedValuesOf === "function";
    assert.throws(() => assertTimeZone("Europe/Pariss"), (e: unknown) => {
      const message = (e as Error).message;
      if (listed) {
        assert.equal(
          message,
          'invalid-timezone: timezone: unknown time zone "Europe/Pariss"; did you mean "Europe/Paris"?',
        );
      } else assert.equal(message, 'invalid-timezone: timezone: unknown time zone "Europe/Pariss"');
      return true;
    });
    assert.throws(() => assertTimeZone("Mars/Olympus"), /unknown time zone "Mars\/Olympus"$/);
  });
});
