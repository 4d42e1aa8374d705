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
});
