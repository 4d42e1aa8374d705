// The D1 part of the store bench, run INSIDE workerd (Miniflare) on the worker's own D1
// binding, as a Worker's claims really run: GET /?size=N&total=M claims M slots in calls
// of N (each a different job, overlap check on) and answers { rate } in claims/s.
import { type D1DatabaseLike, d1Store } from "../src/store/d1/mod.ts";
import type { ClaimRequest } from "../src/store/types.ts";

const T0 = Date.UTC(2026, 0, 1);
let round = 0;

export default {
  async fetch(request: Request, env: { DB: D1DatabaseLike }): Promise<Response> {
    const url = new URL(request.url);
    const size = Number(url.searchParams.get("size"));
    const total = Number(url.searchParams.get("total"));
    const store = d1Store(env.DB);
    await store.init();
    const tag = `r${++round}`;
    const calls = Math.ceil(total / size);
    const batch = (k: number): ClaimRequest[] =>
      Array.from({ length: size }, (_, j) => ({
        job: `${tag}-${k * size + j}`,
        slot: T0,
        kind: "scheduled",
        status: "running",
        overlap: "skip",
        node: "bench",
        batch: `${tag}-${k}`,
        now: T0,
        leaseUntil: T0 + 600_000,
      }));
    // Date.now() advances across I/O in workerd, so it times the D1 calls.
    const start = Date.now();
    for (let k = 0; k < calls; k++) {
      const results = await store.claim(batch(k));
      if (results.some((r) => r.outcome !== "won")) {
        return Response.json({ error: "a claim was not won" }, { status: 500 });
      }
    }
    return Response.json({ rate: (calls * size) / (Math.max(1, Date.now() - start) / 1000) });
  },
};
