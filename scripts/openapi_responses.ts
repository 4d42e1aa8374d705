/**
 * JSON Schemas of the router's answers for `scripts/openapi.ts`. Answers are built
 * from engine types, not validated, so these are written by hand; instants follow the
 * API's one convention (`x` epoch ms, `xIso` ISO-8601).
 */
type Json = Record<string, unknown>;

const ms = { type: "integer", description: "epoch milliseconds" };
const iso = { type: "string", format: "date-time" };
const maybe = (s: Json): Json => ({ oneOf: [s, { type: "null" }] });
const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const instants = (...names: string[]): Json => Object.fromEntries(names.flatMap((n) => [[n, ms], [`${n}Iso`, iso]]));
const list = (...names: string[]): Json =>
  Object.fromEntries(
    names.flatMap((n) => [[n, { type: "array", items: ms }], [`${n}Iso`, { type: "array", items: iso }]]),
  );
const obj = (properties: Json, required: string[] = []): Json => ({ type: "object", properties, required });

const Run = obj({
  job: { type: "string" },
  kind: { enum: ["scheduled", "manual", "backfill"] },
  status: {
    enum: [
      "running",
      "cancelling",
      "buffered",
      "ok",
      "error",
      "timeout",
      "skipped",
      "missed",
      "abandoned",
      "cancelled",
    ],
  },
  attempt: { type: "integer" },
  node: { type: "string" },
  ...instants("slot", "claimedAt", "startedAt"),
  finishedAt: maybe(ms),
  finishedAtIso: maybe(iso),
  leaseUntil: maybe(ms),
  leaseUntilIso: maybe(iso),
  error: maybe({ type: "string" }),
}, ["job", "slot", "slotIso", "status"]);

const Job = obj({
  name: { type: "string" },
  source: { enum: ["code", "data"] },
  description: { type: "string" },
  schedule: { type: "string" },
  spec: { type: "object" },
  timezone: { type: "string" },
  enabled: { type: "boolean" },
  paused: { type: "boolean" },
  pause: obj({ note: maybe({ type: "string" }), at: ms, atIso: iso, by: { type: "string" } }, ["note", "at", "by"]),
  ...list("next"),
  lastOutcome: ref("Run"),
  counters: { type: "object", additionalProperties: { type: "integer" } },
  ...instants("runningSince"),
  def: obj({
    name: { type: "string" },
    spec: { type: "object" },
    version: { type: "integer" },
    ...instants("updatedAt"),
  }),
}, ["name", "source", "schedule", "timezone", "enabled", "paused", "next", "nextIso"]);

/** Components for every answer shape. */
export const RESPONSE_SCHEMAS: Record<string, Json> = {
  Error: obj({
    error: obj({ code: { type: "string" }, message: { type: "string" }, path: { type: "string" } }, [
      "code",
      "message",
    ]),
  }, ["error"]),
  Health: obj({
    ok: { type: "boolean" },
    node: { type: "string" },
    store: { enum: ["ok", "error"] },
    ...instants("lastTick"),
    lastError: { type: "string" },
    jobs: { type: "integer" },
    running: { type: "boolean" },
  }, ["ok", "node", "store"]),
  Run,
  Job,
  JobPage: obj({ jobs: { type: "array", items: ref("Job") }, nextAfter: maybe({ type: "string" }) }, [
    "jobs",
    "nextAfter",
  ]),
  RunPage: obj({
    job: { type: "string" },
    runs: { type: "array", items: ref("Run") },
    nextBefore: maybe(ms),
    nextBeforeIso: maybe(iso),
  }, ["job", "runs", "nextBefore"]),
  RunResult: obj({
    ok: { const: true },
    job: { type: "string" },
    ...instants("slot"),
    outcome: { type: "string" },
    error: maybe({ type: "string" }),
  }, ["ok", "job", "slot", "outcome"]),
  BackfillStarted: obj({
    job: { type: "string" },
    planned: { type: "integer" },
    first: maybe(ms),
    firstIso: maybe(iso),
    last: maybe(ms),
    lastIso: maybe(iso),
  }, ["job", "planned"]),
  PauseResult: obj({ job: { type: "string" }, paused: { type: "boolean" } }, ["job", "paused"]),
  Deleted: obj({ job: { type: "string" }, deleted: { const: true } }, ["job", "deleted"]),
  TickReport: obj({
    ok: { type: "boolean" },
    node: { type: "string" },
    ...instants("now"),
    jobs: { type: "object", additionalProperties: { type: "object" } },
  }, ["ok", "node", "now"]),
};
