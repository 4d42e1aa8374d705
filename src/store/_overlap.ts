/**
 * The overlap decision of one claim, shared by the stores that decide in code (memory,
 * Deno KV); the SQL store decides the same inside its claim statement.
 */
import { DEFAULT_BUFFER_LIMIT, SKIP_BUFFER_FULL, SKIP_OVERLAP } from "./_validate.ts";
import type { ClaimRequest, RunStatus } from "./types.ts";

/** Is this status a live run (it holds the job's one run slot while its lease lasts)? */
export const isLiveStatus = (status: RunStatus): boolean => status === "running" || status === "cancelling";

/** Is this status open (not final)? */
export const isOpenStatus = (status: RunStatus): boolean =>
  status === "running" || status === "cancelling" || status === "buffered";

/** The status a claim inserts, and the reason of a skip. */
export interface ClaimDecision {
  status: RunStatus;
  error: string | null;
}

/**
 * Decides a claim from what the job has now: `live` (a live row from another batch),
 * `buffered` (how many buffered rows, including ones this batch inserted before).
 */
export function decideClaim(r: ClaimRequest, live: boolean, buffered: number): ClaimDecision {
  if (r.status === "missed") return { status: "missed", error: null };
  switch (r.overlap) {
    case "allow":
      return { status: "running", error: null };
    case "skip":
      // Null, as before the buffering policies: the status says it all.
      return live ? { status: "skipped", error: null } : { status: "running", error: null };
    case "bufferOne":
      if (!live && buffered === 0) return { status: "running", error: null };
      return buffered === 0 ? { status: "buffered", error: null } : { status: "skipped", error: SKIP_OVERLAP };
    case "bufferAll":
      if (!live && buffered === 0) return { status: "running", error: null };
      return buffered < (r.bufferLimit ?? DEFAULT_BUFFER_LIMIT)
        ? { status: "buffered", error: null }
        : { status: "skipped", error: SKIP_BUFFER_FULL };
    case "cancelOther":
      return !live && buffered === 0 ? { status: "running", error: null } : { status: "buffered", error: null };
  }
}
