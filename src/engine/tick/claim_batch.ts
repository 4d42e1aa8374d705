/**
 * One claim batch and what its results mean: won slots are held (renewed) from here on,
 * and every other outcome is counted, reported and emitted. A batch that fails may still
 * commit; the reconciler settles whatever of it landed at the next tick.
 */
import type { ClaimRequest } from "../../store/types.ts";
import type { HeldClaim } from "../run/tracker.ts";
import type { RunnerDeps } from "../run/runner.ts";
import type { Reconciler } from "./reconcile.ts";
import { note, type ReportDraft } from "./report.ts";

/** What a claim batch uses. */
export interface ClaimDeps extends RunnerDeps {
  node: string;
  reconciler: Reconciler;
}

/**
 * Claims `requests` in one store call; the won claims, grouped by job in request order.
 * Never rejects: a store failure is returned as an `Error` whose `cause` is the store's.
 */
export async function claimBatch(
  deps: ClaimDeps,
  requests: ClaimRequest[],
  draft: ReportDraft,
): Promise<Map<string, HeldClaim[]> | Error> {
  const { store, registry, lease, tracker, emit, node } = deps;
  const won = new Map<string, HeldClaim[]>();
  if (requests.length === 0) return won;
  let results;
  // Outcomes are not held while the claim is on its way (only while runs wait in the queue,
  // queue.ts): held here, a Worker's scheduled event on workerd ended `exceededCpu`
  // (test/integration/cloudflare_test.ts), cause not found yet.
  try {
    results = await store.claim(requests);
  } catch (e) {
    // It may still commit: the next tick settles whatever of it landed.
    deps.reconciler.unknown(requests);
    return new Error("claim failed", { cause: e });
  }
  let superseding: Set<string> | undefined;
  for (let i = 0; i < results.length; i++) {
    const { job, slot, outcome } = results[i]!;
    // The store refused it: the job's maxRuns is reached (no row; the job is complete).
    if (outcome === "limit") continue;
    const r = draft.job(job);
    if (outcome === "won") {
      note(r, "won", slot);
      const claim = lease.hold({ job, slot, attempt: 1, node }, requests[i]!.leaseUntil, "scheduled");
      const claims = won.get(job);
      if (claims === undefined) won.set(job, [claim]);
      else claims.push(claim);
      emit({ type: "claimed", job, slot });
      continue;
    }
    const counters = registry.counters(job);
    if (outcome === "buffered") {
      note(r, "buffered", slot);
      counters.buffered++;
      emit({ type: "buffered", job, slot });
      if (requests[i]!.overlap === "cancelOther") (superseding ??= new Set()).add(job);
    } else if (outcome === "lost") {
      note(r, "lost", slot);
      const until = requests[i]!.leaseUntil;
      if (draft.lostLeaseEnd === undefined || until < draft.lostLeaseEnd) draft.lostLeaseEnd = until;
      counters.lost++;
      emit({ type: "lost", job, slot });
    } else {
      note(r, outcome, slot);
      counters[outcome]++;
      r.outcomes[slot] = outcome;
      emit({ type: outcome, job, slot });
    }
  }
  // The store marked this job's live runs cancelling; the ones held here stop now
  // rather than at their next renewal.
  if (superseding !== undefined) {
    for (const claim of [...tracker.claims()]) {
      if (superseding.has(claim.job) && !won.get(claim.job)?.includes(claim)) lease.supersede(claim);
    }
  }
  return won;
}
