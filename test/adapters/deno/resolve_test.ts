// resolveHost on Deno feeds the webhook SSRF check: it must never answer "no addresses",
// which the check passes and the delivery then resolves again, unchecked. Runs against a
// stand-in `Deno.resolveDns`, so it runs on Node and Bun; skipped on Deno.
import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { needsStandInDeno } from "../_runtime.ts";

// A computed specifier keeps tsc (which has no Deno types) out of the adapter.
const ADAPTER = "../../../adapters/deno/resolve.ts";
type ResolveHost = (host: string) => Promise<string[]>;
const load = async (): Promise<ResolveHost> => ((await import(ADAPTER)) as { resolveHost: ResolveHost }).resolveHost;

function fakeDns(answers: Record<"A" | "AAAA", string[] | Error>): void {
  (globalThis as { Deno?: unknown }).Deno = {
    resolveDns: (_name: string, type: "A" | "AAAA") => {
      const answer = answers[type];
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
}

describe("resolveHost (adapters/deno)", { skip: needsStandInDeno }, () => {
  afterEach(() => void delete (globalThis as { Deno?: unknown }).Deno);

  it("rejects a name with no address (A answers none, AAAA fails) instead of answering []", async () => {
    fakeDns({ A: [], AAAA: new Error("no AAAA record") });
    const resolveHost = await load();
    await assert.rejects(resolveHost("example.test"), /example\.test: no A or AAAA record/);
  });

  it("rejects a name whose A and AAAA answers are both empty", async () => {
    fakeDns({ A: [], AAAA: [] });
    const resolveHost = await load();
    await assert.rejects(resolveHost("example.test"), /example\.test: no A or AAAA record/);
  });
});
