/**
 * Which nodes tick a large minute: each node notes itself in one shared setting while
 * it has more due jobs than it can start at once, so the others can hand it its
 * rendezvous share (`spread.ts`). Advisory only: a stale or lost entry costs spread,
 * never a slot, since the store's claim decides every slot. In minutes with nothing due a
 * node only keeps its own entry alive (`keep()`: a read and a write every `KEEP_MS`).
 */
import { errorText } from "../text.ts";
import type { Store } from "../../store/types.ts";
import type { Clock, Logger } from "../types.ts";

/** The setting that holds `{ node: last seen (epoch ms) }`. */
export const PRESENCE_KEY = "edgecron.nodes";
/** An entry older than this is no longer a live node. */
export const PRESENCE_TTL_MS = 5 * 60_000;
/** A node rewrites its entry when it is older than this. */
const REFRESH_MS = 30_000;

/**
 * How old a node's own entry may grow in minutes with nothing due before it is written
 * again: well inside the TTL, so an idle node is still counted at the next large minute,
 * at a read and a write every few idle minutes instead of a read every minute.
 */
const KEEP_MS = PRESENCE_TTL_MS / 2;

/** How many times a node writes its entry when another node's write replaced it. */
const WRITE_TRIES = 3;
/**
 * After writing its entry, a node looks again this long later (and once more after each
 * rewrite, at most `VERIFY_TRIES` times): another node's read-modify-write that began
 * before this write can land after this node's read-back and drop its entry, and nodes
 * booting together do exactly that. Left out until its next large minute, a node loses
 * its share of that minute to the others.
 */
export const VERIFY_MS = 2_000;
const VERIFY_TRIES = 3;

const fresh = (at: number, now: number): boolean => at >= now - PRESENCE_TTL_MS && at <= now + PRESENCE_TTL_MS;

/** The presence of one node. */
export interface Presence {
  /**
   * The other nodes seen in large minutes within the TTL; notes this node. With `verify`
   * (a node with more jobs than its capacity, which others may spread to), a write is
   * checked again `VERIFY_MS` later. Never rejects.
   */
  live(now: number, verify?: boolean): Promise<string[]>;
  /**
   * In a minute with nothing due: rewrites this node's entry, as `live()` would, once it
   * is older than `KEEP_MS`, and reads nothing otherwise. Returns the other nodes seen
   * when it read (empty when it did not). Never rejects.
   */
  keep(now: number): Promise<string[]>;
  /** Stops the check that follows a write. */
  close(): void;
}

/** Creates the presence of `node` over `store`'s settings. */
export function createPresence(deps: { store: Store; node: string; log: Logger; clock?: Clock }): Presence {
  const { store, node, log, clock } = deps;
  let wrote = -Infinity;
  let timer: unknown;
  let checks = 0;
  /** The stored entries within the TTL at `now`. */
  const read = async (now: number): Promise<Map<string, number>> => {
    const live = new Map<string, number>();
    for (const [name, at] of parse(await store.getSetting(PRESENCE_KEY))) if (fresh(at, now)) live.set(name, at);
    return live;
  };
  const write = (live: Map<string, number>): Promise<void> =>
    store.putSetting(PRESENCE_KEY, JSON.stringify(Object.fromEntries(live)));
  const unavailable = (e: unknown): void =>
    log.debug("node presence unavailable; spreading without it", { error: errorText(e) });

  /** Looks again `VERIFY_MS` after a write; rewrites the entry (merged) when it is gone. */
  const checkSoon = (): void => {
    if (clock === undefined || timer !== undefined || checks >= VERIFY_TRIES) return;
    checks++;
    timer = clock.setTimeout(() => {
      timer = undefined;
      void check(clock.now());
    }, VERIFY_MS);
  };
  const check = async (now: number): Promise<void> => {
    try {
      const live = await read(now);
      if (live.has(node)) return;
      live.set(node, wrote);
      await write(live);
      checkSoon();
    } catch (e) {
      unavailable(e);
    }
  };
  return {
    close() {
      if (timer !== undefined) clock?.clearTimeout(timer);
      timer = undefined;
    },
    keep(now) {
      return now - wrote < KEEP_MS && now >= wrote ? Promise.resolve([]) : this.live(now);
    },
    async live(now, verify = false) {
      try {
        const live = await read(now);
        const mine = live.get(node);
        if (mine === undefined || now - Math.max(mine, wrote) >= REFRESH_MS) {
          wrote = now;
          // Read-modify-write: nodes booting together overwrite one another's entries, and a
          // node missing from the others' lists loses its whole share to them. Read back and
          // merge again until this node's entry stays (a few tries; advisory all the same).
          for (let tries = 0; tries < WRITE_TRIES; tries++) {
            live.set(node, now);
            await write(live);
            const back = await read(now);
            for (const [name, at] of back) if (!live.has(name)) live.set(name, at);
            if (back.get(node) === now) break;
          }
          if (verify) {
            checks = 0;
            checkSoon();
          }
        }
        live.delete(node);
        return [...live.keys()];
      } catch (e) {
        unavailable(e);
        return [];
      }
    },
  };
}

/** The stored map, tolerating anything: a bad value means no one is known. */
function parse(text: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, at] of storedEntries(text)) if (typeof at === "number" && Number.isFinite(at)) out.set(name, at);
  return out;
}

/** The entries of a setting that holds a JSON object; none for anything else (unset, not JSON, not an object). */
export function storedEntries(text: string | undefined): [string, unknown][] {
  if (text === undefined) return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? Object.entries(value) : [];
}
