// POST /jobs/:name/pause { note }: shown in the job (API and dashboard) until resume.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { errorOf, json, setup, T0 } from "./_setup.ts";

describe("POST /jobs/:name/pause with a note", () => {
  it("the job shows pause { note, at, atIso, by: api } until it resumes; the dashboard shows it", async () => {
    const f = setup();
    const res = await f.call("POST", "/jobs/hourly/pause", json({ note: "migrating <the> database" }));
    assert.deepEqual(await res.json(), { job: "hourly", paused: true });
    const job = await (await f.call("GET", "/jobs/hourly")).json() as { pause?: unknown };
    assert.deepEqual(job.pause, {
      note: "migrating <the> database",
      at: T0,
      atIso: new Date(T0).toISOString(),
      by: "api",
    });
    const page = await (await f.call("GET", "/ui/jobs/hourly")).text();
    assert.match(
      page,
      /<p class="sub pause-note" data-pause-by="api">Paused <time[^>]*>[^<]*<\/time> \([^)]*\) by <b>api<\/b>: migrating &lt;the&gt; database<\/p>/,
    );
    await f.call("POST", "/jobs/hourly/resume");
    assert.equal(((await (await f.call("GET", "/jobs/hourly")).json()) as { pause?: unknown }).pause, undefined);
  });

  it("refuses a note over 500 characters with 400 naming note", async () => {
    const f = setup();
    const res = await f.call("POST", "/jobs/hourly/pause", json({ note: "x".repeat(501) }));
    assert.equal(res.status, 400);
    assert.equal((await errorOf(res)).path, "note");
  });

  it("refuses a note with a lone surrogate (libSQL stored it as U+FFFD: a 200, then another note), keeps a whole pair", async () => {
    const f = setup();
    for (const note of ["stop\ud800now", "stop\udc00", "\udc00\ud800"]) {
      const res = await f.call("POST", "/jobs/hourly/pause", json({ note }));
      assert.equal(res.status, 400, JSON.stringify(note));
      assert.deepEqual(await errorOf(res), {
        code: "invalid-request",
        message: "note: must not contain a lone surrogate (half of a UTF-16 pair)",
        path: "note",
      });
    }
    assert.equal((await f.scheduler.get("hourly"))!.paused, false);
    assert.equal((await f.call("POST", "/jobs/hourly/pause", json({ note: "deploy \ud83d\ude80" }))).status, 200);
    assert.equal((await f.scheduler.get("hourly"))!.pause?.note, "deploy \u{1f680}");
  });
});

describe("the dashboard's pause form refuses the notes the API refuses", () => {
  const FORM = { "content-type": "application/x-www-form-urlencoded" };
  const pauseForm = (f: ReturnType<typeof setup>, note: string): Promise<Response> =>
    f.call("POST", "/ui/jobs/hourly/pause", {
      body: new URLSearchParams({ note, back: "job" }).toString(),
      headers: FORM,
    });

  for (
    const [what, note] of [
      ["a note over 500 characters (it was cut to 500)", "x".repeat(5000)],
      ["a note with a control character (it was a raw JSON 400)", "stop\u0001now"],
    ] as const
  ) {
    it(`${what}: the job page with the API's status and sentence in a notice, the job not paused`, async () => {
      // The notice said a code of the form's own: "note over 500 characters".
      const f = setup();
      const api = await f.call("POST", "/jobs/hourly/pause", json({ note }));
      assert.equal(api.status, 400, "the API refuses it too");
      const { error } = await api.json() as { error: { code: string; message: string } };
      const res = await pauseForm(f, note);
      assert.equal(res.status, 400);
      assert.equal((await f.scheduler.get("hourly"))!.paused, false);
      const page = await res.text();
      assert.ok(
        page.includes(`data-notice="${error.code}">Could not pause <b>hourly</b>: ${error.message}</div>`),
        page,
      );
      assert.deepEqual(f.errors, []);
    });
  }

  it("takes a 500-character note whole, as the API does", async () => {
    const f = setup();
    const note = "y".repeat(500);
    const res = await pauseForm(f, `  ${note}  `);
    assert.equal(res.headers.get("location"), "/ui/jobs/hourly?done=pause&job=hourly&result=paused");
    const job = await (await f.call("GET", "/jobs/hourly")).json() as { pause?: { note: string; by: string } };
    assert.deepEqual({ note: job.pause?.note, by: job.pause?.by }, { note, by: "dashboard" });
  });
});
