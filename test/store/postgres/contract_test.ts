// The store contract suite on a real Postgres server (one per test process, see
// _server.ts), a fresh schema per case. Skipped with its reason when no server binary exists.
import { describe, it } from "node:test";
import { storeContract } from "../contract.ts";
import { postgresStore } from "../../../src/store/postgres/mod.ts";
import { freshSchema, pgServer, skipReason } from "./_server.ts";

if (skipReason === false) {
  // Started before the cases register: initdb takes seconds, longer than Bun's per-case timeout.
  const { url } = await pgServer();
  storeContract("postgres", async () => postgresStore({ url, schema: freshSchema(), max: 4 }));
} else {
  describe("Store contract: postgres", () =>
    it("is skipped without a Postgres server", { skip: skipReason }, () => {}));
}
