/**
 * `edgecron/store`: the `Store` port (the types a store implements) and the in-memory
 * store. `libsqlStore` is its own subpath (`edgecron/libsql`) so a memory-only user
 * never loads `@libsql/client`.
 *
 * @module
 */
export { createMemoryStore } from "./memory/mod.ts";
export type { MemoryStore, MemoryStoreOptions } from "./memory/mod.ts";
export type {
  AttemptKey,
  ClaimOutcome,
  ClaimRequest,
  ClaimResult,
  JobDef,
  JobOverview,
  JobState,
  LeaseRenewal,
  Outcome,
  ReclaimRequest,
  RunKind,
  RunPatch,
  RunQuery,
  RunRecord,
  RunStatus,
  RunUpdate,
  StatusCounts,
  Store,
  TickSnapshot,
} from "./types.ts";
