import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createScheduler } from "../../src/engine/mod.ts";
import { edgecronRouter, setClientAddress } from "../../src/http/mod.ts";
import { HOUR, quietLogger, setup, TOKEN } from "./_setup.ts";

type F = ReturnType<typeof setup>;
const FORM = { "content-type": "application/x-www-form-urlencoded" };

async function login(
  f: F,
  base = "",
  headers: Record<string, string> = {},
): Promise<{ cookie: string; setCookie: string }> {
  const res = await f.call("POST", `${base}/ui/login`, {
    auth: false,
    body: new URLSearchParams({ token: TOKEN }).toString(),
    headers: { ...FORM, ...headers },
  });
  assert.equal(res.status, 303);
  const setCookie = res.headers.get("set-cookie") ?? "";
  return { cookie: setCookie.split(";")[0]!, setCookie };
}

/** The CSRF token of the first form on the page. */
async function csrfOf(f: F, cookie: string, path = "/"): Promise<string> {
  const html = await (await f.call("GET", path, { auth: false, headers: { cookie } })).text();
  return /name="csrf" value="([0-9a-f]{64})"/.exec(html)?.[1] ?? "";
}

function post(
  f: F,
  path: string,
  cookie: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return f.call("POST", path, {
    auth: false,
    body: new URLSearchParams(fields).toString(),
    headers: { ...FORM, cookie, ...headers },
  });
}

