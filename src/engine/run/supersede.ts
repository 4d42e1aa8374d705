/**
 * How a node learns that a `cancelOther` slot superseded one of its runs: the claim
 * marked the row `cancelling`, so the holder's next renewal is refused, and the row
 * read back tells a supersession from a lost lease.
 */
import type { Store } from "../../store/types.ts";
import type { HeldClaim } from "./tracker.ts";

/** The abort reason (and `cancelled` row error) of a superseded run. */
export const SUPERSEDED = "superseded";

/**
 * The claims among `refused` whose rows are `cancelling` at their attempt and node.
 * A failed read counts as a lost lease (the claim is aborted either way).
 */
export async function supersededOf(store: Store, refused: readonly HeldClaim[]): Promise<Set<HeldClaim>> {
  const found = new Set<HeldClaim>();
  await Promise.all(refused.map(async (claim) => {
    try {
      const row = await store.getRun(claim.job, claim.slot);
      if (row?.status === "cancelling" && row.attempt === claim.attempt && row.node === claim.node) found.add(claim);
    } catch {
      // Unknown: aborted as a lost lease.
    }
  }));
  return found;
}
