/**
 * Webhook delivery for data-defined jobs: the engine calls `deliverWebhook()` as the
 * job's handler. Each request is signed (see `signature.ts`) and carries the run's
 * identity in headers; a 2xx answer is success, anything else rejects.
 */
import { quote, SchedulerError } from "../core/errors.ts";
import { SIGNATURE_HEADER, signDelivery } from "./signature.ts";
import type { RunContext, WebhookTarget } from "../engine/types.ts";
import { checkDelivery, resolveWebhookPolicy, type WebhookPolicy } from "./policy.ts";

/** Options of `deliverWebhook()`. */
export interface DeliveryOptions {
  /** The fetch to send with (the scheduler's `fetch` option). */
  fetch: typeof fetch;
  /** HMAC secret for `Edgecron-Signature`. Never sent, logged or put in an error. */
  secret: string;
  /** The engine's clock reading (epoch ms) for the signature timestamp. */
  nowMs: number;
  /** Which targets may be called; default: internal addresses refused, no resolver, no error body. */
  policy?: WebhookPolicy;
}

/** Headers edgecron sets on every delivery; a target's own headers cannot override them. */
export const DELIVERY_HEADERS: readonly string[] = [
  SIGNATURE_HEADER,
  "Edgecron-Job",
  "Edgecron-Slot",
  "Edgecron-Attempt",
];

/**
 * Header names a target may not set (checked by the job schema for `define()` and the
 * API alike): every `Edgecron-*` (so all of `DELIVERY_HEADERS`), and the framing and
 * routing headers the runtime owns.
 */
export const RESERVED_HEADER =
  /^(?:edgecron-.*|host|content-length|transfer-encoding|connection|keep-alive|upgrade|te|trailer|expect|proxy-.*)$/i;

/**
 * A header value fetch sends (RFC 9110 field values: visible ASCII, Latin-1, spaces and
 * tabs). Other control characters fail the request, and text beyond Latin-1 fails `Headers`.
 */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** The most headers a target may set. */
export const MAX_TARGET_HEADERS = 50;

/** Where a request went, without credentials or query string (they may hold secrets). */
function describe(method: string, url: URL): string {
  return `${method} ${url.origin}${url.pathname}`;
}