describe("dashboard sign-in", () => {
  it("shows a sign-in form (401) to a browser without credentials", async () => {
    const f = setup({ mount: "/cron" });
    const res = await f.call("GET", "/cron", { auth: false });
    assert.equal(res.status, 401);
    const text = await res.text();
    assert.match(text, /<form class="login" method="post" action="\/cron\/ui\/login">/);
    // Says where the token comes from.
    assert.match(text, /data-token-hint>[\s\S]*<code>EDGECRON_TOKEN<\/code>[\s\S]*printed in its terminal/);
  });

  it("shortens a UUID node id in the top bar, with the whole id as its tooltip; a short id stays whole", async () => {
    const f = setup();
    const { cookie } = await login(f);
    const html = await (await f.call("GET", "/", { auth: false, headers: { cookie } })).text();
    assert.match(html, /node <code title="node-a" data-node>node-a<\/code>/);
    const id = "3f2a9c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b";
    const app = edgecronRouter(createScheduler({ node: id, logger: quietLogger() }), { public: true });
    const top = await (await app.request("/")).text();
    assert.match(top, new RegExp(`node <code title="${id}" data-node>3f2a9c1e…</code>`));
  });

  it("sets an HttpOnly, SameSite=Strict cookie scoped to the mount that does not contain the token", async () => {
    const f = setup({ mount: "/cron" });
    const { setCookie, cookie } = await login(f, "/cron");
    assert.match(
      setCookie,
      /^edgecron_session=\d+\.[0-9a-f]{1,16}\.[0-9a-f]{64}; Max-Age=43200; Path=\/cron; HttpOnly; SameSite=Strict$/,
    );
    assert.ok(!setCookie.includes(TOKEN));
    assert.equal((await f.call("GET", "/cron", { auth: false, headers: { cookie } })).status, 200);
  });

  it("marks the cookie Secure over https", async () => {
    const f = setup();
    const res = await f.app.request("https://cron.example/ui/login", {
      method: "POST",
      body: `token=${TOKEN}`,
      headers: FORM,
    });
    assert.match(res.headers.get("set-cookie") ?? "", /; Secure/);
  });

  it("refuses a wrong token, a cross-site sign-in, a tampered and an expired cookie", async () => {
    const f = setup();
    const wrong = await f.call("POST", "/ui/login", { auth: false, body: "token=nope", headers: FORM });
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /Wrong token/);
    assert.equal(wrong.headers.get("set-cookie"), null);
    const cross = await f.call("POST", "/ui/login", {
      auth: false,
      body: `token=${TOKEN}`,
      headers: { ...FORM, origin: "https://evil.example" },
    });
    assert.equal(cross.status, 403);
    const { cookie } = await login(f);
    const tampered = cookie.replace(/[0-9a-f]$/, (c) => (c === "0" ? "1" : "0"));
    assert.equal((await f.call("GET", "/", { auth: false, headers: { cookie: tampered } })).status, 401);
    const extended = cookie.replace(/=(\d+)\./, (_, exp) => `=${Number(exp) + 86_400}.`);
    assert.equal((await f.call("GET", "/", { auth: false, headers: { cookie: extended } })).status, 401);
    await f.clock.advance(12 * HOUR + 1000);
    assert.equal((await f.call("GET", "/", { auth: false, headers: { cookie } })).status, 401);
  });

  it("lets the cookie read the JSON API but never write to it", async () => {
    const f = setup();
    const { cookie } = await login(f);
    assert.equal((await f.call("GET", "/jobs", { auth: false, headers: { cookie } })).status, 200);
    for (const path of ["/jobs/hourly/run", "/jobs/hourly/pause", "/tick"]) {
      assert.equal((await f.call("POST", path, { auth: false, headers: { cookie } })).status, 401, path);
    }
    assert.equal((await f.call("DELETE", "/jobs/hourly", { auth: false, headers: { cookie } })).status, 401);
  });

  it("signs out by clearing the cookie", async () => {
    const f = setup();
    const { cookie } = await login(f);
    const res = await post(f, "/ui/logout", cookie, { csrf: await csrfOf(f, cookie) });
    assert.equal(res.status, 303);
    assert.match(res.headers.get("set-cookie") ?? "", /^edgecron_session=; Max-Age=0; Path=\//);
  });

  it("refuses a same-origin sign-out without the session's CSRF token, and every session stays valid", async () => {
    const f = setup();
    const { cookie } = await login(f);
    await f.clock.advance(1000); // a later sign-in: another session, another CSRF token
    const other = (await login(f)).cookie;
    assert.notEqual(other, cookie);
    for (const fields of [{}, { csrf: "" }, { csrf: "0".repeat(64) }, { csrf: await csrfOf(f, other) }]) {
      const res = await post(f, "/ui/logout", cookie, fields, {
        origin: "http://localhost",
        "sec-fetch-site": "same-origin",
      });
      assert.equal(res.status, 403, JSON.stringify(fields));
      assert.equal(res.headers.get("set-cookie"), null);
    }
    for (const c of [cookie, other]) {
      assert.equal((await f.call("GET", "/", { auth: false, headers: { cookie: c } })).status, 200);
    }
  });
});

