// Child of warm_test.ts, run by Node with --expose-gc --trace-deopt: one node of four in timer
// mode on a libSQL file, claiming ahead, with a manual clock; the three others are live in
// the presence setting and claim their shares before each slot, so this node plans with
// shares, claims its own and finds the rest claimed. Six full collections after each minute
// (as the memory reducer does between real minutes). The test counts V8's deopt lines.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScheduler } from "../../src/engine/mod.ts";
import { libsqlStore } from "../../src/store/libsql/mod.ts";
import { createManualClock } from "../../src/engine/clock.ts";
import { spread } from "../../src/engine/tick/spread.ts";
import type { ClaimRequest } from "../../src/store/types.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("_warm_shares_child.ts: run it with --expose-gc");
const JOBS = Number(process.env.WARM_JOBS ?? 2_000);
const MINUTES = 8;
const dir = mkdtempSync(join(tmpdir(), "edgecron-warm-"));
const T0 = Date.UTC(2030, 0, 1);
const clock = createManualClock(T0 + 30_000);
const store = libsqlStore({ url: `file:${join(dir, "warm.db")}` });
const scheduler = createScheduler({
  store,
  clock,
  node: "n0",
  claimAhead: "auto",
  logger: { warn() {}, error() {} },
});
const names = Array.from({ length: JOBS }, (_, i) => `job-${String(i).padStart(5, "0")}`);
let ran = 0;
for (const name of names) scheduler.job(name, { schedule: "* * * * *", run: () => void ran++ });
await scheduler.ready();
const live = () =>
  store.putSetting(
    "edgecron.nodes",
    JSON.stringify(Object.fromEntries(["n0", "n1", "n2", "n3"].map((n) => [n, clock.now()]))),
  );
await live();
const { order, own } = spread(names, (n) => n, { node: "n0", nodes: ["n1", "n2", "n3"], offset: 0 });
const theirs = order.slice(own);
scheduler.start();
const walk = async (to: number, step: number) => {
  while (clock.now() < to) await clock.advance(Math.min(step, to - clock.now()));
};
for (let m = 1; m <= MINUTES; m++) {
  const slot = T0 + m * 60_000;
  await walk(slot - 5_000, 1_000);
  await live();
  const claims: ClaimRequest[] = theirs.map((job) => ({
    job,
    kind: "scheduled",
    node: "n1",
    batch: `peers-${m}`,
    now: slot - 3_000,
    overlap: "allow",
    slot,
    status: "running",
    leaseUntil: slot + 30_000,
  }));
  await store.claim(claims);
  await walk(slot + 5_000, 50);
  await walk(slot + 55_000, 1_000);
  for (let k = 0; k < 6; k++) gc();
}
await scheduler.stop({ grace: 0 });
await scheduler.close();
rmSync(dir, { recursive: true, force: true });
console.log(`=== ran ${ran}`);
