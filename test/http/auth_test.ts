import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { edgecronRouter } from "../../src/http/mod.ts";
import { SchedulerError } from "../../src/core/errors.ts";
import { errorOf, json, setup, TOKEN } from "./_setup.ts";

/** Every API route with a request that succeeds when authorised. */
const ROUTES: { method: string; path: string; body?: unknown; ok: number }[] = [
  { method: "GET", path: "/health", ok: 200 },
  { method: "GET", path: "/jobs", ok: 200 },
  { method: "GET", path: "/jobs/hourly", ok: 200 },
  { method: "GET", path: "/jobs/hourly/runs", ok: 200 },
  { method: "POST", path: "/jobs/hourly/run", body: { mode: "force" }, ok: 200 },
  { method: "POST", path: "/jobs/hourly/pause", ok: 200 },
  { method: "POST", path: "/jobs/hourly/resume", ok: 200 },
  { method: "POST", path: "/tick", ok: 200 },
  {
    method: "POST",
    path: "/jobs",
    body: { name: "hook", schedule: "*/5 * * * *", target: { url: "https://h.example/x" } },
    ok: 201,
  },
  { method: "PUT", path: "/jobs/hook2", body: { schedule: "@daily", target: { url: "https://h.example/y" } }, ok: 201 },
  { method: "DELETE", path: "/jobs/gone", ok: 200 },
  { method: "GET", path: "/", ok: 200 },
];

async function seedGone(f: ReturnType<typeof setup>): Promise<void> {
  await f.scheduler.define("gone", { schedule: "@hourly", target: { url: "https://h.example/z" } });
}

describe("router auth", () => {
  for (const route of ROUTES) {
    it(`${route.method} ${route.path} needs the bearer token`, async () => {
      const f = setup();
      await seedGone(f);
      const init: { body?: string; headers?: Record<string, string> } = route.body === undefined
        ? {}
        : json(route.body);
      const none = await f.call(route.method, route.path, { ...init, auth: false });
      assert.equal(none.status, 401);
      const wrong = await f.call(route.method, route.path, {
        ...init,
        auth: false,
        headers: { ...init.headers, authorization: `Bearer ${TOKEN}x` },
      });
      assert.equal(wrong.status, 401);
      if (route.path !== "/") {
        assert.equal(none.headers.get("www-authenticate"), 'Bearer realm="edgecron"');
        assert.equal((await errorOf(wrong)).code, "unauthorized");
      }
      const good = await f.call(route.method, route.path, init);
      assert.equal(good.status, route.ok, await good.clone().text());
    });

    it(`${route.method} ${route.path} is open with { public: true }`, async () => {
      const f = setup({ router: { public: true } });
      await seedGone(f);
      const res = await f.call(route.method, route.path, {
        ...(route.body === undefined ? {} : json(route.body)),
        auth: false,
      });
      assert.equal(res.status, route.ok, await res.clone().text());
    });
  }

  it("accepts the scheme in any case and refuses other schemes", async () => {
    const f = setup();
    assert.equal(
      (await f.call("GET", "/jobs", { auth: false, headers: { authorization: `bearer ${TOKEN}` } })).status,
      200,
    );
    assert.equal(
      (await f.call("GET", "/jobs", { auth: false, headers: { authorization: `Basic ${TOKEN}` } })).status,
      401,
    );
    assert.equal((await f.call("GET", "/jobs", { auth: false, headers: { authorization: TOKEN } })).status, 401);
    assert.equal(
      (await f.call("GET", "/jobs", { auth: false, headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}` } }))
        .status,
      401,
    );
  });

  it("refuses to build without a token unless public: true is explicit", () => {
    const f = setup();
    for (const options of [{}, { token: "" }, { token: "has space" }, { public: false }]) {
      assert.throws(
        () => edgecronRouter(f.scheduler, options),
        (e: unknown) => e instanceof SchedulerError && /router\.token: required/.test(e.message),
      );
    }
    assert.throws(() => edgecronRouter(f.scheduler, { token: TOKEN, public: true }), /not both/);
    assert.throws(() => edgecronRouter(f.scheduler, { token: TOKEN, maxBodyBytes: 0 }), /router\.maxBodyBytes/);
    assert.throws(() => edgecronRouter(f.scheduler, { token: TOKEN, sessionTtl: "soon" }), /router\.sessionTtl/);
  });
});
