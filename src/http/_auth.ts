/**
 * Authentication for the router: a bearer token compared in constant time, and for
 * the dashboard a session cookie holding an expiry, the revocation epoch and an HMAC of
 * both under the token (never the token itself), plus a CSRF token derived from the
 * session. Bumping the epoch (kept in the store, shared by every node) ends every
 * session; changing the token does too, as it is the HMAC key.
 */
import { hmacHex, secretsEqual } from "../core/crypto.ts";

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
  /** True when `value` is a session this token issued in the current epoch and it has not expired. */
  session(value: string | undefined, nowMs: number): Promise<boolean>;
  /** Ends every session on every node (a new revocation epoch). */
  revokeAll(nowMs: number): Promise<void>;
  /** True when `presented` is the login token. */
  login(presented: string): Promise<boolean>;
  /** The CSRF token for forms rendered under `session` (`""` in public mode). */
  csrf(session: string | undefined): Promise<string>;
  /** True when `presented` is the CSRF token of `session`. */
  checkCsrf(session: string | undefined, presented: string | null): Promise<boolean>;
}

const BEARER = /^Bearer[ ]+([^\s]+)\s*$/i;

/** Where the revocation epoch lives: shared settings (the scheduler's store). */
export interface EpochStore {
  getSetting(key: string): Promise<string | undefined>;
  putSetting(key: string, value: string): Promise<void>;
}

/** The settings key of the session revocation epoch. */
export const EPOCH_KEY = "edgecron.session-epoch";
/** How long a node trusts the epoch it read before reading it again. */
const EPOCH_CACHE_MS = 5000;

/**
 * Reads the epoch at most every 5 s; keeps the last value read when the store fails
 * (a session check must not take the dashboard down with the store), and fails closed
 * when it never read one.
 */
function epochReader(store: EpochStore): { read(now: number): Promise<string>; bump(now: number): Promise<void> } {
  let cached: { value: string; at: number } | undefined;
  return {
    async read(now) {
      if (cached !== undefined && now - cached.at < EPOCH_CACHE_MS && now >= cached.at) return cached.value;
      try {
        const value = (await store.getSetting(EPOCH_KEY)) ?? "0";
        cached = { value, at: now };
        return value;
      } catch (error) {
        if (cached !== undefined) return cached.value;
        throw error;
      }
    },
    async bump(now) {
      const value = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join(
        "",
      );
      await store.putSetting(EPOCH_KEY, value);
      cached = { value, at: now };
    },
  };
}

/** Builds the authenticator; `token` undefined means public mode. */
export function createAuth(token: string | undefined, ttlMs: number, store?: EpochStore): Auth {
  if (token === undefined) {
    return {
      required: false,
      bearer: () => Promise.resolve(true),
      issueSession: () => Promise.resolve(""),
      session: () => Promise.resolve(true),
      revokeAll: () => Promise.resolve(),
      login: () => Promise.resolve(true),
      csrf: () => Promise.resolve(""),
      // Anyone may call the API in public mode, so a CSRF token would protect nothing;
      // the Origin / Sec-Fetch-Site check still refuses cross-site form posts.
      checkCsrf: () => Promise.resolve(true),
    };
  }
  const epoch = epochReader(store ?? memoryEpoch());
  const sign = (exp: number, at: string): Promise<string> => hmacHex(token, `edgecron-session:${exp}:${at}`);
  return {
    required: true,
    async bearer(request) {
      const match = BEARER.exec(request.headers.get("authorization") ?? "");
      return match !== null && await secretsEqual(match[1] as string, token);
    },
    async issueSession(nowMs) {
      const exp = Math.floor((nowMs + ttlMs) / 1000);
      const at = await epoch.read(nowMs);
      return `${exp}.${at}.${await sign(exp, at)}`;
    },
    async session(value, nowMs) {
      const match = /^(\d{1,12})\.([0-9a-f]{1,16})\.([0-9a-f]{64})$/.exec(value ?? "");
      if (match === null) return false;
      const exp = Number(match[1]);
      if (exp * 1000 <= nowMs) return false;
      const at = match[2] as string;
      const valid = await secretsEqual(match[3] as string, await sign(exp, at));
      return valid && at === await epoch.read(nowMs).catch(() => undefined);
    },
    revokeAll: (nowMs) => epoch.bump(nowMs),
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

/** An epoch kept in this process only (a router built without a shared store). */
function memoryEpoch(): EpochStore {
  const settings = new Map<string, string>();
  return {
    getSetting: (key) => Promise.resolve(settings.get(key)),
    putSetting: (key, value) => {
      settings.set(key, value);
      return Promise.resolve();
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
