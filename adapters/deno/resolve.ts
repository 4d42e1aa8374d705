/** Host resolution for webhook SSRF checks on Deno (`Deno.resolveDns`). */

/**
 * Every A and AAAA address of `host`, for `createScheduler({ webhooks: { resolve } })`:
 * each delivery is refused when any of them is internal (unless allowed). An IP literal
 * resolves to itself.
 *
 * @throws the resolver's error, or an `Error`, when the host has no A or AAAA address.
 * @example
 * ```ts
 * import { createScheduler } from "edgecron";
 * import { resolveHost } from "edgecron/deno";
 *
 * createScheduler({ webhookSecret: "s3cret", webhooks: { resolve: resolveHost } });
 * ```
 */
export async function resolveHost(host: string): Promise<string[]> {
  const name = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (/^[\d.]+$/.test(name) || name.includes(":")) return [name];
  const [a, aaaa] = await Promise.allSettled([Deno.resolveDns(name, "A"), Deno.resolveDns(name, "AAAA")]);
  const found = [...(a.status === "fulfilled" ? a.value : []), ...(aaaa.status === "fulfilled" ? aaaa.value : [])];
  // An empty list would pass the SSRF check and leave the delivery to resolve the name
  // again, unchecked: no address is a failure, as node:dns's ENOTFOUND is.
  if (found.length === 0) throw a.status === "rejected" ? a.reason : new Error(`${name}: no A or AAAA record`);
  return found;
}
