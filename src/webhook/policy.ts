/**
 * Which webhook targets a scheduler may call (SSRF protection). By default internal
 * addresses are refused: loopback, private, link-local, shared (CGNAT), unspecified,
 * multicast and reserved ranges, in every IPv4 spelling and through IPv4-mapped IPv6,
 * plus `localhost` and `*.localhost`. Checked by literal when a job is defined, and
 * again before each delivery after resolving the host when a `resolve` is given.
 */
import { classifyHost, type InternalKind } from "../core/address.ts";
import { quote, SchedulerError } from "../core/errors.ts";
import type { WebhookOptions } from "../engine/types.ts";

/** `SchedulerOptions.webhooks`, validated once. */
export interface WebhookPolicy {
  /** True when `url` is explicitly allowed (`webhooks.allow`), internal or not. */
  allowed(url: URL): boolean;
  resolve: ((host: string) => Promise<string[]>) | undefined;
  /** Connects to a checked address (`webhooks.pinnedFetch`); undefined: the scheduler's fetch. */
  pinnedFetch: ((address: string, url: URL, init: RequestInit) => Promise<Response>) | undefined;
  /** How many bytes of a failed delivery's response body go into the run's error. */
  errorBodyBytes: number;
}

const invalid = (field: string, message: string): SchedulerError =>
  new SchedulerError("invalid-spec", `webhooks.${field}: ${message}`, { path: `webhooks.${field}` });

/**
 * Validates `SchedulerOptions.webhooks`.
 *
 * @throws {SchedulerError} `invalid-spec` for an origin that is not an http(s) origin,
 * a non-function `allow` or `resolve`, or an `errorBodyBytes` outside 0–4096.
 */
export function resolveWebhookPolicy(options: WebhookOptions | undefined): WebhookPolicy {
  const { allow, resolve, pinnedFetch, errorBodyBytes = 0 } = options ?? {};
  let allowed: (url: URL) => boolean = () => false;
  if (Array.isArray(allow)) {
    const origins = new Set<string>();
    for (const entry of allow as readonly unknown[]) {
      let origin: string | undefined;
      try {
        const url = new URL(String(entry));
        if ((url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === "") {
          origin = url.origin;
        }
      } catch {
        origin = undefined;
      }
      if (typeof entry !== "string" || origin === undefined) {
        throw invalid("allow", `expected http(s) origins like "http://127.0.0.1:8080", got ${quote(String(entry))}`);
      }
      origins.add(origin);
    }
    allowed = (url) => origins.has(url.origin);
  } else if (typeof allow === "function") {
    allowed = (url) => {
      try {
        return allow(new URL(url.href)) === true;
      } catch {
        return false; // a throwing predicate allows nothing
      }
    };
  } else if (allow !== undefined) {
    throw invalid("allow", "expected a list of origins or a function (url) => boolean");
  }
  if (resolve !== undefined && typeof resolve !== "function") {
    throw invalid("resolve", "expected a function (host) => Promise<string[]>");
  }
  if (pinnedFetch !== undefined && typeof pinnedFetch !== "function") {
    throw invalid("pinnedFetch", "expected a function (address, url, init) => Promise<Response>");
  }
  if (pinnedFetch !== undefined && resolve === undefined) {
    throw invalid("pinnedFetch", "needs webhooks.resolve (the address to pin comes from it)");
  }
  if (!Number.isSafeInteger(errorBodyBytes) || errorBodyBytes < 0 || errorBodyBytes > 4096) {
    throw invalid("errorBodyBytes", `expected a whole number 0-4096, got ${quote(String(errorBodyBytes))}`);
  }
  return { allowed, resolve, pinnedFetch, errorBodyBytes };
}

const RULE = "internal targets are refused unless webhooks.allow lets them through";
const described = (kind: InternalKind): string => `${kind === "unspecified" ? "an unspecified" : `a ${kind}`} address`;

function refusal(host: string, kind: InternalKind): string {
  return `${quote(host)} is ${described(kind)}; ${RULE}`;
}

/**
 * Checks a target URL by its literal host (define time): http(s), no credentials, and
 * not internal unless allowed.
 *
 * @throws {SchedulerError} `invalid-spec` at `path` naming the reason.
 */
export function checkTargetUrl(raw: string, policy: WebhookPolicy, path: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SchedulerError("invalid-spec", `${path}: expected an http or https URL, got ${quote(raw)}`, { path });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SchedulerError("invalid-spec", `${path}: expected an http or https URL, got ${quote(url.protocol)}`, {
      path,
    });
  }
  if (url.username !== "" || url.password !== "") {
    throw new SchedulerError(
      "invalid-spec",
      `${path}: credentials in the URL are refused; send them in target.headers`,
      { path },
    );
  }
  if (policy.allowed(url)) return url;
  const kind = classifyHost(url.hostname);
  if (kind !== undefined) throw new SchedulerError("invalid-spec", `${path}: ${refusal(url.hostname, kind)}`, { path });
  return url;
}

/**
 * Checks a delivery just before it is sent: the literal check, then every address the
 * host resolves to (when the runtime gave a `resolve`). On Workers there is no resolver,
 * so only literal addresses are refused.
 *
 * Resolves to the checked addresses (the first is the one to connect to), or undefined
 * when none were resolved (an allowed target, an IP literal, or no resolver).
 *
 * @throws {Error} `webhook: ... refused: ...` when the target is internal and not allowed;
 *   `webhook: ... failed: cannot resolve ...` when `resolve` throws or gives no address.
 */
export async function checkDelivery(url: URL, policy: WebhookPolicy, where: string): Promise<string[] | undefined> {
  if (url.username !== "" || url.password !== "") throw new Error(`webhook: ${where} refused: credentials in the URL`);
  if (policy.allowed(url)) return undefined;
  const literal = classifyHost(url.hostname);
  if (literal !== undefined) throw new Error(`webhook: ${where} refused: ${refusal(url.hostname, literal)}`);
  if (policy.resolve === undefined) return undefined;
  let addresses: string[];
  try {
    addresses = await policy.resolve(url.hostname);
  } catch (error) {
    throw new Error(
      `webhook: ${where} failed: cannot resolve ${quote(url.hostname)} (${
        error instanceof Error ? error.message : String(error)
      })`,
    );
  }
  // An empty answer passed the loop below, and fetch then looked the name up again, unchecked.
  if (!Array.isArray(addresses) || addresses.length === 0) {
    throw new Error(`webhook: ${where} failed: cannot resolve ${quote(url.hostname)} (the resolver gave no address)`);
  }
  for (const address of addresses) {
    const kind = classifyHost(address);
    if (kind !== undefined) {
      throw new Error(
        `webhook: ${where} refused: ${quote(url.hostname)} resolves to ${quote(address)}, ${described(kind)}; ${RULE}`,
      );
    }
  }
  return addresses;
}
