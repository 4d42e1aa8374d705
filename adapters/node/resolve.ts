/** Host resolution for webhook SSRF checks on Node and Bun (`node:dns`). */
import { lookup } from "node:dns/promises";

/**
 * Every address `host` resolves to, for `createScheduler({ webhooks: { resolve } })`:
 * each delivery is refused when any of them is internal (unless allowed).
 *
 * @throws the resolver's error (`ENOTFOUND`) when the host does not resolve.
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { resolveHost } from "edgecron/node";
 *
 * createScheduler({ webhookSecret: "s3cret", webhooks: { resolve: resolveHost } });
 * ```
 */
export async function resolveHost(host: string): Promise<string[]> {
  const name = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);
}
