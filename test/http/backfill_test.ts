// POST /jobs/:name/backfill: 202 with the planned count, the slots run after the answer.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { errorOf, HOUR, json, setup, T0 } from "./_setup.ts";

describe("POST /jobs/:name/backfill", () => {
  it("answers 202 with the planned slots at once; the runs show in the history as kind backfill", async () => {
    const f = setup();
    const res = await f.call(
      "POST",
      "/jobs/hourly/backfill",
      json({ from: new Date(T0 - 3 * HOUR).toISOString(), to: T0 }),
    );
    assert.equal(res.status, 202);
    const body = await res.json() as Record<string, unknown>;
    assert.deepEqual(body, {
      job: "hourly",
      planned: 3,
      first: T0 - 3 * HOUR,
      firstIso: new Date(T0 - 3 * HOUR).toISOString(),
      last: T0 - HOUR,
      lastIso: new Date(T0 - HOUR).toISOString(),
    });
    for (let i = 0; i < 50 && (await f.store.runs("hourly")).filter((r) => r.status === "ok").length < 3; i++) {
      await f.clock.settle();
    }
    const runs = await (await f.call("GET", "/jobs/hourly/runs")).json() as {
      runs: { slot: number; kind: string; status: string }[];
    };
    assert.deepEqual(runs.runs.map((r) => [r.slot, r.kind, r.status]), [
      [T0 - HOUR, "backfill", "ok"],
      [T0 - 2 * HOUR, "backfill", "ok"],
      [T0 - 3 * HOUR, "backfill", "ok"],
    ]);
  });

  it("refuses bad input with 400 naming the field, an unknown job with 404, and needs the token", async () => {
    const f = setup();
    const reversed = await f.call("POST", "/jobs/hourly/backfill", json({ from: T0, to: T0 - HOUR }));
    assert.equal(reversed.status, 400);
    const error = await errorOf(reversed);
    assert.deepEqual([error.code, error.path], ["invalid-spec", "to"]);
    const extra = await f.call("POST", "/jobs/hourly/backfill", json({ from: T0 - HOUR, to: T0, force: true }));
    assert.equal(extra.status, 400);
    const badFrom = await f.call("POST", "/jobs/hourly/backfill", json({ from: "last tuesday", to: T0 }));
    assert.equal(badFrom.status, 400);
    assert.match((await errorOf(badFrom)).message, /from: .*"last tuesday"/);
    const tooMany = await f.call("POST", "/jobs/failing/backfill", json({ from: T0 - 200 * 24 * HOUR, to: T0 }));
    assert.equal(tooMany.status, 400);
    assert.match((await errorOf(tooMany)).message, /more than 10000 slots/);
    assert.equal((await f.call("POST", "/jobs/nope/backfill", json({ from: T0 - HOUR, to: T0 }))).status, 404);
    assert.equal(
      (await f.call("POST", "/jobs/hourly/backfill", { ...json({ from: T0 - HOUR, to: T0 }), auth: false })).status,
      401,
    );
    assert.deepEqual(await f.store.runs("hourly"), [], "nothing ran");
    // Refused requests are the caller's to fix: their answers say so, the server logs no error.
    assert.deepEqual(f.errors, []);
  });

  it("logs a backfill that fails after its answer: the caller had its 202 and hears nothing more", async () => {
    const f = setup({
      wrap: (s) => ({
        ...s,
        backfill: async (name, options) => {
          options?.onPlan?.([T0 - HOUR]);
          throw new Error(`the store went away during the backfill of ${name}`);
        },
      }),
    });
    const res = await f.call("POST", "/jobs/hourly/backfill", json({ from: T0 - HOUR, to: T0 }));
    assert.equal(res.status, 202);
    await f.clock.settle();
    assert.deepEqual(f.errors.map((e) => [e.message, e.fields?.["error"]]), [
      ['http: backfill of "hourly" failed', "the store went away during the backfill of hourly"],
    ]);
  });
});
