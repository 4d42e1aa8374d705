import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { HOUR, setup, T0 } from "./_setup.ts";

async function page(f: ReturnType<typeof setup>, path = "/"): Promise<string> {
  const res = await f.call("GET", path);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
  return res.text();
}

describe("dashboard page", () => {
  it("shows every job with its cron, words, zone, next slots, outcome and counters", async () => {
    const f = setup();
    await f.scheduler.tick();
    await f.clock.advance(HOUR);
    await f.scheduler.tick();
    const html = await page(f);
    assert.match(html, /<section class="job" data-job="hourly">/);
    assert.match(html, /<section class="job" data-job="failing">/);
    assert.match(html, /<code>0 \* \* \* \*<\/code><div class="sub" data-words>Every hour<\/div>/);
    assert.match(html, /<code>\*\/15 \* \* \* \*<\/code><div class="sub" data-words>Every 15 minutes<\/div>/);
    assert.match(html, /<dd>Europe\/Paris<\/dd>/);
    assert.match(
      html,
      new RegExp(
        `<li data-slot="${
          T0 + 2 * HOUR
        }"><time datetime="2026-11-30T14:00:00.000Z" title="Mon 30 Nov, 14:00:00 UTC">Mon 30 Nov, 15:00:00 CET</time> <span class="sub">in 1h</span></li>`,
      ),
    );
    assert.match(html, /data-job="failing">[\s\S]*?<span class="status s-error">error<\/span>[\s\S]*?boom: disk full/);
    assert.match(html, /<b>2<\/b> errors/); // T0 (the registering tick's own slot) and T0 + 1 h
    assert.match(
      html,
      /data-job="hourly">[\s\S]*?<span><b>2<\/b> runs<\/span><span><b>2<\/b> ok<\/span><span><b>0<\/b> errors<\/span>/,
    );
    const once = setup();
    await once.scheduler.tick();
    assert.match(
      await page(once),
      /data-job="failing">[\s\S]*?<span><b>1<\/b> run<\/span><span><b>0<\/b> ok<\/span><span><b>1<\/b> error<\/span>/,
      "one run, one error",
    );
  });

  it("escapes user text", async () => {
    const f = setup();
    const html = await page(f);
    assert.ok(html.includes("Hourly &lt;b&gt;report&lt;/b&gt;"));
    assert.ok(!html.includes("<b>report</b>"));
  });

  it("draws a 48 h SVG timeline with outcomes coloured and a legend", async () => {
    const f = setup();
    await f.scheduler.tick();
    for (let i = 0; i < 4; i++) {
      await f.clock.advance(HOUR / 4);
      await f.scheduler.tick();
    }
    const html = await page(f);
    const failing = html.slice(html.indexOf('data-job="failing"'));
    const svg = failing.slice(failing.indexOf("<svg"), failing.indexOf("</svg>"));
    assert.match(svg, /role="img" aria-label="Past 24 hours: 5 slots \(5 error\)\. Next 24 hours: 96 planned slots\."/);
    assert.match(
      svg,
      /<path class="mark s-error" data-status="error" data-count="5" d="M480 8v18M475 8v18M470 8v18M465 8v18M460 8v18"><title>5 error in the past 24 h<\/title>/,
    );
    assert.match(svg, /<title>96 planned in the next 24 h<\/title>/);
    assert.match(
      svg,
      new RegExp(`data-planned="96" data-until="${T0 + HOUR + 24 * HOUR}"`),
      "the planned band reaches +24 h",
    );
    for (const s of ["ok", "error", "timeout", "abandoned", "skipped", "missed", "running", "planned"]) {
      assert.ok(html.includes(`<li><span class="swatch s-${s}"></span>${s}</li>`), s);
    }
  });

  it('mounted with app.route("/cron", router), GET /cron/ redirects to /cron, which serves the dashboard', async () => {
    const f = setup({ mount: "/cron" });
    const slash = await f.call("GET", "/cron/");
    assert.equal(slash.status, 308);
    assert.equal(slash.headers.get("location"), "/cron");
    assert.equal((await f.call("GET", "/cron/jobs/?limit=1")).headers.get("location"), "/cron/jobs?limit=1");
    const page = await f.call("GET", slash.headers.get("location")!);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /data-job="hourly"/);
    // Never an open redirect, and writes are not redirected.
    assert.notEqual((await f.call("GET", "//evil.example/")).headers.get("location"), "//evil.example");
    assert.equal((await f.call("POST", "/cron/tick/")).status, 404);
  });

  it("offers run and pause (or resume when paused) forms posting to the mount path", async () => {
    const f = setup({ mount: "/cron" });
    await f.scheduler.pause("failing");
    const html = await page(f, "/cron");
    assert.match(html, /<form method="post" action="\/cron\/ui\/jobs\/hourly\/run">/);
    assert.match(html, /<form method="post" action="\/cron\/ui\/jobs\/hourly\/pause">/);
    assert.match(html, /<form method="post" action="\/cron\/ui\/jobs\/failing\/resume">/);
    assert.match(html, /data-state="paused"/);
    assert.match(html, /<a href="\/cron\/ui\/jobs\/hourly">hourly<\/a>/);
  });

  it("reloads itself every 30 s without script, dropping the notice but keeping the page", async () => {
    const f = setup({ mount: "/cron" });
    assert.match(
      await page(f, "/cron?done=run&job=hourly&result=ok"),
      /<meta http-equiv="refresh" content="30;url=\/cron">/,
    );
    assert.match(
      await page(f, "/cron?after=failing"),
      /<meta http-equiv="refresh" content="30;url=\/cron\?after=failing">/,
    );
    assert.match(
      await page(f, "/cron/ui/jobs/failing?before=5&done=run&job=failing&result=ok"),
      /<meta http-equiv="refresh" content="30;url=\/cron\/ui\/jobs\/failing\?before=5">/,
    );
  });

  it("sends a strict CSP and no-store", async () => {
    const f = setup();
    const res = await f.call("GET", "/");
    assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'none'; style-src 'unsafe-inline'/);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.ok(!(await res.text()).match(/<script|<link|src="http/), "no script and no external asset");
  });

  it("shows an empty state without jobs", async () => {
    const f = setup({ wrap: (s) => ({ ...s, list: () => Promise.resolve([]) }) });
    assert.match(await page(f), /class="empty">No jobs yet/);
  });
});

