// pause(name, { note, by }): the note, time and author show in get(); resume clears them.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../../src/core/errors.ts";
import { MIN, setup, T0 } from "../_helpers.ts";

describe("pause with a note", () => {
  it("get() shows the note, when and by whom; list() too; resume clears them", async () => {
    const s = setup();
    s.scheduler.job("j", { schedule: "* * * * *", run: () => {} });
    await s.scheduler.pause("j", { note: "vendor API down until 14:00", by: "alice" });
    assert.deepEqual((await s.scheduler.get("j"))?.pause, { note: "vendor API down until 14:00", at: T0, by: "alice" });
    assert.deepEqual((await s.scheduler.list())[0]?.pause?.by, "alice");
    await s.clock.advance(MIN);
    await s.scheduler.pause("j");
    assert.deepEqual((await s.scheduler.get("j"))?.pause, { note: null, at: T0 + MIN, by: "api" });
    await s.scheduler.resume("j");
    const info = await s.scheduler.get("j");
    assert.deepEqual([info?.paused, info?.pause], [false, undefined]);
  });

  it("refuses a note that is too long or has control characters, naming the field", async () => {
    const s = setup();
    s.scheduler.job("j", { schedule: "* * * * *", run: () => {} });
    for (
      const [options, field] of [[{ note: "x".repeat(501) }, "note"], [{ note: "a\u0007b" }, "note"], [
        { by: "" },
        "by",
      ]] as const
    ) {
      await assert.rejects(
        s.scheduler.pause("j", options),
        (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec" && e.path === field,
      );
    }
    assert.equal((await s.scheduler.get("j"))?.paused, false);
  });

  it("refuses a note or author with a lone surrogate, which the SQL stores kept as U+FFFD", async () => {
    // The HTTP API refused it; scheduler.pause() stored it, and a libSQL or D1 store then
    // showed another note than the one given.
    const s = setup();
    s.scheduler.job("j", { schedule: "* * * * *", run: () => {} });
    for (const [options, field] of [[{ note: "down \ud800" }, "note"], [{ by: "\udc00bob" }, "by"]] as const) {
      await assert.rejects(
        s.scheduler.pause("j", options),
        (e: unknown) =>
          e instanceof SchedulerError && e.code === "invalid-spec" && e.path === field &&
          e.message.includes("lone surrogate"),
      );
    }
    await s.scheduler.pause("j", { note: "a pair is fine: \ud83d\ude00" });
    assert.equal((await s.scheduler.get("j"))?.pause?.note, "a pair is fine: \ud83d\ude00");
  });
});

describe("shared settings", () => {
  it("refuse a key or value with a lone surrogate: the SQL stores wrote it as U+FFFD, so two keys were one", async () => {
    const s = setup();
    const refused = (field: string) => (e: unknown) =>
      e instanceof SchedulerError && e.code === "invalid-spec" && e.path === field &&
      e.message.includes("lone surrogate");
    await assert.rejects(s.scheduler.putSetting("k\ud800", "v"), refused("key"));
    await assert.rejects(s.scheduler.putSetting("k", "x\udbff"), refused("value"));
    await assert.rejects(s.scheduler.getSetting("k\udfff"), refused("key"));
    assert.equal(await s.scheduler.getSetting("k"), undefined);
    await s.scheduler.putSetting("k", "\ud83d\ude00");
    assert.equal(await s.scheduler.getSetting("k"), "\ud83d\ude00");
  });
});
