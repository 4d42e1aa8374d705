/**
 * Data-defined jobs: `define()` and `undefine()` keep their definitions in the store, so
 * every node runs them, and each run is a signed webhook delivery.
 */
import { SchedulerError } from "../../core/errors.ts";
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
      await deps.ready();
      const def = await store.putDef(name, json, clock.now(), opts);
      registry.setData(name, registry.resolveDef(def));
      return (await deps.views.get(name))!;
    },
    async undefine(name) {
      await deps.ready();
      const removed = await store.deleteDef(name);
      registry.setData(name, undefined);
      return removed;
    },
  };
}
