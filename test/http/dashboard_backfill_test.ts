// The job page's backfill form: CSRF like the other actions, a notice with the planned count.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { HOUR, setup, T0, TOKEN } from "./_setup.ts";

type F = ReturnType<typeof setup>;
const FORM = { "content-type": "application/x-www-form-urlencoded" };

async function login(f: F): Promise<string> {
  const res = await f.call("POST", "/ui/login", {
    auth: false,
    body: new URLSearchParams({ token: TOKEN }).toString(),
    headers: FORM,
  });
  return (res.headers.get("set-cookie") ?? "").split(";")[0]!;
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

describe("dashboard backfill form", () => {
  it("the job page has the form; posting it starts the backfill and returns with the planned count", async () => {
    const f = setup();
    const cookie = await login(f);
    const html = await (await f.call("GET", "/ui/jobs/hourly", { auth: false, headers: { cookie } })).text();
    assert.match(
      html,
      /<form method="post" action="\/ui\/jobs\/hourly\/backfill" class="backfill"><input type="hidden" name="csrf" value="[0-9a-f]{64}">/,
    );
    const csrf =
      /action="\/ui\/jobs\/hourly\/backfill" class="backfill"><input type="hidden" name="csrf" value="([0-9a-f]{64})"/
        .exec(html)![1]!;
    const from = new Date(T0 - 2 * HOUR).toISOString();
    const res = await post(f, "/ui/jobs/hourly/backfill", cookie, { csrf, from, to: String(T0), rerun: "1" });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/ui/jobs/hourly?done=backfill&job=hourly&result=planned-2");
    const notice = await (await f.call("GET", res.headers.get("location")!, { auth: false, headers: { cookie } }))
      .text();
    assert.match(notice, /data-notice="planned-2">Backfill of <b>hourly<\/b> started: 2 slots/);
    for (let i = 0; i < 50 && (await f.store.runs("hourly")).filter((r) => r.status === "ok").length < 2; i++) {
      await f.clock.settle();
    }
    assert.deepEqual((await f.store.runs("hourly")).map((r) => [r.slot, r.kind]), [[T0 - HOUR, "backfill"], [
      T0 - 2 * HOUR,
      "backfill",
    ]]);
  });

  it("a refusal answers the job page with the API's status and sentence in the notice, escaped", async () => {
    // It redirected to a notice of the code alone: "Could not backfill hourly: invalid spec".
    const f = setup();
    const cookie = await login(f);
    const page = await (await f.call("GET", "/ui/jobs/hourly", { auth: false, headers: { cookie } })).text();
    const csrf =
      /action="\/ui\/jobs\/hourly\/backfill" class="backfill"><input type="hidden" name="csrf" value="([0-9a-f]{64})"/
        .exec(page)![1]!;
    const iso = (ms: number): string => new Date(ms).toISOString();
    for (
      const [from, to] of [
        [iso(T0 - HOUR), iso(T0 - 2 * HOUR)], // reversed
        [iso(Date.UTC(2020, 0, 1)), iso(T0)], // more than 10 000 slots
        [iso(T0 - HOUR), iso(T0 + 48 * HOUR)], // to in the future
        ["soon", String(T0)], // no instant
        ["<script>alert(1)</script>", String(T0)], // quoted back: escaped
      ] as const
    ) {
      const api = await f.call("POST", "/jobs/hourly/backfill", {
        body: JSON.stringify({ from, to }),
        headers: { "content-type": "application/json" },
      });
      const { error } = await api.json() as { error: { code: string; message: string } };
      const res = await post(f, "/ui/jobs/hourly/backfill", cookie, { csrf, from, to });
      assert.equal(res.status, api.status, from);
      assert.equal(res.headers.get("location"), null);
      const html = await res.text();
      const text = error.message.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(
        /"/g,
        "&quot;",
      );
      assert.ok(
        html.includes(`data-notice="${error.code}">Could not backfill <b>hourly</b>: ${text}</div>`),
        `${error.message}\n${html}`,
      );
      assert.ok(!html.includes("<script>"), "the quoted text is escaped");
      // The page refreshes itself to the job page, not to the form's address.
      assert.match(html, /http-equiv="refresh" content="30;url=\/ui\/jobs\/hourly"/);
    }
    assert.deepEqual(await f.store.runs("hourly"), []);
  });

  it("a refusal's notice is never read from the URL: only the form's own answer shows it", async () => {
    const f = setup();
    const page = await (await f.call("GET", "/ui/jobs/hourly?done=backfill&job=hourly&result=invalid-spec&message=x"))
      .text();
    assert.ok(!page.includes("data-notice"), page);
  });

  it("refuses a stale CSRF token or a cross-site post and starts nothing", async () => {
    const f = setup();
    const cookie = await login(f);
    const fields = { from: new Date(T0 - 2 * HOUR).toISOString(), to: String(T0) };
    assert.equal((await post(f, "/ui/jobs/hourly/backfill", cookie, { ...fields, csrf: "0".repeat(64) })).status, 403);
    assert.equal(
      (await post(f, "/ui/jobs/hourly/backfill", cookie, { ...fields, csrf: "x" }, { origin: "https://evil.example" }))
        .status,
      403,
    );
    assert.equal((await post(f, "/ui/jobs/hourly/backfill", "", fields)).status, 401);
    assert.deepEqual(await f.store.runs("hourly"), []);
  });

  it("says a paused job is paused (not an invalid spec), and a store failure is a 503, not a notice", async () => {
    const f = setup();
    await f.scheduler.pause("hourly");
    const fields = new URLSearchParams({ from: new Date(T0 - 2 * HOUR).toISOString(), to: String(T0) }).toString();
    const res = await f.call("POST", "/ui/jobs/hourly/backfill", { body: fields, headers: FORM });
    assert.equal(res.status, 409);
    assert.match(
      await res.text(),
      /class="notice bad" role="status" data-notice="conflict">Could not backfill <b>hourly<\/b>: backfill: job &quot;hourly&quot; is paused; resume it, then backfill</,
    );
    const down = setup({
      wrap: (s) => ({
        ...s,
        backfill: () => Promise.reject(new SchedulerError("store-error", "libsql: connect refused")),
      }),
    });
    const failed = await down.call("POST", "/ui/jobs/hourly/backfill", { body: fields, headers: FORM });
    assert.equal(failed.status, 503);
  });
});