describe("session revocation, sign-in back-off, proxies", () => {
  it("a signed-out cookie no longer works, on this node or another sharing the store", async () => {
    const f = setup();
    const nodeB = createScheduler({ store: f.store, clock: f.clock, node: "node-b", logger: quietLogger() });
    const other = edgecronRouter(nodeB, { token: TOKEN, now: f.clock.now, logger: quietLogger() });
    const { cookie } = await login(f);
    const kept = (await login(f)).cookie; // a second browser
    assert.equal((await other.request("/", { headers: { cookie: kept } })).status, 200);
    assert.equal((await post(f, "/ui/logout", cookie, { csrf: await csrfOf(f, cookie) })).status, 303);
    for (const c of [cookie, kept]) {
      assert.equal((await f.call("GET", "/", { auth: false, headers: { cookie: c } })).status, 401);
    }
    await f.clock.advance(5000); // the other router re-reads the shared epoch at most every 5 s
    assert.equal((await other.request("/", { headers: { cookie: kept } })).status, 401);
    assert.ok(await f.store.getSetting("edgecron.session-epoch"), "the epoch lives in the store");
    assert.equal((await f.call("GET", "/", { auth: false, headers: { cookie: (await login(f)).cookie } })).status, 200);
  });

  it("a token change ends every session", async () => {
    const f = setup();
    const { cookie } = await login(f);
    const rotated = edgecronRouter(f.scheduler, {
      token: "a-brand-new-token-value",
      now: f.clock.now,
      logger: quietLogger(),
    });
    assert.equal((await rotated.request("/", { headers: { cookie } })).status, 401);
  });

  it("backs off after 5 wrong tokens: 200 rapid tries get 5 answers and 195 429s with Retry-After", async () => {
    const f = setup();
    const statuses = new Map<number, number>();
    let retryAfter = "";
    for (let i = 0; i < 200; i++) {
      const res = await f.call("POST", "/ui/login", { auth: false, body: "token=guess" + i, headers: FORM });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      if (res.status === 429) retryAfter = res.headers.get("retry-after") ?? "";
    }
    assert.deepEqual([...statuses], [[401, 5], [429, 195]]);
    assert.equal(retryAfter, "1");
    // Even the right token waits out the back-off, then works; delays double per failure.
    assert.equal(
      (await f.call("POST", "/ui/login", { auth: false, body: `token=${TOKEN}`, headers: FORM })).status,
      429,
    );
    await f.clock.advance(1000);
    assert.equal((await f.call("POST", "/ui/login", { auth: false, body: "token=again", headers: FORM })).status, 401);
    const doubled = await f.call("POST", "/ui/login", { auth: false, body: `token=${TOKEN}`, headers: FORM });
    assert.equal(doubled.headers.get("retry-after"), "2");
    await f.clock.advance(2000);
    await login(f);
  });

  it("backs off per peer address the server recorded: one client's wrong tokens do not lock out another", async () => {
    const f = setup();
    const from = (peer: string, token: string): Promise<Response> =>
      Promise.resolve(
        f.app.fetch(
          setClientAddress(
            new Request("http://localhost/ui/login", { method: "POST", body: `token=${token}`, headers: FORM }),
            peer,
          ),
        ),
      );
    const guesses = [];
    for (let i = 0; i < 20; i++) guesses.push((await from("198.51.100.66", `guess${i}`)).status);
    assert.deepEqual(guesses, [...Array(5).fill(401), ...Array(15).fill(429)]);
    assert.equal((await from("198.51.100.66", TOKEN)).status, 429, "the guesser waits, even with the right token");
    assert.equal((await from("2001:db8::7", TOKEN)).status, 303, "another client signs in at once");
    assert.equal((await from("192.0.2.1", TOKEN)).status, 303);
  });

  it("a node-wide ceiling: 100 wrong tokens a minute from any number of clients, then everyone waits out the minute", async () => {
    const f = setup({ router: { trustProxy: true } });
    const from = (ip: string, token: string): Promise<Response> =>
      f.call("POST", "/ui/login", { auth: false, body: `token=${token}`, headers: { ...FORM, "x-forwarded-for": ip } });
    for (let i = 0; i < 100; i++) assert.equal((await from(`198.51.100.${i}`, "guess")).status, 401, `client ${i}`);
    const refused = await from("203.0.113.200", "guess");
    assert.equal(refused.status, 429, "a fresh address is refused past the ceiling");
    assert.equal(refused.headers.get("retry-after"), "60");
    assert.equal((await from("203.0.113.201", TOKEN)).status, 429, "so is the right token, until the window ends");
    await f.clock.advance(60_000);
    assert.equal((await from("203.0.113.201", TOKEN)).status, 303);
  });

  it("only wrong tokens count toward the ceiling: 150 good sign-ins in a minute, then still 100 wrong tokens", async () => {
    const f = setup({ router: { trustProxy: true } });
    const from = (ip: string, token: string): Promise<Response> =>
      f.call("POST", "/ui/login", { auth: false, body: `token=${token}`, headers: { ...FORM, "x-forwarded-for": ip } });
    for (let i = 0; i < 150; i++) assert.equal((await from("192.0.2.1", TOKEN)).status, 303, `sign-in ${i}`);
    for (let i = 0; i < 100; i++) assert.equal((await from(`198.51.100.${i}`, "guess")).status, 401, `client ${i}`);
    assert.equal((await from("192.0.2.1", TOKEN)).status, 429, "the 100 wrong tokens reach the ceiling");
  });

  it("concurrent wrong tokens cannot slip past the back-off", async () => {
    const f = setup();
    const all = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) =>
          f.call("POST", "/ui/login", { auth: false, body: "token=guess" + i, headers: FORM }).then((r) => r.status),
      ),
    );
    assert.equal(all.filter((s) => s === 401).length, 5);
  });

  it("with trustProxy, backs off per client address and trusts X-Forwarded-Proto for the Secure flag", async () => {
    const f = setup({ router: { trustProxy: true } });
    const from = (ip: string) => ({ ...FORM, "x-forwarded-for": `203.0.113.9, ${ip}` });
    for (let i = 0; i < 6; i++) {
      await f.call("POST", "/ui/login", { auth: false, body: "token=x", headers: from("198.51.100.1") });
    }
    assert.equal(
      (await f.call("POST", "/ui/login", { auth: false, body: "token=x", headers: from("198.51.100.1") })).status,
      429,
    );
    const { setCookie } = await login(f, "", { ...from("198.51.100.2"), "x-forwarded-proto": "https" });
    assert.match(setCookie, /; Secure/);
    const plain = setup();
    const { setCookie: noProxy } = await login(plain, "", { "x-forwarded-proto": "https" });
    assert.doesNotMatch(noProxy, /Secure/, "without trustProxy the header is ignored");
  });

  it("JSON answers carry nosniff and no-store", async () => {
    const f = setup();
    for (const path of ["/jobs", "/health", "/jobs/nope"]) {
      const res = await f.call("GET", path);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
      assert.equal(res.headers.get("cache-control"), "no-store", path);
    }
  });
});