async function snippet(response: Response, max: number): Promise<string> {
  if (response.body === null || max === 0) {
    await response.body?.cancel().catch(() => {});
    return "";
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  // Only printable text: no control or bidi characters from the target reach a page or log.
  const text = new TextDecoder().decode(bytes.subarray(0, max)).replace(
    /[\s\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g,
    " ",
  ).trim();
  return text.length === 0 ? "" : `: ${quote(text)}`;
}

/**
 * The body a target without its own `body` sends: JSON `{ job, slot, attempt, payload }`
 * with `slot` as an ISO-8601 instant. GET requests send no body.
 */
export function defaultWebhookBody(ctx: Pick<RunContext, "job" | "slot" | "attempt" | "payload">): string {
  return JSON.stringify({
    job: ctx.job,
    slot: new Date(ctx.slot).toISOString(),
    attempt: ctx.attempt,
    payload: ctx.payload ?? null,
  });
}

/**
 * Sends one signed webhook delivery and resolves on a 2xx answer.
 *
 * Headers: `Edgecron-Signature: t=<unix s>,v1=<hex>,v2=<hex>` (see `signature.ts`),
 * `Edgecron-Job` (the job name), `Edgecron-Slot` (the slot as an ISO-8601 instant,
 * e.g. `2026-11-30T12:00:00.000Z`), `Edgecron-Attempt` (1-based). Redirects are not
 * followed (a 3xx is a failure), so a delivery never lands somewhere unconfigured.
 * The request is aborted with `ctx.signal`. Internal targets are refused unless
 * `options.policy` allows them (see `webhook_policy.ts`); a failed answer keeps only its
 * status line and `policy.errorBodyBytes` of its body (default none) in the error.
 *
 * @throws {SchedulerError} `invalid-spec` when the target URL is not http(s) or the secret is empty.
 * @throws {Error} on a non-2xx answer (`webhook: POST https://x/y answered 500 ...`),
 *   a network error, or an abort; the message never contains the secret, the URL's
 *   credentials or its query string.
 * @example
 * await deliverWebhook({ url: "https://example.com/hook" }, ctx, { fetch, secret, nowMs: clock.now() });
 */
export async function deliverWebhook(target: WebhookTarget, ctx: RunContext, options: DeliveryOptions): Promise<void> {
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    throw new SchedulerError("invalid-spec", `target.url: expected an absolute http(s) URL, got ${quote(target.url)}`, {
      path: "target.url",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SchedulerError("invalid-spec", `target.url: expected an http(s) URL, got ${quote(url.protocol)}`, {
      path: "target.url",
    });
  }
  const method = target.method ?? "POST";
  const where = describe(method, url);
  const policy = options.policy ?? resolveWebhookPolicy(undefined);
  const checked = await checkDelivery(url, policy, where);
  // An IP literal needs no pinning; a name is sent to the address that was checked.
  const pinned = policy.pinnedFetch !== undefined && checked !== undefined && checked.length > 0 &&
      !/^[\d.]+$|^\[/.test(url.hostname)
    ? { send: policy.pinnedFetch, address: checked[0] as string }
    : undefined;
  // A GET sends no body, and the signature covers the body sent: a stored `body` with GET
  // (refused at define time now) would sign what the target never receives.
  if (method === "GET" && target.body !== undefined) {
    throw new Error(`webhook: ${where} refused: a GET request sends no body (target.body)`);
  }
  const body = target.body ?? (method === "GET" ? "" : defaultWebhookBody(ctx));
  const headers = new Headers();
  for (const [name, value] of Object.entries(target.headers ?? {})) {
    // A definition stored before these rules (or by hand) must not override edgecron's own headers.
    if (RESERVED_HEADER.test(name)) {
      throw new Error(`webhook: ${where} refused: header ${quote(name)} is set by edgecron`);
    }
    if (typeof value !== "string" || !HEADER_VALUE.test(value)) {
      // Not the value itself: a header is where a target's credentials go.
      throw new Error(`webhook: ${where} refused: header ${quote(name)} has a value fetch cannot send`);
    }
    headers.set(name, value);
  }
  if (target.body === undefined && method !== "GET" && !headers.has("content-type")) {
    headers.set("Content-Type", "application/json");
  }
  const identity = { job: ctx.job, slot: new Date(ctx.slot).toISOString(), attempt: String(ctx.attempt) };
  const signed = { method, url: url.href, ...identity, body };
  headers.set(SIGNATURE_HEADER, await signDelivery(options.secret, signed, Math.floor(options.nowMs / 1000)));
  headers.set("Edgecron-Job", identity.job);
  headers.set("Edgecron-Slot", identity.slot);
  headers.set("Edgecron-Attempt", identity.attempt);

  if (ctx.signal.aborted) throw new Error(`webhook: ${where} aborted`, { cause: ctx.signal.reason });
  let response: Response;
  try {
    const init: RequestInit = {
      method,
      headers,
      body: method === "GET" ? null : body,
      signal: ctx.signal,
      redirect: "manual",
    };
    response = pinned === undefined ? await options.fetch(url, init) : await pinned.send(pinned.address, url, init);
  } catch (error) {
    if (ctx.signal.aborted) throw new Error(`webhook: ${where} aborted`, { cause: ctx.signal.reason });
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : "";
    const why = `${error instanceof Error ? error.message : String(error)}${cause}`;
    throw new Error(`webhook: ${where} failed: ${why.replaceAll(options.secret, "[secret]")}`);
  }
  if (response.status >= 200 && response.status < 300) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  const detail = await snippet(response, policy.errorBodyBytes).catch(() => "");
  // The reason phrase is the target's text too: keep it short and printable.
  const reason = response.statusText.replace(/[^\x20-\x7e]/g, "").slice(0, 64);
  throw new Error(`webhook: ${where} answered ${response.status}${reason ? ` ${reason}` : ""}${detail}`);
}