describe("dashboard job page", () => {
  it("shows the run history, next 10 slots and a pager", async () => {
    const f = setup();
    await f.scheduler.tick();
    for (let i = 0; i < 12; i++) {
      await f.clock.advance(HOUR / 4);
      await f.scheduler.tick();
    }
    const html = await page(f, "/ui/jobs/failing");
    assert.equal(
      html.match(/<tr data-slot="\d+" data-status="error">/g)?.length,
      13,
      "T0 and the 12 quarters after it",
    );
    assert.equal(html.match(/<ol class="next">(.*?)<\/ol>/)?.[1]?.match(/<li /g)?.length, 10);
    assert.match(html, /<td data-label="Error" class="err">boom: disk full<\/td>/);
    assert.ok(!html.includes("Older runs"), "13 runs fit on one page");
  });

  it("links to older runs past 50 and shows them", async () => {
    const f = setup();
    await f.scheduler.tick();
    for (let i = 0; i < 52; i++) {
      await f.clock.advance(HOUR / 4);
      await f.scheduler.tick();
    }
    const html = await page(f, "/ui/jobs/failing");
    assert.equal(html.match(/<tr data-slot/g)?.length, 50);
    const href = /<a href="([^"]+)" data-page="next">Older runs/.exec(html)?.[1];
    assert.equal(href, `/ui/jobs/failing?before=${T0 + 3 * HOUR / 4}`);
    const older = await page(f, href);
    assert.deepEqual([...older.matchAll(/<tr data-slot="(\d+)"/g)].map((m) => Number(m[1])), [
      T0 + HOUR / 2,
      T0 + HOUR / 4,
      T0,
    ]);
  });

  it("pages with the API's cursor: a negative before (runs before 1970) or an ISO instant with an offset", async () => {
    const f = setup();
    await f.scheduler.backfill("hourly", { from: -3 * HOUR, to: 0 });
    for (const before of [String(-2 * HOUR), "1969-12-31T22:00:00Z"]) {
      const older = await page(f, `/ui/jobs/hourly?before=${before}`);
      assert.deepEqual([...older.matchAll(/<tr data-slot="(-?\d+)"/g)].map((m) => Number(m[1])), [-3 * HOUR], before);
    }
  });

  it("answers a bad before with a 400 page saying what is wrong, not the newest runs", async () => {
    const f = setup({ mount: "/cron" });
    await f.scheduler.tick();
    for (const before of ["12/25", "2026-11-30T12:00:00", "-5x", "1.5"]) {
      const res = await f.call("GET", `/cron/ui/jobs/hourly?before=${encodeURIComponent(before)}`);
      assert.equal(res.status, 400, before);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
      const html = await res.text();
      assert.ok(
        html.includes(
          `<div class="notice bad" role="alert" data-bad-query="before">Bad <code>before</code> in the address: expected epoch milliseconds or an ISO-8601 instant with Z or an offset, got &quot;${before}&quot;.</div><p><a href="/cron/ui/jobs/hourly">The newest runs</a></p>`,
        ),
        before,
      );
      assert.doesNotMatch(html, /<tr data-slot/);
    }
  });

  it("answers a bad after on the overview with a 400 page, as the job page does a bad before (it showed the first page)", async () => {
    const f = setup({ mount: "/cron" });
    for (const after of ["a b", "", "a/b", ".."]) {
      const res = await f.call("GET", `/cron?after=${encodeURIComponent(after)}`);
      assert.equal(res.status, 400, after);
      const html = await res.text();
      assert.ok(
        html.includes(
          `<div class="notice bad" role="alert" data-bad-query="after">Bad <code>after</code> in the address: expected a job name, got &quot;${after}&quot;.</div><p><a href="/cron">The first jobs</a></p>`,
        ),
        html,
      );
    }
    assert.equal((await f.call("GET", "/cron?after=hourly")).status, 200);
  });

  it("shows a webhook target without its query string or credentials", async () => {
    const f = setup();
    await f.scheduler.define("hook", {
      schedule: "@hourly",
      target: { url: "https://h.example/run?key=s3cret", headers: { Authorization: "Bearer abc" } },
    });
    const html = await page(f, "/ui/jobs/hook");
    assert.match(html, /<code>POST https:\/\/h\.example\/run<\/code> <span class="sub">headers: Authorization<\/span>/);
    for (const leak of ["s3cret", "pw@", "Bearer abc"]) assert.ok(!html.includes(leak), leak);
  });

  it("answers 404 for an unknown job and 400 for a name with control characters", async () => {
    const f = setup();
    const missing = await f.call("GET", "/ui/jobs/nope");
    assert.equal(missing.status, 404);
    const html = await missing.text();
    assert.equal(html.match(/<html/g)?.length, 1, "one document");
    assert.match(html, /No job named <b>nope<\/b>/);
    const bad = await f.call("GET", "/ui/jobs/a%1Bb");
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { path: string } }).error.path, "params.name");
  });
});