describe("dashboard forms (CSRF)", () => {
  it("run from the form redirects back with the new outcome shown", async () => {
    const f = setup({ mount: "/cron" });
    const { cookie } = await login(f, "/cron");
    const csrf = await csrfOf(f, cookie, "/cron");
    const res = await post(f, "/cron/ui/jobs/failing/run", cookie, { csrf, back: "home" }, {
      origin: "http://localhost",
      "sec-fetch-site": "same-origin",
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/cron?done=run&job=failing&result=error&slot=${f.clock.now()}`);
    const html = await (await f.call("GET", res.headers.get("location")!, { auth: false, headers: { cookie } })).text();
    // The notice carries the run's recorded error, read from the store by its slot.
    assert.match(
      html,
      /data-notice="error">Ran <b>failing<\/b>: <span class="status s-error">error<\/span> <span class="err" data-notice-error>boom: disk full<\/span>/,
    );
    assert.match(html, /data-job="failing">[\s\S]*?class="last-outcome"><span class="status s-error">/);
    // A crafted URL cannot put text of its choosing in the notice: a slot with no run shows none.
    const crafted = await (await f.call("GET", "/cron?done=run&job=failing&result=error&slot=1&error=pwned", {
      auth: false,
      headers: { cookie },
    })).text();
    assert.doesNotMatch(crafted, /data-notice-error|pwned/);
  });

  it("a notice's slot past the last instant is dropped: the page is still served (it was the store's JSON 400 about runs.before)", async () => {
    const f = setup();
    const { cookie } = await login(f);
    for (const path of ["/", "/ui/jobs/failing"]) {
      const res = await f.call("GET", `${path}?done=run&job=failing&result=error&slot=9999999999999999`, {
        auth: false,
        headers: { cookie },
      });
      assert.equal(res.status, 200, path);
      assert.match(await res.text(), /data-notice="error">Ran <b>failing<\/b>/, path);
    }
  });

  it("pause and resume from the job page return to it", async () => {
    const f = setup();
    const { cookie } = await login(f);
    const csrf = await csrfOf(f, cookie, "/ui/jobs/hourly");
    const res = await post(f, "/ui/jobs/hourly/pause", cookie, { csrf, back: "job" });
    assert.equal(res.headers.get("location"), "/ui/jobs/hourly?done=pause&job=hourly&result=paused");
    assert.equal((await f.scheduler.get("hourly"))!.paused, true);
    await post(f, "/ui/jobs/hourly/resume", cookie, { csrf, back: "job" });
    assert.equal((await f.scheduler.get("hourly"))!.paused, false);
    const gone = await post(f, "/ui/jobs/nope/pause", cookie, { csrf, back: "home" });
    assert.equal(gone.headers.get("location"), "/?done=pause&job=nope&result=unknown-job");
    const html = await (await f.call("GET", gone.headers.get("location")!, { auth: false, headers: { cookie } }))
      .text();
    assert.match(html, /data-notice="unknown-job">Could not pause <b>nope<\/b>: unknown job</);
  });

  it("refuses a missing, wrong or other session's CSRF token and cross-site posts (403)", async () => {
    const f = setup();
    const a = await login(f);
    await f.clock.advance(1000);
    const b = await login(f);
    assert.notEqual(a.cookie, b.cookie);
    const csrfA = await csrfOf(f, a.cookie);
    const refused: [string, Record<string, string>, Record<string, string>][] = [
      [a.cookie, {}, {}],
      [a.cookie, { csrf: "0".repeat(64) }, {}],
      [b.cookie, { csrf: csrfA }, {}],
      [a.cookie, { csrf: csrfA }, { origin: "https://evil.example" }],
      [a.cookie, { csrf: csrfA }, { origin: "null" }],
      [a.cookie, { csrf: csrfA }, { "sec-fetch-site": "cross-site" }],
      [a.cookie, { csrf: csrfA }, { "sec-fetch-site": "same-site" }],
    ];
    for (const [cookie, fields, headers] of refused) {
      const res = await post(f, "/ui/jobs/hourly/pause", cookie, fields, headers);
      assert.equal(res.status, 403, JSON.stringify([fields, headers]));
    }
    assert.equal((await f.scheduler.get("hourly"))!.paused, false, "nothing was paused");
    assert.equal((await post(f, "/ui/jobs/hourly/pause", a.cookie, { csrf: csrfA })).status, 303);
    assert.equal((await f.scheduler.get("hourly"))!.paused, true);
  });

  it("accepts an Origin matching either the request URL or the Host header (behind a proxy)", async () => {
    const f = setup();
    const { cookie } = await login(f);
    const csrf = await csrfOf(f, cookie);
    const res = await f.app.request("http://10.0.0.5:8080/ui/jobs/hourly/pause", {
      method: "POST",
      body: new URLSearchParams({ csrf }).toString(),
      headers: { ...FORM, cookie, origin: "https://cron.example", host: "cron.example" },
    });
    assert.equal(res.status, 303);
    const other = await f.app.request("http://10.0.0.5:8080/ui/jobs/hourly/resume", {
      method: "POST",
      body: new URLSearchParams({ csrf }).toString(),
      headers: { ...FORM, cookie, origin: "https://evil.example", host: "cron.example" },
    });
    assert.equal(other.status, 403);
  });

  it("refuses form posts without a session (401) and cross-site ones even in public mode", async () => {
    const f = setup();
    assert.equal((await post(f, "/ui/jobs/hourly/run", "", { csrf: "x" })).status, 401);
    const open = setup({ router: { public: true } });
    assert.equal((await post(open, "/ui/jobs/hourly/pause", "", {}, { origin: "https://evil.example" })).status, 403);
    assert.equal((await post(open, "/ui/jobs/hourly/pause", "", {}, { origin: "http://localhost" })).status, 303);
  });
});
