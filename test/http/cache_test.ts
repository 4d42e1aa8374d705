// The read cache never serves the state from before a write through the router: a
// GET /jobs that read the store before a POST /pause and finishes after it is neither
// kept for later requests nor shared with a request that arrived after the write.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Scheduler } from "../../src/engine/types.ts";
import { setup } from "./_setup.ts";

/** A scheduler whose next list() reads, then waits for `release()` before answering. */
function holdNextList(): { wrap: (s: Scheduler) => Scheduler; read: Promise<void>; release: () => void } {
  let armed = true;
  let release = (): void => {};
  let markRead = (): void => {};
  const read = new Promise<void>((resolve) => (markRead = resolve));
  const gate = new Promise<void>((resolve) => (release = resolve));
  const wrap = (s: Scheduler): Scheduler => ({
    ...s,
    list: async (options) => {
      const jobs = await s.list(options);
      if (armed) {
        armed = false;
        markRead();
        await gate;
      }
      return jobs;
    },
  });
  return { wrap, read, release };
}

const pausedOf = async (res: Response): Promise<boolean | undefined> =>
  ((await res.json()) as { jobs: { name: string; paused: boolean }[] }).jobs.find((j) => j.name === "hourly")?.paused;

describe("read cache across a write on the same node", () => {
  it("a GET /jobs in flight across POST /pause is not cached: the next GET shows the job paused", async () => {
    const hold = holdNextList();
    const f = setup({ wrap: hold.wrap });
    const before = f.call("GET", "/jobs");
    await hold.read; // it has read the jobs: hourly is not paused yet
    assert.equal((await f.call("POST", "/jobs/hourly/pause")).status, 200);
    hold.release();
    assert.equal(await pausedOf(await before), false, "the early GET answers what it read");
    assert.equal(await pausedOf(await f.call("GET", "/jobs")), true);
  });

  it("a GET that arrives after the write does not get the answer of the GET in flight since before it", async () => {
    const hold = holdNextList();
    const f = setup({ wrap: hold.wrap });
    const before = f.call("GET", "/jobs");
    await hold.read;
    assert.equal((await f.call("POST", "/jobs/hourly/pause")).status, 200);
    const after = f.call("GET", "/jobs");
    hold.release();
    assert.equal(await pausedOf(await before), false);
    assert.equal(await pausedOf(await after), true);
  });

  it("still answers repeated reads from the cache between writes", async () => {
    let lists = 0;
    const f = setup({ wrap: (s) => ({ ...s, list: (o) => (lists++, s.list(o)) }) });
    for (let i = 0; i < 3; i++) assert.equal((await f.call("GET", "/jobs")).status, 200);
    assert.equal(lists, 1);
  });
});
