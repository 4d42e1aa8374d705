// The store contract suite on node:test. The cases live in src/store/contract/ (exported
// as `edgecron/store` for third-party stores); this keeps the old call shape for the
// test files: storeContract(name, make), where `make()` returns a fresh, empty, not yet
// initialised store for each case.
import { describe, it } from "node:test";
import { storeContract as contract } from "../../src/store/contract/mod.ts";
import type { Store } from "../../src/store/types.ts";

export { request } from "../../src/store/contract/mod.ts";

/** Registers the shared contract tests for one implementation. */
export function storeContract(name: string, make: () => Promise<Store>): void {
  contract({ describe, it, name, makeStore: make });
}
