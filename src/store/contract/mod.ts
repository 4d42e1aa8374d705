/**
 * The store contract suite (`edgecron/store`), for anyone writing a `Store`: the same
 * cases memory, libSQL, D1 and Deno KV pass. It takes your test harness, so it runs
 * under node:test, Deno, Bun or Vitest alike, and uses its own small assertions.
 *
 * @module
 */
import type { Store } from "../types.ts";
import { claimCases } from "./claims.ts";
import { concurrencyCases } from "./concurrency.ts";
import { defCases } from "./defs.ts";
import { maxRunsCases } from "./max_runs.ts";
import { overlapCases } from "./overlap.ts";
import { portCases } from "./ports.ts";
import { runCases } from "./runs.ts";
import { tallyCases } from "./tally.ts";
import type { ContractContext, ItFunction } from "./_shared.ts";

export { request } from "./_shared.ts";
export type { ItFunction } from "./_shared.ts";

/** What `storeContract` needs. */
export interface StoreContractOptions {
  /** The harness's `describe` (a group of cases). */
  describe: (name: string, fn: () => void) => unknown;
  /** The harness's `it` / `test` (one case, an async function). */
  it: ItFunction;
  /** A fresh, EMPTY store that is not yet initialised; called once per case. */
  makeStore: () => Store | Promise<Store>;
  /** Names the implementation in the group titles. Default `"store"`. */
  name?: string;
}

/**
 * Registers the contract cases with your harness: each case gets a fresh store from
 * `makeStore`, calls `init()`, and closes it after.
 *
 * @example
 * ```ts
 * import { describe, it } from "node:test";
 * import { memoryStore, storeContract } from "edgecron/store";
 *
 * // Pass your own factory; a fresh, empty store per case.
 * storeContract({ describe, it, name: "my store", makeStore: () => memoryStore() });
 * ```
 */
export function storeContract(options: StoreContractOptions): void {
  const { describe, it, makeStore, name = "store" } = options;
  const context: ContractContext = {
    it,
    async withStore(fn): Promise<void> {
      const store = await makeStore();
      await store.init();
      try {
        await fn(store);
      } finally {
        await store.close();
      }
    },
  };
  describe(`Store contract: ${name}`, () => {
    claimCases(context);
    runCases(context);
    defCases(context);
    concurrencyCases(context);
  });
  describe(`Store contract (lease renewal, group commit, read-only reads): ${name}`, () => {
    portCases(context);
    tallyCases(context);
  });
  describe(`Store contract (overlap policies, promote, enqueue): ${name}`, () => overlapCases(context));
  describe(`Store contract (maxRuns, pruned runs, buffer-full skips): ${name}`, () => maxRunsCases(context));
}
