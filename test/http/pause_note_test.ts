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
});
