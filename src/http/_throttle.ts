/**
 * Back-off on failed dashboard sign-ins: after a few wrong tokens from one client, the
 * next attempts are answered 429 with `Retry-After`, without even checking the token,
 * for a delay that doubles with each further failure.
 */

/** Options of `createLoginThrottle()`. */
export interface ThrottleOptions {
  /** Failures allowed before the back-off starts; default 5. */
  free?: number;
  /** First delay; default 1 s, doubled per further failure. */
  baseMs?: number;
  /** Longest delay; default 15 min. A client quiet for twice this starts afresh. */
  maxMs?: number;
  /** Clients remembered; the oldest are forgotten first. Default 10 000. */
  maxKeys?: number;
}

/** Failed-login bookkeeping per client key. */
export interface LoginThrottle {
  /** Milliseconds `key` must still wait before a sign-in is checked; 0 when it may try. */
  wait(key: string, now: number): number;
  /** Records a wrong token from `key`. */
  failed(key: string, now: number): void;
  /** Forgets `key` after a good sign-in. */
  succeeded(key: string): void;
}

interface Entry {
  failures: number;
  last: number;
  until: number;
}

/**
 * Creates a throttle kept in memory (per node: each node backs off on its own).
 *
 * @example
 * const throttle = createLoginThrottle();
 * if (throttle.wait(ip, now) > 0) return tooMany();
 */
export function createLoginThrottle(options: ThrottleOptions = {}): LoginThrottle {
  const { free = 5, baseMs = 1000, maxMs = 15 * 60_000, maxKeys = 10_000 } = options;
  const entries = new Map<string, Entry>();
  const current = (key: string, now: number): Entry | undefined => {
    const entry = entries.get(key);
    if (entry !== undefined && now - entry.last > 2 * maxMs) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  return {
    wait(key, now) {
      const entry = current(key, now);
      return entry === undefined ? 0 : Math.max(0, entry.until - now);
    },
    failed(key, now) {
      const entry = current(key, now) ?? { failures: 0, last: now, until: 0 };
      entry.failures += 1;
      entry.last = now;
      if (entry.failures >= free) entry.until = now + Math.min(maxMs, baseMs * 2 ** Math.min(30, entry.failures - free));
      entries.delete(key); // re-insert so Map order is least recently failed first
      entries.set(key, entry);
      while (entries.size > maxKeys) entries.delete(entries.keys().next().value as string);
    },
    succeeded(key) {
      entries.delete(key);
    },
  };
}

/**
 * The throttle key of a request: with `trustProxy`, the client address a proxy wrote
 * (`CF-Connecting-IP`, else the last `X-Forwarded-For` entry, which the trusted proxy
 * appended); otherwise one key for the whole node, as the runtime's peer address is not
 * portable.
 */
export function clientKey(request: Request, trustProxy: boolean): string {
  if (!trustProxy) return "node";
  const cf = request.headers.get("cf-connecting-ip");
  if (cf !== null && cf.trim() !== "") return `ip:${cf.trim()}`;
  const forwarded = request.headers.get("x-forwarded-for");
  const last = forwarded?.split(",").map((s) => s.trim()).filter((s) => s !== "").at(-1);
  return last === undefined ? "node" : `ip:${last}`;
}
