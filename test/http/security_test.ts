// Hostile input over HTTP: deep JSON, names and text that break things, secrets in
// reads, and the one job schema shared by `define()` and `POST /jobs`.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { jsonDepth } from "../../src/http/_body.ts";
import { errorOf, json, setup, TOKEN } from "./_setup.ts";

const HOOK = { schedule: "*/5 * * * *", target: { url: "https://hooks.example/run" } };
const deep = (n: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = [v];
  return v;
};
const deepText = (n: number): string =>
  `{"name":"deep","schedule":"* * * * *","target":{"url":"https://h.example/"},"payload":${"[".repeat(n)}${
    "]".repeat(n)
  }}`;

async function healthy(f: ReturnType<typeof setup>): Promise<void> {
  const res = await f.call("GET", "/health");
  assert.equal(res.status, 200);
  assert.equal((await res.json() as { store: string }).store, "ok");
}

describe("hostile requests never change store health", () => {
  it("refuses a 20 000-deep JSON body with 400 before parsing it, and /health stays 200", async () => {
    const f = setup();
    const res = await f.call("POST", "/jobs", {
      body: deepText(20_000),
      headers: { "content-type": "application/json" },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(await errorOf(res), {
      code: "invalid-request",
      message: "body: JSON nested deeper than 32 levels",
    });
    await healthy(f);
    assert.deepEqual(f.errors, []);
  });

  it("counts depth outside strings only, and stops counting early", () => {
    assert.equal(jsonDepth('{"a":"[[[[{{{{"}'), 1);
    assert.equal(jsonDepth('{"a":"\\"[[[["}'), 1);
    assert.equal(jsonDepth(`${"[".repeat(10_000)}`, 32), 33);
  });

  it("refuses a deep payload from code too (define), without touching the store", async () => {
    const f = setup();
    await assert.rejects(
      f.scheduler.define("deep", { ...HOOK, payload: deep(20_000) }),
      /invalid-spec: jobs\.deep\.payload: expected plain JSON nested at most 32 deep/,
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await assert.rejects(
      f.scheduler.define("cyclic", { ...HOOK, payload: cyclic }),
      /invalid-spec: jobs\.cyclic\.payload/,
    );
    await healthy(f);
  });

  it("a version conflict (409) neither marks the store failed nor logs a store error", async () => {
    const f = setup();
    assert.equal((await f.call("PUT", "/jobs/v", json(HOOK))).status, 201);
    const stale = await f.call("PUT", "/jobs/v?ifVersion=7", json(HOOK));
    assert.equal(stale.status, 409);
    assert.equal((await f.call("POST", "/jobs", json({ name: "v", ...HOOK }))).status, 409);
    await assert.rejects(f.scheduler.define("v", HOOK, { ifVersion: 3 }), /conflict/);
    await healthy(f);
    assert.deepEqual(f.errors, []);
  });

  it("a barrage of hostile inputs leaves /health at 200", async () => {
    const f = setup();
    const bodies = [
      deepText(5000),
      "[]",
      "null",
      '{"__proto__":{"polluted":1}}',
      '{"name":"__proto__","__proto__":1}',
      JSON.stringify({ name: "x", ...HOOK, target: { url: "http://169.254.169.254/" } }),
      JSON.stringify({ name: "x", ...HOOK, target: { url: "https://a:b@h.example/" } }),
      JSON.stringify({ name: "x", ...HOOK, description: "\u0000\u0007" }),
      JSON.stringify({ name: "..", ...HOOK }),
      "\u0000",
      "{".repeat(40_000),
    ];
    for (const body of bodies) {
      const res = await f.call("POST", "/jobs", { body, headers: { "content-type": "application/json" } });
      assert.ok(res.status >= 400 && res.status < 500, `${res.status} for ${body.slice(0, 60)}`);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    await healthy(f);
  });
});

describe("names and text", () => {
  it("refuses . and .. (URL normalisation would make them unreachable)", async () => {
    const f = setup();
    for (const name of [".", ".."]) {
      const res = await f.call("POST", "/jobs", json({ name, ...HOOK }));
      assert.equal(res.status, 400);
      assert.equal((await errorOf(res)).code, "invalid-name");
    }
  });

  it("serves jobs named after Object.prototype members through every route", async () => {
    const f = setup();
    for (const name of ["hasOwnProperty", "toString", "valueOf", "__proto__", "constructor"]) {
      assert.equal((await f.call("POST", "/jobs", json({ name, ...HOOK }))).status, 201, name);
      assert.equal((await f.call("GET", `/jobs/${name}`)).status, 200, name);
      assert.equal((await f.call("GET", `/jobs/${name}/runs`)).status, 200, name);
      assert.equal((await f.call("POST", `/jobs/${name}/pause`)).status, 200, name);
      assert.equal((await f.call("GET", `/ui/jobs/${name}`)).status, 200, name);
    }
    const { jobs } = await (await f.call("GET", "/jobs")).json() as { jobs: { name: string; paused: boolean }[] };
    assert.equal(jobs.filter((j) => j.paused).length, 5);
    assert.equal((await f.call("GET", "/")).status, 200);
  });

  it("renders bidi overrides in descriptions inert on the dashboard", async () => {
    const f = setup();
    await f.scheduler.define("bidi", { ...HOOK, description: "invoice \u202Efdp.exe and \u2066isolate\u2069" });
    const html = await (await f.call("GET", "/ui/jobs/bidi")).text();
    assert.match(html, /invoice \[U\+202E\]fdp\.exe and \[U\+2066\]isolate\[U\+2069\]/);
    assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(html));
  });
});

describe("secrets in reads", () => {
  it("shows target header names but never their values, in every read", async () => {
    const f = setup();
    const spec = {
      ...HOOK,
      target: {
        url: "https://partner.example/hook?x=1",
        headers: { Authorization: "Bearer partner-secret", "X-Team": "ops" },
      },
    };
    const created = await f.call("POST", "/jobs", json({ name: "partner", ...spec }));
    const replaced = await f.call("PUT", "/jobs/partner", json(spec));
    const one = await f.call("GET", "/jobs/partner");
    const all = await f.call("GET", "/jobs");
    const page = await f.call("GET", "/ui/jobs/partner");
    const cookie = (await f.call("POST", "/ui/login", {
      auth: false,
      body: `token=${TOKEN}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }))
      .headers.get("set-cookie")!.split(";")[0]!;
    const viaSession = await f.call("GET", "/jobs/partner", { auth: false, headers: { cookie } });
    for (const res of [created, replaced, one, all, page, viaSession]) {
      const text = await res.text();
      assert.ok(!text.includes("partner-secret"), text.slice(0, 200));
    }
    const info = await (await f.call("GET", "/jobs/partner")).json() as {
      def: { spec: { target: { headers: Record<string, string> } } };
    };
    assert.deepEqual(info.def.spec.target.headers, { Authorization: "[redacted]", "X-Team": "[redacted]" });
    // A read-modify-write cannot store the placeholder over the real value.
    const back = await f.call("PUT", "/jobs/partner", json({ ...spec, target: info.def.spec.target }));
    assert.equal(back.status, 400);
    assert.match((await errorOf(back)).message, /\[redacted\] is what reads show/);
  });
});

describe("the trailing-slash redirect", () => {
  const locationOf = async (f: ReturnType<typeof setup>, path: string): Promise<[number, string | null]> => {
    const res = await f.call("GET", path, { auth: false });
    return [res.status, res.headers.get("location")];
  };

  it("never leaves the origin: a path that decodes to // or /\\ (tabs and line breaks dropped) is a 404", async () => {
    const f = setup();
    for (const path of ["/%5Cevil.com/", "/%09/evil.com/", "/%2F%2Fevil.com/", "/%5C%5Cevil.com/", "/\\evil.com/"]) {
      assert.deepEqual(await locationOf(f, path), [404, null], path);
    }
    assert.deepEqual(f.errors, []);
  });

  it("redirects to the raw, percent-encoded path: no 500 for control characters, no raw bytes in Location", async () => {
    const f = setup();
    const crlf = await f.call("GET", "/%0d%0aSet-Cookie:%20a=b/", { auth: false });
    assert.equal(crlf.status, 308);
    assert.equal(crlf.headers.get("location"), "/%0d%0aSet-Cookie:%20a=b");
    assert.equal(crlf.headers.get("set-cookie"), null);
    assert.deepEqual(await locationOf(f, "/%00/"), [308, "/%00"]);
    assert.deepEqual(await locationOf(f, "/%C3%A9/"), [308, "/%C3%A9"]);
    assert.deepEqual(await locationOf(f, "/jobs/%5Cx/?limit=1"), [308, "/jobs/%5Cx?limit=1"]);
    assert.deepEqual(f.errors, [], "nothing logged");
    const mounted = setup({ mount: "/cron" });
    assert.deepEqual(await locationOf(mounted, "/cron/%5Cevil.com/"), [308, "/cron/%5Cevil.com"]);
  });
});
