// The API's shape: JSON errors everywhere, ISO-8601 beside every instant, body-relative
// error paths, paging, compression and the read cache.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { withIso } from "../../src/http/_iso.ts";
import { errorOf, HOUR, json, setup, T0 } from "./_setup.ts";

const iso = (ms: number): string => new Date(ms).toISOString();

describe("JSON errors", () => {
  it("answers an unknown route with a JSON 404", async () => {
    const f = setup();
    for (const [method, path] of [["GET", "/nope"], ["POST", "/jobs/x/explode"], ["GET", "/jobs/x/runs/y"]] as const) {
      const res = await f.call(method, path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal((await errorOf(res)).code, "not-found");
    }
  });

  it("answers a route asked with another method with a 405 naming the methods it takes", async () => {
    // It was a 404 "no route": a client that sent PATCH instead of PUT was told the job's path did not exist.
    const f = setup();
    for (
      const [method, path, allow] of [
        ["DELETE", "/tick", "POST"],
        ["PATCH", "/jobs/x", "GET, HEAD, PUT, DELETE"],
        ["GET", "/jobs/x/pause", "POST"],
        ["PUT", "/health", "GET, HEAD"],
        ["DELETE", "/openapi.json", undefined],
      ] as const
    ) {
      const res = await f.call(method, path);
      if (allow === undefined) {
        // No openapi option: no such route at all (and "." is not a wildcard: /openapiXjson neither).
        assert.equal(res.status, 404, path);
        continue;
      }
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get("allow"), allow);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      const error = await errorOf(res);
      assert.equal(error.code, "method-not-allowed");
      assert.equal(error.message, `${method} ${path}: not allowed; it takes ${allow}`);
    }
    const dotted = setup({ router: { openapi: "{}" } });
    assert.equal((await dotted.call("DELETE", "/openapi.json")).status, 405);
    assert.equal((await dotted.call("DELETE", "/openapiXjson")).status, 404);
  });

  it("compiles the routes' paths for the 405 answer once, not per request", async () => {
    const f = setup();
    await f.call("PATCH", "/jobs/x");
    const Native = globalThis.RegExp;
    let built = 0;
    globalThis.RegExp = new Proxy(Native, {
      construct(target, args, newTarget) {
        built++;
        return Reflect.construct(target, args, newTarget);
      },
    });
    try {
      for (const [method, path] of [["PATCH", "/jobs/x"], ["DELETE", "/tick"], ["GET", "/nope"]] as const) {
        assert.notEqual((await f.call(method, path)).status, 200, path);
      }
    } finally {
      globalThis.RegExp = Native;
    }
    assert.equal(built, 0, "no RegExp built while answering 405 and 404");
  });

  it("names the body's own field for a bad cron in POST /jobs, not the engine's jobs.<name> path", async () => {
    const f = setup();
    const res = await f.call(
      "POST",
      "/jobs",
      json({ name: "x", schedule: "61 * * * *", target: { url: "https://h.example/" } }),
    );
    assert.equal(res.status, 400);
    const error = await errorOf(res);
    assert.equal(error.path, "schedule");
    // One code, one path, one sentence: no code repeated in the message, none stacked.
    assert.equal(error.code, "invalid-spec");
    assert.equal(error.message, 'schedule: minute must be 0-59, got "61"');
    const put = await f.call(
      "PUT",
      "/jobs/y",
      json({ schedule: { cron: "0 0 30 2 *" }, target: { url: "https://h.example/" } }),
    );
    assert.equal((await errorOf(put)).path, "schedule");
  });

  it("one code, one path, one sentence: tz gets a did-you-mean, a zone typo its nearest names, a bad run mode its choices", async () => {
    const f = setup();
    const post = async (body: unknown) => errorOf(await f.call("POST", "/jobs", json(body)));
    const hook = { name: "x", schedule: "* * * * *", target: { url: "https://h.example/" } };
    assert.deepEqual(await post({ ...hook, tz: "UTC" }), {
      code: "invalid-spec",
      message: 'tz: unknown field; did you mean "timezone"?',
      path: "tz",
    });
    assert.deepEqual(await post({ ...hook, timezone: "Europe/Pariss" }), {
      code: "invalid-spec",
      message: 'timezone: unknown time zone "Europe/Pariss"; did you mean "Europe/Paris"?',
      path: "timezone",
    });
    const run = await errorOf(await f.call("POST", "/jobs/hourly/run", json({ mode: "now" })));
    assert.deepEqual(run, {
      code: "invalid-request",
      message:
        'mode: expected "force" (run now, whatever the schedule; the default) or "due" (run the slot that is due, if one is), got "now"',
      path: "mode",
    });
    assert.doesNotMatch(run.message, /Invalid type|Expected \(/, "not valibot's own text");
  });

  it("a wrong type in an action's body is said in the API's words, quoting what was sent", async () => {
    // Valibot's own text came through ("Invalid type: Expected string but received 5"), and
    // 1e999 (Infinity once parsed) was quoted as "null", then as "Infinity".
    const f = setup();
    const message = async (path: string, body: string) =>
      (await errorOf(await f.call("POST", path, { body, headers: { "content-type": "application/json" } }))).message;
    assert.equal(await message("/jobs/hourly/pause", '{"note":5}'), "note: expected string, got 5");
    assert.equal(
      await message("/jobs/hourly/backfill", '{"from":0,"to":1,"overlap":"cancelOther"}'),
      'overlap: expected ("bufferAll" | "bufferOne" | "skip" | "allow"), got "cancelOther"',
    );
    assert.equal(
      await message("/jobs/hourly/backfill", '{"from":0,"to":1,"rerun":"yes"}'),
      'rerun: expected boolean, got "yes"',
    );
    assert.equal(
      await message("/jobs/hourly/run", '{"mode":1e999}'),
      'mode: expected a finite number, got "1e999" (out of range)',
    );
  });

  it("an unknown field of a request body or query suggests a field that route takes, never a job field", async () => {
    const f = setup();
    const message = async (method: string, path: string, body?: unknown) =>
      (await errorOf(await f.call(method, path, body === undefined ? {} : json(body)))).message;
    assert.equal(
      await message("POST", "/jobs/hourly/pause", { notes: "x" }),
      'notes: unknown field; did you mean "note"?',
    );
    // The job field "timeout" is no field of a pause body.
    assert.equal(await message("POST", "/jobs/hourly/pause", { timout: "x" }), "timout: unknown field");
    assert.equal(
      await message("POST", "/jobs/hourly/backfill", { from: 0, to: 1, rerum: true }),
      'rerum: unknown field; did you mean "rerun"?',
    );
    assert.equal(await message("GET", "/jobs?lmit=2"), 'query.lmit: unknown field; did you mean "limit"?');
    assert.equal(
      await message("GET", "/jobs/hourly/runs?befor=1"),
      'query.befor: unknown field; did you mean "before"?',
    );
    assert.equal(
      await message("PUT", "/jobs/hook?ifversion=1", { schedule: "@hourly", target: { url: "https://h.example/" } }),
      'query.ifversion: unknown field; did you mean "ifVersion"?',
    );
  });

  it("refuses a stale PUT ?ifVersion with 409 and does not report the store as failed", async () => {
    const f = setup();
    const spec = { schedule: "@hourly", target: { url: "https://h.example/" } };
    assert.equal((await f.call("PUT", "/jobs/hook", json(spec))).status, 201);
    assert.equal((await f.call("PUT", "/jobs/hook?ifVersion=1", json(spec))).status, 200);
    const stale = await f.call("PUT", "/jobs/hook?ifVersion=1", json(spec));
    assert.equal(stale.status, 409);
    assert.equal((await errorOf(stale)).code, "conflict");
    assert.equal((await f.scheduler.health()).ok, true, "a conflict is not a store failure");
  });
});

describe("instants as epoch ms and ISO-8601", () => {
  it("adds an …Iso sibling to every instant of jobs, runs, health and tick reports", async () => {
    const f = setup();
    await f.scheduler.tick();
    await f.clock.advance(HOUR);
    const tick = await (await f.call("POST", "/tick")).json() as {
      now: number;
      nowIso: string;
      jobs: Record<string, { run: number[]; runIso: string[] }>;
    };
    assert.equal(tick.nowIso, iso(T0 + HOUR));
    assert.deepEqual(tick.jobs.hourly!.runIso, [iso(T0 + HOUR)]);
    const job = await (await f.call("GET", "/jobs/hourly?next=2")).json() as Record<string, unknown>;
    assert.deepEqual(job.nextIso, [iso(T0 + 2 * HOUR), iso(T0 + 3 * HOUR)]);
    const last = job.lastOutcome as Record<string, unknown>;
    for (const key of ["slot", "claimedAt", "startedAt", "finishedAt"]) {
      assert.equal(last[`${key}Iso`], iso(last[key] as number), key);
    }
    assert.equal(last.leaseUntilIso, null);
    assert.equal((job.counters as Record<string, unknown>).missedIso, undefined, "counts are not instants");
    const runs = await (await f.call("GET", "/jobs/hourly/runs?limit=1")).json() as {
      runs: { slotIso: string }[];
      nextBeforeIso: string;
    };
    assert.equal(runs.runs[0]!.slotIso, iso(T0 + HOUR));
    assert.equal(runs.nextBeforeIso, iso(T0 + HOUR));
    const health = await (await f.call("GET", "/health")).json() as { lastTickIso: string };
    assert.equal(health.lastTickIso, iso(T0 + HOUR));
  });

  it("keeps user data as sent and a job named __proto__ as a plain key", () => {
    const out = withIso({ jobs: JSON.parse('{"__proto__":{"run":[0]}}'), payload: { slot: 1 } }) as Record<
      string,
      Record<string, unknown>
    >;
    assert.deepEqual(Object.keys(out.jobs!), ["__proto__"]);
    assert.deepEqual((out.jobs!["__proto__"] as Record<string, unknown>).runIso, ["1970-01-01T00:00:00.000Z"]);
    assert.deepEqual(out.payload, { slot: 1 });
  });

  it("names a field of a schedule object once (it said `schedule.every: interval: …`)", async () => {
    const f = setup();
    const target = { url: "https://example.test/" };
    for (const method of ["PUT", "POST"] as const) {
      const body = { ...(method === "POST" ? { name: "pl" } : {}), schedule: { every: "1x" }, target };
      const res = await f.call(method, method === "PUT" ? "/jobs/pl" : "/jobs", json(body));
      assert.equal(res.status, 400);
      const error = await errorOf(res);
      assert.equal(error.path, "schedule.every");
      assert.equal(error.message, 'schedule.every: expected a duration like "30s", got "1x"');
    }
  });

  it('refuses a bad instant on every route that takes one saying what an HTTP client can send, not "a Date"', async () => {
    // The core's words are for library callers; JSON and queries carry no Date.
    const f = setup();
    const target = { url: "https://example.test/" };
    const cases: [string, string, object | undefined, string][] = [
      ["POST", "/jobs/hourly/backfill", { from: "yesterday", to: T0 }, "from"],
      ["POST", "/jobs/hourly/backfill", { from: T0, to: "2026-12-01T00:00" }, "to"],
      ["POST", "/jobs/hourly/backfill", { from: true, to: T0 }, "from"],
      ["PUT", "/jobs/w", { schedule: "@daily", target, startAt: "yesterday" }, "startAt"],
      ["PUT", "/jobs/w", { schedule: "@daily", target, endAt: "tomorrow" }, "endAt"],
      ["PUT", "/jobs/w", { schedule: { cron: "@daily", startAt: "soon" }, target }, "startAt"],
      ["PUT", "/jobs/w", { schedule: { at: "soon" }, target }, "schedule.at"],
      ["POST", "/jobs", { name: "w", schedule: { every: "1h", anchor: "noon" }, target }, "schedule.anchor"],
      ["GET", "/jobs/hourly/runs?before=yesterday", undefined, "query.before"],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await f.call(method, path, body === undefined ? {} : json(body));
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}`);
      const { message } = await errorOf(res);
      assert.ok(
        message.startsWith(`${field}: expected epoch milliseconds or an ISO-8601 instant with Z or an offset`),
        message,
      );
      assert.doesNotMatch(message, /Date/);
    }
  });
});

describe("GET /jobs paging", () => {
  it("pages jobs by name with a cursor, 100 at most", async () => {
    const f = setup();
    for (let i = 0; i < 3; i++) f.scheduler.job(`job-${i}`, { schedule: "@daily", run: () => {} });
    const first = await (await f.call("GET", "/jobs?limit=2")).json() as {
      jobs: { name: string }[];
      nextAfter: string;
    };
    assert.deepEqual(first.jobs.map((j) => j.name), ["failing", "hourly"]);
    assert.equal(first.nextAfter, "hourly");
    const second = await (await f.call("GET", `/jobs?limit=2&after=${first.nextAfter}`)).json() as {
      jobs: { name: string }[];
      nextAfter: string;
    };
    assert.deepEqual(second.jobs.map((j) => j.name), ["job-0", "job-1"]);
    const last = await (await f.call("GET", `/jobs?limit=2&after=${second.nextAfter}`)).json() as {
      jobs: { name: string }[];
      nextAfter: string | null;
    };
    assert.deepEqual(last.jobs.map((j) => j.name), ["job-2"]);
    assert.equal(last.nextAfter, null);
    // Over the maximum: a 400 naming the parameter, the maximum and what was sent.
    for (const path of ["/jobs?limit=101", "/jobs/hourly/runs?limit=101", "/jobs?next=1000"]) {
      const field = path.includes("next") ? "next" : "limit";
      assert.deepEqual(await errorOf(await f.call("GET", path)), {
        code: "invalid-request",
        message: `query.${field}: expected a whole number from 1 to 100, got "${path.split("=")[1]}"`,
        path: `query.${field}`,
      });
    }
  });

  it("lists no next slots for a paused job", async () => {
    const f = setup();
    await f.scheduler.pause("hourly");
    const { jobs } = await (await f.call("GET", "/jobs")).json() as { jobs: { name: string; next: number[] }[] };
    assert.deepEqual(jobs.find((j) => j.name === "hourly")!.next, []);
    assert.deepEqual((await (await f.call("GET", "/jobs/hourly")).json() as { next: number[] }).next, []);
  });
});

describe("compression and the read cache", () => {
  it("gzips large answers for clients that accept it and leaves tiny ones alone", async () => {
    const f = setup();
    for (let i = 0; i < 20; i++) f.scheduler.job(`bulk-${i}`, { schedule: "*/5 * * * *", run: () => {} });
    const big = await f.call("GET", "/jobs", { headers: { "accept-encoding": "gzip, br" } });
    assert.equal(big.headers.get("content-encoding"), "gzip");
    assert.match(big.headers.get("vary") ?? "", /accept-encoding/i);
    const bytes = new Uint8Array(await big.arrayBuffer());
    assert.equal(Number(big.headers.get("content-length")), bytes.byteLength);
    const body = JSON.parse(gunzipSync(bytes).toString()) as { jobs: unknown[] };
    assert.equal(body.jobs.length, 22);
    const plain = await f.call("GET", "/jobs");
    assert.equal(plain.headers.get("content-encoding"), null, "no Accept-Encoding: identity");
    const tiny = await f.call("GET", "/health", { headers: { "accept-encoding": "gzip" } });
    assert.equal(tiny.headers.get("content-encoding"), null, "under 1 KiB: not compressed");
    assert.equal((await tiny.json() as { ok: boolean }).ok, true);
  });

  it("serves a read from the cache until the next tick or a write, and never past cacheTtl", async () => {
    const f = setup({ router: { cacheTtl: "1m" } });
    let lists = 0;
    const list = f.scheduler.list.bind(f.scheduler);
    f.scheduler.list = (o) => (lists++, list(o));
    await f.call("GET", "/jobs");
    await f.call("GET", "/jobs");
    assert.equal(lists, 1, "the second read is a cache hit");
    await f.call("POST", "/jobs/hourly/pause");
    const paused = await (await f.call("GET", "/jobs")).json() as { jobs: { name: string; paused: boolean }[] };
    assert.equal(paused.jobs.find((j) => j.name === "hourly")!.paused, true, "a write clears the cache");
    assert.equal(lists, 2);
    await f.scheduler.tick();
    await f.call("GET", "/jobs");
    assert.equal(lists, 3, "a tick starts a new generation: what a tick wrote is read at once");
    await f.clock.advance(30_000);
    await f.call("GET", "/jobs");
    assert.equal(lists, 3, "no tick since: the same generation, within the ttl");
    await f.clock.advance(31_000);
    await f.call("GET", "/jobs");
    assert.equal(lists, 4, "ttl");
    assert.equal((await f.call("GET", "/jobs", { auth: false })).status, 401, "auth comes before the cache");
  });
});

describe("list({ window }) upcoming", () => {
  it("counts every fire of a dense schedule over the window, the same as walking it", async () => {
    const f = setup();
    f.scheduler.job("every-5s", { schedule: { every: "5s" }, run: () => {} });
    f.scheduler.job("every-7m", { schedule: { every: "7m", anchor: T0 + 1_000 }, run: () => {} });
    const now = f.clock.now();
    for (const name of ["every-5s", "every-7m"]) {
      const info = (await f.scheduler.get(name, { window: 24 * HOUR }))!;
      const walked = [
        ...(await import("../../src/core/schedule.ts")).schedule(info.spec).between(now, now + 24 * HOUR),
      ];
      assert.equal(info.upcoming?.count, walked.length, name);
      assert.equal(info.upcoming?.last, walked.at(-1), name);
      assert.deepEqual(info.upcoming?.slots, walked.slice(0, 200), name);
    }
  });
});

describe("acceptsGzip", () => {
  it("reads Accept-Encoding lists, with and without q values", async () => {
    const { acceptsGzip } = await import("../../src/http/_compress.ts");
    for (const yes of ["gzip", "gzip, deflate, br", "br;q=1, gzip;q=0.5", "deflate,gzip", "GZIP", "gzip;q=1"]) {
      assert.equal(acceptsGzip(yes), true, yes);
    }
    for (const no of [undefined, "", "br", "gzip;q=0", "gzip; q=0.0, br", "x-gzip2"]) {
      assert.equal(acceptsGzip(no), false, String(no));
    }
  });
});
