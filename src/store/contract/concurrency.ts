/**
 * Contract cases a store with optimistic commits (Deno KV) revealed: concurrent callers,
 * and claim calls larger than one atomic commit.
 */
import type { ClaimRequest } from "../types.ts";
import { assert } from "./assert.ts";
import { type ContractContext, MIN, outcomes, request, T0, ZERO_COUNTS } from "./_shared.ts";

/** Registers the concurrency cases. */
export function concurrencyCases({ it, withStore }: ContractContext): void {
  it("concurrent claims of one job from different batches: with overlap skip only one runs", () =>
    withStore(async (store) => {
      const now = T0 + 5 * MIN;
      const calls = [0, 1, 2, 3].map((i) =>
        store.claim([request("a", T0 + i * MIN, { batch: `tick-${i}`, node: `node-${i}`, now })])
      );
      const results = (await Promise.all(calls)).flat();
      assert.deepEqual(outcomes(results).sort(), ["skipped", "skipped", "skipped", "won"]);
      const running = (await store.snapshot(["a"], now)).running;
      assert.equal(running.length, 1, "exactly one live run of the job");
    }));

  it("update() racing reap(): exactly one of them changes the row", () =>
    withStore(async (store) => {
      await store.claim([request("a", T0, { leaseUntil: T0 + MIN })]);
      const [updated, reaped] = await Promise.all([
        store.update({ job: "a", slot: T0, attempt: 1, node: "node-a" }, {
          status: "ok",
          finishedAt: T0 + 2 * MIN,
          leaseUntil: null,
        }),
        store.reap(T0 + 2 * MIN),
      ]);
      assert.equal(updated, reaped.length === 0);
      assert.equal((await store.getRun("a", T0))?.status, updated ? "ok" : "abandoned");
    }));

  it("a claim call larger than one atomic commit answers as one-by-one application would", () =>
    withStore(async (store) => {
      const now = T0 + 10 * MIN;
      const batch: ClaimRequest[] = [];
      const expected: string[] = [];
      for (let j = 0; j < 300; j++) {
        const job = `job-${j}`;
        batch.push(request(job, T0, { batch: "big", now }), request(job, T0, { batch: "big", now, node: "node-b" }));
        batch.push(request(job, T0 + MIN, { batch: "big", now }), request(job, T0 + 2 * MIN, { batch: "other", now }));
        expected.push("won", "lost", "won", "skipped");
      }
      // One job with more requests than a Deno KV commit holds (100 checks).
      for (let i = 0; i < 250; i++) {
        batch.push(request("wide", T0 - i * MIN, { batch: "big", now, status: i % 2 === 0 ? "running" : "missed" }));
        expected.push(i % 2 === 0 ? "won" : "missed");
      }
      batch.push(request("wide", T0 - 7 * MIN, { batch: "big", now }));
      expected.push("lost");
      const results = await store.claim(batch);
      assert.deepEqual(results.map((r) => [r.job, r.slot]), batch.map((r) => [r.job, r.slot]));
      assert.deepEqual(outcomes(results), expected);
      const zero = ZERO_COUNTS;
      assert.deepEqual(await store.counts(["job-299", "wide"]), {
        "job-299": { ...zero, running: 2, skipped: 1 },
        wide: { ...zero, running: 125, missed: 125 },
      });
      assert.deepEqual((await store.snapshot(["wide"], now)).watermarks, { wide: T0 });
    }));
}
