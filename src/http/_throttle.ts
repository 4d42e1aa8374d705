/**
 * Back-off on failed dashboard sign-ins: after a few wrong tokens from one client, the
 * next attempts are answered 429 with `Retry-After`, without even checking the token,
 * for a delay that doubles with each further failure. A node-wide ceiling bounds the
 * guesses of many clients together (an attacker with many addresses): past it, every
 * client waits until the ceiling's window ends.
 */
import { clientAddress } from "./client_address.ts";

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
  /** Wrong tokens from all clients together per `ceilingWindowMs` before everyone waits; default 100. */
  ceiling?: number;
  /** The ceiling's window; default 1 min. */
  ceilingWindowMs?: number;
}

/** Failed-login bookkeeping per client key. */
export interface LoginThrottle {
  /** Milliseconds `key` must still wait before a sign-in is checked; 0 when it may try. */
  wait(key: string, now: number): number;
  /** Records a wrong token from `key`. */
  failed(key: string, now: number): void;
  /**
   * After a good sign-in: forgets `key`, and takes back the failure `failed(key, countedAt)`
   * counted for this attempt before its token was checked (only wrong tokens count
   * toward the node-wide ceiling).
   */
  succeeded(key: string, countedAt: number): void;
}

interface Entry {
  failures: number;
  last: number;
  until: number;
}

/**
 * Creates a throttle kept in memory (per node: each node backs off on its own).
 * Options: `free` (5), `baseMs` (1 s), `maxMs` (15 min), `maxKeys` (10 000), `ceiling`
 * (100 wrong tokens per `ceilingWindowMs`, 1 min, from all clients together).
 *
 * @example
 * const throttle = createLoginThrottle();
 * if (throttle.wait(ip, now) > 0) return tooMany();
 */
export function createLoginThrottle(options: ThrottleOptions = {}): LoginThrottle {
  const { free = 5, baseMs = 1000, maxMs = 15 * 60_000, maxKeys = 10_000, ceiling = 100, ceilingWindowMs = 60_000 } =
    options;
  const entries = new Map<string, Entry>();
  const node = { start: -Infinity, failures: 0 };
  const nodeWait = (now: number): number => {
    if (now >= node.start + ceilingWindowMs) return 0;
    return node.failures >= ceiling ? node.start + ceilingWindowMs - now : 0;
  };
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
      return Math.max(nodeWait(now), entry === undefined ? 0 : entry.until - now, 0);
    },
    failed(key, now) {
      if (now >= node.start + ceilingWindowMs) Object.assign(node, { start: now, failures: 0 });
      node.failures += 1;
      const entry = current(key, now) ?? { failures: 0, last: now, until: 0 };
      entry.failures += 1;
      entry.last = now;
      if (entry.failures >= free) {
        entry.until = now + Math.min(maxMs, baseMs * 2 ** Math.min(30, entry.failures - free));
      }
      entries.delete(key); // re-insert so Map order is least recently failed first
      entries.set(key, entry);
      while (entries.size > maxKeys) entries.delete(entries.keys().next().value as string);
    },
    succeeded(key, countedAt) {
      entries.delete(key);
      // Still in the window it was counted in (a window starts at its first failure).
      if (countedAt >= node.start && node.failures > 0) node.failures -= 1;
    },
  };
}

/**
 * The throttle key of a request: with `trustProxy`, the client address a proxy wrote
 * (`CF-Connecting-IP`, else the last `X-Forwarded-For` entry, which the trusted proxy
 * appended); otherwise, or without those headers, the connection's peer address as the
 * server recorded it (`setClientAddress`); one key for the whole node when neither is
 * known (a server that records no peer).
 */
export function clientKey(request: Request, trustProxy: boolean): string {
  if (trustProxy) {
    const cf = request.headers.get("cf-connecting-ip");
    if (cf !== null && cf.trim() !== "") return `ip:${cf.trim()}`;
    const forwarded = request.headers.get("x-forwarded-for");
    const last = forwarded?.split(",").map((s) => s.trim()).filter((s) => s !== "").at(-1);
    if (last !== undefined) return `ip:${last}`;
  }
  const peer = clientAddress(request);
  return peer === undefined ? "node" : `ip:${peer}`;
}
