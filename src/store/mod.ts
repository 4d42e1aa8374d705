/**
 * The `Store` port, the in-memory store, and the contract suite every store passes
 * (`storeContract`, for third-party stores). `libsqlStore` is its own subpath
 * (`edgecron/libsql`) so a memory-only user never loads `@libsql/client`.
 *
 * @module
 */
export { createMemoryStore, memoryStore } from "./memory/mod.ts";
export { request, storeContract } from "./contract/mod.ts";
export { COUNTED_STATUSES } from "./types.ts";
export { tallyFromReads } from "./_tally.ts";
export type { ItFunction, StoreContractOptions } from "./contract/mod.ts";
export type { MemoryStore, MemoryStoreOptions } from "./memory/mod.ts";
export type {
  AttemptKey,
  ClaimOutcome,
  ClaimRequest,
  ClaimResult,
  DefsQuery,
  EnqueueOutcome,
  EnqueueRequest,
  JobDef,
  JobOverview,
  JobState,
  JobTally,
  LeaseRenewal,
  Outcome,
  OverlapPolicy,
  PauseInfo,
  PromoteRequest,
  ReclaimRequest,
  RunKind,
  RunPatch,
  RunQuery,
  RunRecord,
  RunStatus,
  RunUpdate,
  SlotKey,
  StatusCounts,
  Store,
  TickSnapshot,
} from "./types.ts";
