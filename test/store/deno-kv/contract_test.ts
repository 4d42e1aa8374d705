// The store contract suite on the real Deno KV (a local file per test, same API and
// atomic semantics as Deno Deploy). Skipped with its reason on Node and Bun.
import { describe, it } from "node:test";
import { storeContract } from "../contract.ts";
import { freshStore, skipReason } from "./_open.ts";

if (skipReason === false) storeContract("deno-kv", freshStore);
else describe("Store contract: deno-kv", () => it("is skipped outside Deno", { skip: skipReason }, () => {}));
