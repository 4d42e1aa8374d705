// GET /openapi.json: a valid OpenAPI 3.1 document, generated from the request schemas,
// naming exactly the routes the router serves.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { documentModule } from "../../scripts/openapi.ts";
import { OPENAPI_DOCUMENT } from "../../src/http/openapi/document.ts";
import { createMetrics } from "../../src/http/metrics.ts";
import { openApiDocument } from "../../src/http/mod.ts";
import { HOUR, setup, T0 } from "./_setup.ts";

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; description?: string }[] }>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

describe("GET /openapi.json", () => {
  it("serves a document the OpenAPI 3.1 validator accepts", async () => {
    const f = setup({ router: { openapi: openApiDocument } });
    const res = await f.call("GET", "/openapi.json");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const doc = await res.json() as Doc;
    assert.equal(doc.openapi, "3.1.0");
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
  });

  it("lists every route the router serves, and nothing else", async () => {
    const f = setup({ router: { metrics: createMetrics(), openapi: openApiDocument } });
    const served = new Set(
      f.app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`),
    );
    const doc = JSON.parse(OPENAPI_DOCUMENT) as Doc;
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)),
    );
    assert.deepEqual([...documented].sort(), [...served].sort());
  });

  it("documents the status of every JSON route's answer to an oversized body, a failing store and a paused job", async () => {
    // The document left out 413 and 503 of the pause, resume and run routes and the
    // backfill's 409 for a paused job: a generated client treated them as unexpected.
    const doc = JSON.parse(OPENAPI_DOCUMENT) as { paths: Record<string, Record<string, { responses: object }>> };
    const documented = (method: string, path: string): string[] =>
      Object.keys(doc.paths[path]?.[method.toLowerCase()]?.responses ?? {});
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      path.startsWith("/ui") || path === "/" ? [] : Object.keys(ops).map((m) => [m.toUpperCase(), path] as const)
    );
    const concrete = (path: string): string => path.replace("{name}", "hourly");
    for (const [method, path] of routes) {
      const f = setup({ router: { metrics: createMetrics(), openapi: openApiDocument, maxBodyBytes: 1024 } });
      if (method === "POST" || method === "PUT") {
        const res = await f.call(method, concrete(path), { body: "x".repeat(2048) });
        assert.equal(res.status, 413, `${method} ${path}`);
        assert.ok(documented(method, path).includes("413"), `${method} ${path} documents 413`);
      }
      f.store.setFailing(true);
      const failing = await f.call(
        method,
        concrete(path),
        method === "GET" || method === "DELETE" ? {} : {
          body: path.endsWith("/backfill")
            ? JSON.stringify({ from: T0 - HOUR, to: T0 })
            : path === "/jobs/{name}"
            ? JSON.stringify({ schedule: "@daily", target: { url: "https://example.test/" } })
            : path === "/jobs"
            ? JSON.stringify({ name: "n", schedule: "@daily", target: { url: "https://example.test/" } })
            : "{}",
          headers: { "content-type": "application/json" },
        },
      );
      assert.ok(
        documented(method, path).includes(String(failing.status)),
        `${method} ${path} answered ${failing.status} with the store failing, which it does not document`,
      );
    }
    const f = setup();
    await f.call("POST", "/jobs/hourly/pause");
    const paused = await f.call("POST", "/jobs/hourly/backfill", {
      body: JSON.stringify({ from: T0 - HOUR, to: T0 }),
      headers: { "content-type": "application/json" },
    });
    assert.equal(paused.status, 409);
    assert.ok(documented("POST", "/jobs/{name}/backfill").includes("409"));
  });

  it("is served only when the router is given it, and behind the token", async () => {
    assert.equal((await setup().call("GET", "/openapi.json")).status, 404);
    assert.equal(
      (await setup({ router: { openapi: openApiDocument } }).call("GET", "/openapi.json", { auth: false })).status,
      401,
    );
  });

  it("is generated from the request schemas and up to date (run `npm run openapi` after a change)", () => {
    assert.equal(
      documentModule().includes(JSON.stringify(OPENAPI_DOCUMENT)),
      true,
      "src/http/openapi/document.ts is stale",
    );
    const doc = JSON.parse(OPENAPI_DOCUMENT) as Doc;
    const job = doc.components.schemas.DataJob!;
    for (
      const field of [
        "schedule",
        "target",
        "timezone",
        "timeout",
        "overlap",
        "catchUp",
        "retries",
        "enabled",
        "payload",
        "description",
      ]
    ) {
      assert.ok(job.properties?.[field], field);
    }
    const params = doc.paths["/jobs"]!.get!.parameters!.map((p) => p.name).sort();
    assert.deepEqual(params, ["after", "limit", "next"]);
    // A query is a string to the converter: the range is said in words (it said only "string").
    for (const path of ["/jobs", "/jobs/{name}/runs"]) {
      const limit = doc.paths[path]!.get!.parameters!.find((p) => p.name === "limit");
      assert.equal(limit?.description, "a whole number from 1 to 100", path);
    }
  });
});
