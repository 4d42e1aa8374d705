import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { createMemoryStore } from "../../src/store/memory/mod.ts";
import { MIN, rows, setup, T0, tickAt } from "./_helpers.ts";
import { faultyStore } from "./_faulty.ts";

function fetchSpy(status = 200) {
  const calls: Request[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    calls.push(new Request(input, init));
    return Promise.resolve(new Response("ok", { status }));
  };
  return { calls, fetch: fetch as typeof globalThis.fetch };
}

const hook = { schedule: "*/5 * * * *", target: { url: "https://example.test/hook", method: "POST" as const } };

describe("data-defined jobs", () => {
  it("define() validates and stores the job; ticks deliver its webhook, signed", async () => {
    const spy = fetchSpy();
    const s = setup({ fetch: spy.fetch, webhookSecret: "s3cret" });
    const info = await s.scheduler.define("hook", hook);
    assert.equal(info.source, "data");
    assert.equal(info.def?.version, 1);
    assert.deepEqual(info.next.slice(0, 2), [T0 + 5 * MIN, T0 + 10 * MIN]);
    const report = await tickAt(s, T0 + 5 * MIN);
    assert.equal(report.jobs["hook"]!.outcomes[T0 + 5 * MIN], "ok");
    assert.equal(spy.calls.length, 1);
    assert.equal(spy.calls[0]!.url, "https://example.test/hook");
    assert.equal(spy.calls[0]!.headers.get("edgecron-job"), "hook");
    assert.match(spy.calls[0]!.headers.get("edgecron-signature") ?? "", /^t=\d+,v1=[0-9a-f]{64},v2=[0-9a-f]{64}$/);
  });

  it("another node sharing the store runs the definition on its first tick after it appears", async () => {
    const store = createMemoryStore();
    const a = setup({ store, node: "a", webhookSecret: "k", start: T0 + 1 });
    const spy = fetchSpy();
    const b = setup({ store, node: "b", clock: a.clock, fetch: spy.fetch, webhookSecret: "k" });
    await a.scheduler.define("hook", hook);
    // b never ticked before: the slot after the define time still runs on b's first tick.
    const report = await tickAt(b, T0 + 5 * MIN);
    assert.equal(report.jobs["hook"]!.outcomes[T0 + 5 * MIN], "ok");
    assert.equal(spy.calls.length, 1);
    assert.equal((await b.scheduler.list()).map((j) => j.name).join(), "hook");
  });

  it("records error when the webhook answers non-2xx, or when no secret is configured", async () => {
    const failing = setup({ start: T0 + 1, fetch: fetchSpy(500).fetch, webhookSecret: "k" });
    await failing.scheduler.define("hook", hook);
    await tickAt(failing, T0 + 5 * MIN);
    const [row] = await rows(failing.store, "hook");
    assert.equal(row!.status, "error");
    assert.match(row!.error ?? "", /500/);

    // A definition another node wrote still reaches a node without a secret: it records why it cannot run it.
    const store = createMemoryStore();
    const signer = setup({ store, start: T0 + 1, webhookSecret: "k" });
    await signer.scheduler.define("hook", hook);
    const unsigned = setup({ store, clock: signer.clock, fetch: fetchSpy().fetch });
    await tickAt(unsigned, T0 + 5 * MIN);
    const [second] = await rows(unsigned.store, "hook");
    assert.match(second!.error ?? "", /webhookSecret is not configured/);
  });

  it("define() without a webhookSecret is refused with invalid-spec naming the option, and stores nothing", async () => {
    const s = setup({ fetch: fetchSpy().fetch });
    await assert.rejects(
      s.scheduler.define("hook", hook),
      (e: unknown) =>
        e instanceof SchedulerError && e.code === "invalid-spec" && e.path === "webhookSecret" &&
        /createScheduler\(\{ webhookSecret \}\)/.test(e.message),
    );
    assert.equal(await s.store.getDef("hook"), undefined);
  });

  it("refuses a bad definition with its path, a code job's name, and a stale version", async () => {
    const s = setup({ webhookSecret: "k" });
    s.scheduler.job("code", { schedule: "* * * * *", run: () => {} });
    await assert.rejects(
      s.scheduler.define("hook", { ...hook, target: { url: "mailto:x@y.z" } }),
      (e: unknown) => e instanceof SchedulerError && e.path === "jobs.hook.target.url",
    );
    await assert.rejects(
      s.scheduler.define("code", hook),
      (e: unknown) => e instanceof SchedulerError && e.code === "conflict",
    );
    await s.scheduler.define("hook", hook);
    await assert.rejects(
      s.scheduler.define("hook", hook, { ifVersion: 0 }),
      (e: unknown) => e instanceof SchedulerError && e.code === "conflict",
    );
    assert.equal(
      (await s.scheduler.define("hook", { ...hook, schedule: "0 * * * *" }, { ifVersion: 1 })).def?.version,
      2,
    );
  });

  it("refuses a lone surrogate anywhere in a definition, naming its place, on every store alike", async () => {
    // Postgres refused it; the other stores kept it, and the webhook then sent U+FFFD.
    const s = setup({ webhookSecret: "k" });
    for (
      const [spec, path] of [
        [{ ...hook, target: { ...hook.target, body: "hi \ud800" } }, "jobs.hook.target.body"],
        [{ ...hook, payload: { list: ["ok", "\udc00"] } }, "jobs.hook.payload.list[1]"],
        [{ ...hook, payload: { ["k\udbff"]: 1 } }, "jobs.hook.payload.k\udbff"],
      ] as const
    ) {
      await assert.rejects(
        s.scheduler.define("hook", spec),
        (e: unknown) =>
          e instanceof SchedulerError && e.code === "invalid-spec" && e.path === path &&
          e.message.includes("lone surrogate"),
      );
    }
    assert.equal(await s.store.getDef("hook"), undefined);
    const pair = { ...hook, payload: { face: "\ud83d\ude42" } };
    assert.deepEqual((await s.scheduler.define("hook", pair)).def?.spec["payload"], { face: "\ud83d\ude42" });
  });

  it("undefine() ends the job's pause: defined again under its name, it runs", async () => {
    // The pause is kept per name (a code job's survives a deploy): a deleted data job's
    // came back with the next job of that name, which then never ran.
    const spy = fetchSpy();
    const s = setup({ webhookSecret: "k", fetch: spy.fetch });
    await s.scheduler.define("hook", hook);
    await s.scheduler.pause("hook", { note: "old pause" });
    assert.equal(await s.scheduler.undefine("hook"), true);
    const info = await s.scheduler.define("hook", hook);
    assert.deepEqual([info.paused, info.pause], [false, undefined]);
    const report = await tickAt(s, T0 + 5 * MIN);
    assert.equal(report.jobs["hook"]!.outcomes[T0 + 5 * MIN], "ok");
    assert.equal(spy.calls.length, 1);
  });

  it("undefine() whose delete fails deletes nothing: the job, its pause and history stay, and a retry deletes them all", async () => {
    const store = faultyStore();
    const s = setup({ store, webhookSecret: "k", fetch: fetchSpy().fetch });
    await s.scheduler.define("hook", hook);
    await tickAt(s, T0 + 5 * MIN);
    await s.scheduler.pause("hook", { note: "old" });
    store.failNext("deleteDef");
    await assert.rejects(s.scheduler.undefine("hook"), (e: unknown) => e instanceof SchedulerError);
    assert.ok(await s.store.getDef("hook"));
    assert.equal((await s.store.read(["hook"])).jobs["hook"]?.paused, true);
    assert.ok((await rows(s.store, "hook")).some((r) => r.status === "ok"));
    assert.equal(await s.scheduler.undefine("hook"), true);
    assert.deepEqual([await s.store.read(["hook"]), await rows(s.store, "hook")], [
      { jobs: {}, watermarks: {}, defs: [], running: [] },
      [],
    ]);
  });

  it("a run of a job undefined while it runs goes on to its outcome, and the job defined again does not run its slot twice", async () => {
    // Its row deleted with the job, the slot was free: the job defined again claimed it and
    // delivered it a second time (and a slot claimed ahead ran on both definitions).
    const answers: (() => void)[] = [];
    const fetch =
      (() =>
        new Promise<Response>((resolve) => answers.push(() => resolve(new Response("ok"))))) as typeof globalThis.fetch;
    const s = setup({ webhookSecret: "k", fetch, start: T0 + 5 * MIN });
    await s.scheduler.define("hook", { ...hook, schedule: "* * * * *" });
    const ticked = s.scheduler.tick();
    // The delivery is on its way (its request made) before the job is deleted.
    for (let i = 0; i < 100 && answers.length === 0; i++) await s.clock.advance(0);
    assert.equal(answers.length, 1);
    assert.equal((await s.store.getRun("hook", T0 + 5 * MIN))?.status, "running");
    assert.equal(await s.scheduler.undefine("hook"), true);
    await s.scheduler.define("hook", { ...hook, schedule: "* * * * *" });
    const again = await s.scheduler.tick();
    assert.equal(again.jobs["hook"]?.outcomes[T0 + 5 * MIN], undefined, "the held slot is not the new job's to run");
    assert.equal(answers.length, 1, "one delivery");
    answers[0]!();
    await s.clock.advance(15_000);
    await ticked;
    assert.deepEqual((await rows(s.store, "hook")).map((r) => [r.slot, r.status]), [[T0 + 5 * MIN, "ok"]]);
    assert.equal(answers.length, 1);
  });

  it("a name with a NUL character is no job to run, pause, read or delete: no store call's name in the answer", async () => {
    // Each named a store call the caller never made: `getDef.name: must not contain a NUL
    // character`, `read.names[0]`, `deleteDef.name`, `listDefs.after`.
    const s = setup({ webhookSecret: "k", fetch: fetchSpy().fetch });
    await s.scheduler.define("ok", hook);
    const bad = "ok\0";
    assert.deepEqual(await s.scheduler.run(bad), { ok: false, job: bad, reason: "unknown job" });
    for (const call of [() => s.scheduler.pause(bad), () => s.scheduler.resume(bad)]) {
      await assert.rejects(
        call(),
        (e: unknown) => e instanceof SchedulerError && e.code === "unknown-job" && e.path === "name",
      );
    }
    assert.equal(await s.scheduler.get(bad), undefined);
    assert.equal(await s.scheduler.undefine(bad), false);
    await assert.rejects(
      s.scheduler.list({ after: bad }),
      (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && e.path === "after",
    );
    await assert.rejects(
      s.scheduler.define("h", { ...hook, target: { ...hook.target, headers: { "X-A": "a\0b" } } }),
      (e: unknown) => e instanceof SchedulerError && /no control characters/.test(e.message),
    );
    assert.equal((await s.scheduler.get("ok"))?.name, "ok");
  });

  it("refuses a definition over 60 000 bytes of JSON, counted in UTF-8, on every store alike", async () => {
    // The SQL and memory stores kept any size (5 MB read by every node's every snapshot; past
    // D1's row limit a store-error), Deno KV refused past one value.
    const s = setup({ webhookSecret: "k" });
    const small = await s.scheduler.define("hook", { ...hook, payload: "" });
    const base = new TextEncoder().encode(JSON.stringify(small.def!.spec)).length;
    // "é" is 2 bytes in UTF-8 and 1 code unit: a count of code units would let this through.
    const fill = (extra: number) => "é".repeat(1_000) + "x".repeat(60_000 - base - 2_000 + extra);
    assert.equal((await s.scheduler.define("hook", { ...hook, payload: fill(0) })).def?.version, 2);
    await assert.rejects(
      s.scheduler.define("hook", { ...hook, payload: fill(1) }),
      (e: unknown) =>
        e instanceof SchedulerError && e.code === "invalid-spec" && e.path === "jobs.hook" &&
        e.message.includes("60001 bytes of JSON, over the 60000"),
    );
    assert.equal((await s.store.getDef("hook"))?.version, 2);
  });

  it("a fractional anchor or at is refused at define(); one stored before disables its job alone", async () => {
    // Accepted once, its slots were fractional: every tick's claims failed at its first
    // slot, so no job of the store ran on any node, with nothing logged.
    const s = setup({ webhookSecret: "k", fetch: fetchSpy().fetch });
    for (
      const [schedule, path] of [
        [{ every: "1m", anchor: 0.5 }, "jobs.frac.schedule.anchor"],
        [{ at: T0 + 4_000.5 }, "jobs.frac.schedule.at"],
      ] as const
    ) {
      await assert.rejects(
        s.scheduler.define("frac", { ...hook, schedule }),
        (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && e.path === path,
      );
    }
    assert.equal(await s.store.getDef("frac"), undefined);
    await s.store.putDef("frac", { ...hook, schedule: { every: "1m", anchor: 0.5 } }, T0);
    let ran = 0;
    s.scheduler.job("steady", { schedule: "* * * * *", run: () => void ran++ });
    await tickAt(s, T0 + 1);
    for (let m = 1; m <= 2; m++) assert.equal((await tickAt(s, T0 + m * MIN)).ok, true);
    assert.equal(ran, 2);
    assert.match(
      (await s.scheduler.get("frac"))?.broken ?? "",
      /schedule\.anchor: expected an instant \(whole ms\)/,
    );
  });

  it("undefine() removes it from every node's next tick", async () => {
    const spy = fetchSpy();
    const s = setup({ fetch: spy.fetch, webhookSecret: "k" });
    await s.scheduler.define("hook", hook);
    assert.equal(await s.scheduler.undefine("hook"), true);
    assert.equal(await s.scheduler.undefine("hook"), false);
    await tickAt(s, T0 + 5 * MIN);
    assert.equal(spy.calls.length, 0);
    assert.equal(await s.scheduler.get("hook"), undefined);
  });
});
