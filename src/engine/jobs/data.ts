/**
 * Data-defined jobs: `define()` and `undefine()` keep their definitions in the store, so
 * every node runs them, and each run is a signed webhook delivery.
 */
import { LONE_SURROGATE, LONE_SURROGATE_RULE, SchedulerError, UNSTORABLE } from "../../core/errors.ts";
import { MAX_SPEC_BYTES } from "../../store/_validate.ts";
import type { Store } from "../../store/types.ts";
import { deliverWebhook } from "../../webhook/deliver.ts";
import { checkTargetUrl, type WebhookPolicy } from "../../webhook/policy.ts";
import { jobLabel } from "../text.ts";
import type { Clock, JobPolicy, RunContext, Scheduler } from "../types.ts";
import type { JobViews } from "./info.ts";
import type { JobRegistry } from "./registry.ts";
import { checkName } from "./schema.ts";
import { type DataJobResolved, dataSpecJson, resolveDataJob } from "./spec.ts";

/** How this node sends deliveries: `signing` is the resolved `webhookSecret` (none: it cannot sign). */
export interface DeliveryDeps {
  fetch: typeof fetch;
  signing: string | undefined;
  webhooks: WebhookPolicy;
  clock: Clock;
}

/** What `define()` and `undefine()` use. */
export interface DataJobDeps extends Omit<DeliveryDeps, "fetch"> {
  store: Store;
  registry: JobRegistry;
  views: JobViews;
  defaults: JobPolicy;
  ready: () => Promise<void>;
}

/**
 * The handler every data job runs: one delivery of `job.target`, signed at the clock's now.
 *
 * @throws {SchedulerError} `invalid-spec` when this node has no `webhookSecret` (a job
 * another node defined reaches a node that cannot sign).
 */
export function webhookHandler(deps: DeliveryDeps): (job: DataJobResolved, ctx: RunContext) => Promise<void> {
  return (job, ctx) => {
    if (deps.signing === undefined) {
      throw new SchedulerError(
        "invalid-spec",
        "webhookSecret is not configured: data-defined jobs cannot run on this node",
      );
    }
    return deliverWebhook(job.target, ctx, {
      fetch: deps.fetch,
      secret: deps.signing,
      nowMs: deps.clock.now(),
      policy: deps.webhooks,
    });
  };
}

/** The place of the first text (a value or a key) in `value` holding a lone surrogate. */
function loneAt(value: unknown, path: string): string | undefined {
  if (typeof value === "string") return LONE_SURROGATE.test(value) ? path : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`;
    const found = LONE_SURROGATE.test(key) ? at : loneAt(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * `scheduler.define(name, spec, { ifVersion })` and `scheduler.undefine(name)`. A spec is
 * checked in full (name, schema, target URL against the webhook policy, a secret to sign
 * with) before the store is called, so a refusal is always the caller's input.
 *
 * @throws {SchedulerError} `invalid-name`, `invalid-spec`, `conflict` (a code job has the
 * name, or `ifVersion` does not match), `store-error`.
 */
export function createDataJobs(deps: DataJobDeps): Pick<Scheduler, "define" | "undefine"> {
  const { store, registry, clock } = deps;
  return {
    async define(name, spec, opts = {}) {
      checkName(name);
      if (registry.isCode(name)) {
        throw new SchedulerError("conflict", `${jobLabel(name)} is a code-defined job`, { path: "name" });
      }
      const job = resolveDataJob(name, spec, deps.defaults);
      checkTargetUrl(job.target.url, deps.webhooks, `jobs.${name}.target.url`);
      // Refused here rather than accepted and failed at every run: this node could not sign one delivery.
      if (deps.signing === undefined) {
        throw new SchedulerError(
          "invalid-spec",
          `webhookSecret: ${
            jobLabel(name)
          } is a webhook job, and this scheduler has no webhookSecret to sign its deliveries; pass createScheduler({ webhookSecret })`,
          { path: "webhookSecret" },
        );
      }
      // Computed before the store call: a failure here is the caller's input, not the store's.
      const json = dataSpecJson(job, spec);
      // Postgres refused it, the other stores kept it and the webhook sent U+FFFD: refused alike.
      const at = loneAt(json, `jobs.${name}`);
      if (at !== undefined) {
        throw new SchedulerError("invalid-spec", `${at}: ${LONE_SURROGATE_RULE}`, { path: at });
      }
      // The SQL stores kept any size (a 5 MB payload read by every node's every snapshot, and
      // past D1's row limit a store-error); Deno KV refused past one value: refused alike.
      // Counted as the Deno KV store counts it (its own check stands behind this one).
      const bytes = new TextEncoder().encode(JSON.stringify(json)).length;
      if (bytes > MAX_SPEC_BYTES) {
        throw new SchedulerError(
          "invalid-spec",
          `jobs.${name}: the definition is ${bytes} bytes of JSON, over the ${MAX_SPEC_BYTES} every store keeps; ` +
            "keep large data out of the payload and headers (the receiver can fetch it)",
          { path: `jobs.${name}` },
        );
      }
      await deps.ready();
      const def = await store.putDef(name, json, clock.now(), opts);
      registry.setData(name, registry.resolveDef(def));
      return (await deps.views.get(name))!;
    },
    async undefine(name) {
      await deps.ready();
      // The store deletes the job's state (its pause) and run history with the definition:
      // a job defined again under the name starts afresh.
      // A name no store can hold (a NUL, a lone surrogate) names no definition.
      const removed = UNSTORABLE.test(name) ? false : await store.deleteDef(name);
      registry.setData(name, undefined);
      return removed;
    },
  };
}
