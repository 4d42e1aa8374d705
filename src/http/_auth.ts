/**
 * Authentication for the router: a bearer token compared in constant time, and for
 * the dashboard a session cookie holding an expiry and an HMAC of it under the token
 * (never the token itself), plus a CSRF token derived from the session.
 */
import { hmacHex, secretsEqual } from "../engine/signature.ts";

/** The dashboard's session cookie. */
export const SESSION_COOKIE = "edgecron_session";

/** What the router needs to authenticate requests. */
export interface Auth {
  /** False only with `{ public: true }`. */
  readonly required: boolean;
  /** True when `Authorization: Bearer <token>` carries the token. */
  bearer(request: Request): Promise<boolean>;
  /** A fresh session cookie value valid until `nowMs + ttl`. */
  issueSession(nowMs: number): Promise<string>;
  /** True when `value` is a session this token issued and it has not expired. */
  session(value: string | undefined, nowMs: number): Promise<boolean>;
  /** True when `presented` is the login token. */
  login(presented: string): Promise<boolean>;
  /** The CSRF token for forms rendered under `session` (`""` in public mode). */
  csrf(session: string | undefined): Promise<string>;
  /** True when `presented` is the CSRF token of `session`. */
  checkCsrf(session: string | undefined, presented: string | null): Promise<boolean>;
}

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

/** Builds the authenticator; `token` undefined means public mode. */
export function createAuth(token: string | undefined, ttlMs: number): Auth {
  if (token === undefined) {
    return {
      required: false,
      bearer: () => Promise.resolve(true),
      issueSession: () => Promise.resolve(""),
      session: () => Promise.resolve(true),
      login: () => Promise.resolve(true),
      csrf: () => Promise.resolve(""),
      // Anyone may call the API in public mode, so a CSRF token would protect nothing;
      // the Origin / Sec-Fetch-Site check still refuses cross-site form posts.
      checkCsrf: () => Promise.resolve(true),
    };
  }
  const sign = (exp: number): Promise<string> => hmacHex(token, `edgecron-session:${exp}`);
  return {
    required: true,
    async bearer(request) {
      const match = BEARER.exec(request.headers.get("authorization") ?? "");
      return match !== null && await secretsEqual(match[1] as string, token);
    },
    async issueSession(nowMs) {
      const exp = Math.floor((nowMs + ttlMs) / 1000);
      return `${exp}.${await sign(exp)}`;
    },
    async session(value, nowMs) {
      const match = /^(\d{1,12})\.([0-9a-f]{64})$/.exec(value ?? "");
      if (match === null) return false;
      const exp = Number(match[1]);
      if (exp * 1000 <= nowMs) return false;
      return secretsEqual(match[2] as string, await sign(exp));
    },
    login: (presented) => secretsEqual(presented, token),
    async csrf(session) {
      return session === undefined ? "" : hmacHex(token, `edgecron-csrf:${session}`);
    },
    async checkCsrf(session, presented) {
      if (session === undefined || presented === null || presented.length === 0) return false;
      return secretsEqual(presented, await hmacHex(token, `edgecron-csrf:${session}`));
    },
  };
}

/**
 * True when a state-changing browser request comes from this site: refuses
 * `Sec-Fetch-Site` other than `same-origin`/`none`, `Origin: null`, and an `Origin`
 * whose host is neither the request URL's nor the `Host` header's.
 */
export function sameOrigin(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return false;
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  if (origin === "null") return false;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return false;
  }
  // A browser sets both the URL and Host to the site it posts to, so either may vouch;
  // proxies and local dev servers sometimes rewrite one of them.
  return originHost === new URL(request.url).host || originHost === request.headers.get("host");
}
