// Least privilege on a real server, set up by the SQL of docs/stores.md ("Roles and
// privileges"): the owner role runs init() once, and the whole store contract runs as the
// app role. What the app role may not do is a store-error that says what to run or grant.
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { SchedulerError } from "../../../src/core/errors.ts";
import { postgresStore } from "../../../src/store/postgres/mod.ts";
import { PG_SCHEMA_VERSION } from "../../../src/store/postgres/schema.ts";
import { request, storeContract } from "../contract.ts";
import { freshSchema, PG_PASSWORD, PG_USER, pgServer, skipReason } from "./_server.ts";

const T0 = Date.UTC(2026, 0, 1);

/** The statements of the docs' SQL block, for the schema `edgecron` (comments dropped). */
function docStatements(): string[] {
  const doc = readFileSync(new URL("../../../docs/stores.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("### Roles and privileges"));
  const sql = /```sql\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(sql !== undefined, 'docs/stores.md has an sql block under "Roles and privileges"');
  return sql.replace(/^--.*$/gm, "").split(";").map((s) => s.trim()).filter((s) => s !== "");
}

/** Asserts `promise` rejects with a store-error whose message matches `re`. */
async function rejects(promise: Promise<unknown>, re: RegExp): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof SchedulerError && e.code === "store-error", String(e));
    assert.match(e.message, re);
    return true;
  });
}

if (skipReason !== false) {
  describe("Postgres least privilege", () =>
    it("is skipped without a Postgres server", { skip: skipReason }, () => {}));
} else {
  const server = await pgServer();
  const admin = postgres(server.url, { onnotice: () => {}, max: 1 });
  const statements = docStatements();
  const roles = statements.filter((s) => s.startsWith("CREATE ROLE"));
  const grants = statements.filter((s) => !s.startsWith("CREATE ROLE"));
  assert.equal(roles.length, 2);
  for (const statement of roles) await admin.unsafe(statement);
  // The roles and passwords of the docs' block.
  const url = (role: "edgecron_owner" | "edgecron_app"): string =>
    server.url.replace(
      `//${PG_USER}:${PG_PASSWORD}@`,
      `//${role}:${role === "edgecron_owner" ? "owner" : "app"}-secret@`,
    );
  const ownerStore = (schema: string) => postgresStore({ url: url("edgecron_owner"), schema, max: 1 });
  const appStore = (schema: string) => postgresStore({ url: url("edgecron_app"), schema, max: 4 });

  /** A fresh schema set up as the docs say; `migrate`: the owner's init() has run. */
  const docSchema = async (migrate = true): Promise<string> => {
    const schema = freshSchema("lp");
    for (const statement of grants) await admin.unsafe(statement.replace(/\bedgecron\b/g, schema));
    if (migrate) {
      const owner = ownerStore(schema);
      await owner.init();
      await owner.close();
    }
    return schema;
  };

  storeContract("postgres as a role with the docs' grants only", async () => appStore(await docSchema()));

  describe("Postgres least privilege", () => {
    // Here, not at the top: this group runs after the contract's cases, which use `admin`.
    after(() => admin.end({ timeout: 1 }));

    it("the app role's init() on a schema nobody migrated says to run init() as the owner, and what to grant", async () => {
      const schema = await docSchema(false);
      const app = appStore(schema);
      try {
        await rejects(
          app.init(),
          new RegExp(
            `^store-error: postgres: init failed: 42501: permission denied for schema ${schema}; run init\\(\\) once as a role that owns schema "${schema}" or may create it \\(it creates and migrates the tables\\), and grant the role nodes run as USAGE on the schema and SELECT, INSERT, UPDATE, DELETE on its tables`,
          ),
        );
        // The first call that needs the tables says the same.
        await rejects(app.claim([request("a", T0)]), /init failed: 42501: .*run init\(\) once as a role that owns/);
        const owner = ownerStore(schema);
        await owner.init();
        await owner.close();
        assert.equal((await app.claim([request("a", T0)]))[0]?.outcome, "won");
      } finally {
        await app.close();
      }
    });

    it("a call the role has no grant for says what to grant, naming the schema", async () => {
      const schema = await docSchema();
      await admin.unsafe(`REVOKE INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" FROM edgecron_app`);
      const app = appStore(schema);
      try {
        assert.deepEqual(await app.runs("a"), [], "reads need SELECT only");
        await rejects(
          app.claim([request("a", T0)]),
          new RegExp(
            `^store-error: postgres: claim failed: 42501: permission denied for table runs; grant the role nodes run as USAGE on schema "${schema}" and SELECT, INSERT, UPDATE, DELETE on its tables`,
          ),
        );
      } finally {
        await app.close();
      }
    });

    it("a schema behind this edgecron, which the app role may not migrate, says so; once the owner migrates it, the app role runs", async () => {
      const schema = await docSchema();
      // Back to version 3: the spec column was jsonb.
      await admin.unsafe(`ALTER TABLE "${schema}".defs ALTER COLUMN spec TYPE jsonb USING spec::jsonb`);
      await admin.unsafe(`DELETE FROM "${schema}".schema_version WHERE version = 4`);
      assert.equal(PG_SCHEMA_VERSION, 4, "a later migration: make this schema one version behind again");
      const app = appStore(schema);
      try {
        await rejects(
          app.init(),
          new RegExp(
            `^store-error: postgres: init failed: schema "${schema}" is at version 3, this edgecron needs version 4, and this role may not migrate it \\(42501: must be owner of table defs\\); run init\\(\\) once as a role that owns the schema`,
          ),
        );
        const owner = ownerStore(schema);
        await owner.init();
        await owner.close();
        const spec = { payload: { note: "a\u0000b" } };
        assert.equal((await app.putDef("d", spec, T0)).version, 1);
        assert.deepEqual((await app.getDef("d"))?.spec, spec);
      } finally {
        await app.close();
      }
    });
  });
}
