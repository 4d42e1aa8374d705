// The connection life the libSQL and Postgres connections share (src/store/_connection.ts):
// lazy open retried after a failure, forget only the current handle, close ends waits
// at once and hands back the opened handle, closed calls refused, deadlines checked.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { SchedulerError } from "../../src/core/errors.ts";
import { backoff, connectionLife } from "../../src/store/_connection.ts";

describe("connectionLife", () => {
  it("opens once on first use, and again on the next call after a failed open", async () => {
    let opens = 0;
    const life = connectionLife("test", async () => {
      opens += 1;
      if (opens === 1) throw new Error("refused");
      return { id: opens };
    });
    await assert.rejects(life.get(), /refused/);
    assert.deepEqual(await life.get(), { id: 2 });
    assert.deepEqual(await life.get(), { id: 2 });
    assert.equal(opens, 2);
  });

  it("forgets the handle only while it is still the current one", async () => {
    let opens = 0;
    const life = connectionLife("test", async () => ++opens);
    await life.get();
    const first = life.current!;
    assert.equal(life.forget(first), true);
    assert.equal(await life.get(), 2);
    assert.equal(life.forget(first), false, "a stale handle does not drop the fresh one");
    assert.equal(await life.get(), 2);
  });

  it("close ends a pending pause at once, hands back the opened handle once, and refuses later calls", async () => {
    const life = connectionLife("test", async () => "handle");
    await life.get();
    const waited = life.pause(3_600_000);
    assert.equal(await life.close(), "handle");
    await waited; // would hang for an hour if close left it
    assert.equal(await life.close(), undefined, "a second close hands back nothing");
    assert.equal(life.closed, true);
    assert.throws(
      () => life.checkOpen(new Error("why")),
      (e: unknown) =>
        e instanceof SchedulerError && e.code === "store-error" &&
        e.message === "store-error: test: the store is closed" &&
        (e.cause as Error).message === "why",
    );
  });

  it("keeps the caller's deadline, refusing a bad one by name", () => {
    const life = connectionLife("test", async () => 1);
    assert.equal(life.callTimeout, Infinity);
    life.setCallTimeout(250);
    assert.equal(life.callTimeout, 250);
    assert.throws(
      () => life.setCallTimeout(-1),
      (e: unknown) => e instanceof SchedulerError && e.code === "invalid-spec",
    );
  });

  it("backoff doubles from its base to its cap, jittered within ±50%", () => {
    for (let attempt = 0; attempt < 12; attempt += 1) {
      const plain = Math.min(2 ** attempt * 5, 200);
      const delay = backoff(attempt, 5, 200);
      assert.ok(delay >= plain * 0.5 && delay <= plain * 1.5, `attempt ${attempt}: ${delay}`);
    }
  });
});