describe("dashboard cache", () => {
  it("drops cached pages when a dashboard form acts", async () => {
    const f = setup();
    assert.match(await page(f), /data-job="hourly">[\s\S]*?data-state="active"/);
    const res = await f.call("POST", "/ui/jobs/hourly/pause", {
      body: new URLSearchParams({ csrf: "", back: "home" }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(res.status, 303);
    assert.match(
      await page(f),
      /data-job="hourly">[\s\S]*?data-state="paused"/,
      "the overview shows the pause at once",
    );
  });
});

describe("dashboard cost", () => {
  /** A memory store that counts every call, and a scheduler with `n` jobs on it. */
  async function world(n: number) {
    const { createManualClock, createScheduler } = await import("../../src/engine/mod.ts");
    const { createMemoryStore } = await import("../../src/store/mod.ts");
    const { edgecronRouter } = await import("../../src/http/mod.ts");
    const inner = createMemoryStore();
    const calls: string[] = [];
    const store = new Proxy(inner, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        return typeof value === "function"
          ? (...args: unknown[]) => (calls.push(String(key)), value.apply(target, args))
          : value;
      },
    });
    const clock = createManualClock(T0);
    const scheduler = createScheduler({ clock, store, logger: { debug() {}, info() {}, warn() {}, error() {} } });
    for (let i = 0; i < n; i++) {
      scheduler.job(`job-${String(i).padStart(4, "0")}`, { schedule: "*/15 * * * *", run: () => {} });
    }
    await scheduler.tick();
    await clock.advance(HOUR);
    await scheduler.tick();
    const app = edgecronRouter(scheduler, { public: true, now: clock.now, cacheTtl: 0 });
    return { scheduler, app, calls };
  }

  it("reads the store as many times for 1 000 jobs as for 1 (the engine's list), and never writes", async () => {
    const one = await world(1);
    const many = await world(1000);
    const cost = async (w: Awaited<ReturnType<typeof world>>, path: string): Promise<string[]> => {
      w.calls.length = 0;
      assert.equal((await w.app.request(path)).status, 200);
      return [...w.calls];
    };
    for (const path of ["/", "/jobs"]) {
      const few = await cost(one, path);
      const lots = await cost(many, path);
      assert.equal(lots.length, few.length, `${path}: 1 job: ${few.join(",")}; 1 000 jobs: ${lots.join(",")}`);
      assert.deepEqual(
        lots.filter((c) => c !== "getSetting").sort(),
        ["listDefs", "overview", "read"],
        `${path}: three store reads (the page's definitions, state and history)`,
      );
      for (const write of ["snapshot", "claim", "update", "setPaused", "putDef"]) {
        assert.ok(!lots.includes(write), `${path}: no ${write}`);
      }
    }
  });
});

describe("dashboard with the store down", () => {
  it("answers its pages and forms with an HTML 503 page saying to retry; the API keeps its JSON 503", async () => {
    // They answered the API's JSON body: a browser showed raw JSON.
    const f = setup({ mount: "/cron" });
    f.store.setFailing(true);
    const form = { "content-type": "application/x-www-form-urlencoded" };
    for (
      const [method, path, again] of [
        ["GET", "/cron", "/cron"],
        ["GET", "/cron/ui/jobs/hourly?before=0", "/cron/ui/jobs/hourly?before=0"],
        ["POST", "/cron/ui/jobs/hourly/run", "/cron"],
      ] as const
    ) {
      const res = await f.call(method, path, method === "POST" ? { body: "", headers: form } : {});
      assert.equal(res.status, 503, path);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/, path);
      assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'none'/, path);
      assert.equal(res.headers.get("cache-control"), "no-store", path);
      const html = await res.text();
      assert.match(html, /<title>Unavailable · edgecron<\/title>/, path);
      assert.match(html, /<div class="notice bad" role="alert">The store cannot be reached/, path);
      assert.ok(html.includes(`<a href="${again}">Try again</a>`), `${path}: ${html}`);
    }
    const api = await f.call("GET", "/cron/jobs");
    assert.equal(api.status, 503);
    assert.equal(((await api.json()) as { error: { code: string } }).error.code, "store-error");
  });
});
