// The runtime the tests run on. Read from the runtime's version, not from a `Deno` global
// being there: the Deno adapter's tests put a stand-in `Deno` on globalThis while they
// run, and test files imported into the same process meanwhile (scripts/_shard.mjs)
// took Node for Deno.
const g = globalThis as { Deno?: { version?: { deno?: unknown } }; Bun?: { version?: unknown } };

/** `"deno"`, `"bun"` or `"node"`. */
export const runtime: "deno" | "bun" | "node" = typeof g.Deno?.version?.deno === "string"
  ? "deno"
  : typeof g.Bun?.version === "string"
  ? "bun"
  : "node";

/** The skip reason of a test that puts a stand-in `Deno` global up: on Deno itself it cannot. */
export const needsStandInDeno: string | false = runtime === "deno" ? "needs a stand-in Deno global" : false;
