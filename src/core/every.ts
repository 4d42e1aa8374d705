/**
 * `every()`: interval schedules on a fixed grid of elapsed time, so slots are a pure
 * function of the spec and never of when a process started.
 */
import { formatDuration, parseDuration } from "./duration.ts";
import { quote, SchedulerError } from "./errors.ts";
import { INSTANT_LIMIT, toEpochMs, toWholeEpochMs } from "./instant.ts";
import type { InstantInput } from "./instant.ts";
import { scheduleMethods } from "./iterate.ts";
import type { Schedule, ScheduleSpec } from "./types.ts";
import { zoneOffsets } from "./zone/offsets.ts";
import type { ZoneOffsets } from "./zone/offsets.ts";
import { withModifiers } from "./modifiers/modify.ts";
import { checkOptionKeys } from "./suggest.ts";
import type { ModifierOptions } from "./modifiers/modify.ts";

/** Options of {@link every}. */
export interface EveryOptions extends ModifierOptions {
  /**
   * Where the grid starts: an instant (epoch ms, `Date`, ISO string with offset) or
   * `"HH:MM"` (`"HH:MM:SS"`) local time in `timezone`, re-anchored each local day (the
   * interval must then divide 24 h). Default: the Unix epoch.
   */
  anchor?: InstantInput;
  /** IANA zone for an `"HH:MM"` anchor and for `except`; default `"UTC"`. */
  timezone?: string;
  /** The key `H` in an `except` expression hashes; no default. */
  hashKey?: string;
}

const DAY_MS = 86_400_000;
const CLOCK = /^([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/;

const pad = (n: number): string => String(n).padStart(2, "0");

function fixedGrid(anchor: number, interval: number): Pick<Schedule, "next" | "prev"> {
  return {
    next(afterMs: number): number | null {
      const after = toEpochMs(afterMs, { field: "after" });
      const t = anchor + (Math.floor((after - anchor) / interval) + 1) * interval;
      return t > INSTANT_LIMIT ? null : t;
    },
    prev(beforeMs: number): number | null {
      const before = toEpochMs(beforeMs, { field: "before" });
      const t = anchor + (Math.ceil((before - anchor) / interval) - 1) * interval;
      return t < -INSTANT_LIMIT ? null : t;
    },
  };
}

/**
 * The grid restarted at each local day's anchor, holding the `24h / interval` slots of a
 * 24-hour day: on a 25-hour day (fall back) its last cell is an hour longer, not an extra
 * slot (`every("24h", { anchor: "09:30" })` ran at 08:30 and 09:30 that day); on a
 * 23-hour day its last cell is an hour shorter.
 */
function dailyGrid(zone: ZoneOffsets, clock: number, interval: number): Pick<Schedule, "next" | "prev"> {
  const perDay = DAY_MS / interval;
  // Anchor of local day `day` (days since 1970-01-01), as epoch ms.
  const anchorOf = (day: number): number => zone.wallToInstant(day * 86_400 + clock) * 1000;
  const localDay = (ms: number): number => {
    const s = Math.floor(ms / 1000);
    return Math.floor((s + zone.offsetAt(s)) / 86_400);
  };
  return {
    next(afterMs: number): number | null {
      const after = toEpochMs(afterMs, { field: "after" });
      if (after >= INSTANT_LIMIT - 2 * DAY_MS) return null;
      let day = localDay(after);
      while (anchorOf(day) > after) day--;
      while (anchorOf(day + 1) <= after) day++;
      const start = anchorOf(day);
      const k = Math.floor((after - start) / interval) + 1;
      return k < perDay ? Math.min(start + k * interval, anchorOf(day + 1)) : anchorOf(day + 1);
    },
    prev(beforeMs: number): number | null {
      const before = toEpochMs(beforeMs, { field: "before" });
      if (before <= -INSTANT_LIMIT + 2 * DAY_MS) return null;
      let day = localDay(before);
      while (anchorOf(day) >= before) day--;
      while (anchorOf(day + 1) < before) day++;
      const start = anchorOf(day);
      return start + Math.min(Math.ceil((before - start) / interval) - 1, perDay - 1) * interval;
    },
  };
}

/**
 * A schedule that fires every `interval` (ms or a duration: `"90s"`, `"15m"`,
 * `"1h30m"`, `"PT15M"`; at least 1 s) on a grid anchored at the Unix epoch, at
 * `anchor`, or at `"HH:MM"` local time each day in `timezone`.
 *
 * Options: `anchor` (default the epoch), `timezone` (default `"UTC"`), and the
 * modifiers `except`, `startAt`, `endAt` (see `cron()`), `hashKey` for `H` in `except`.
 *
 * @throws {SchedulerError} `invalid-interval` (bad or too short interval, or one that does
 *   not divide 24 h with an `"HH:MM"` anchor), `invalid-instant`, `invalid-timezone`
 * @example
 * ```ts
 * import { every } from "edgecron";
 *
 * every("15m").next(Date.parse("2026-01-01T00:07:00Z")); // 00:15Z
 * every("6h", { anchor: "09:30", timezone: "Europe/Berlin" }); // 03:30, 09:30, 15:30, 21:30 Berlin time
 * ```
 */
export function every(interval: number | string, options: EveryOptions = {}): Schedule {
  checkOptionKeys(options, ["anchor", "timezone", "hashKey", "except", "startAt", "endAt"], "every");
  const ms = parseDuration(interval, { code: "invalid-interval", field: "interval", path: "every", min: 1000 });
  const zone = zoneOffsets(options.timezone ?? "UTC");
  const timezone = zone.id;
  const { anchor } = options;
  let grid: Pick<Schedule, "next" | "prev">;
  let spec: ScheduleSpec;
  const clock = typeof anchor === "string" ? CLOCK.exec(anchor.trim()) : null;
  if (clock !== null) {
    if (DAY_MS % ms !== 0) {
      throw new SchedulerError(
        "invalid-interval",
        `interval: ${quote(interval)} does not divide 24h, which an "HH:MM" anchor needs`,
        { path: "every" },
      );
    }
    const [h, m, s] = [Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0)];
    grid = dailyGrid(zone, h * 3600 + m * 60 + s, ms);
    spec = { every: formatDuration(ms), anchor: `${pad(h)}:${pad(m)}${s === 0 ? "" : `:${pad(s)}`}`, timezone };
  } else if (anchor !== undefined) {
    const at = toWholeEpochMs(anchor, { field: "anchor" });
    grid = fixedGrid(at, ms);
    spec = { every: formatDuration(ms), anchor: at, timezone };
  } else {
    grid = fixedGrid(0, ms);
    spec = { every: formatDuration(ms), timezone };
  }
  const plain = scheduleMethods({
    kind: "every",
    timezone,
    ...grid,
    toString: () => everyText(spec as { every: string; anchor?: number | string; timezone?: string }),
    toJSON: () => ({ ...spec }),
  });
  return withModifiers(plain, options, { hashKey: options.hashKey });
}

/** Text form: `@every 15m`, `@every 1h from 09:30`, `@every 1h from 2026-01-01T00:00:00.000Z`, with `CRON_TZ=<zone> ` when not UTC. */
export function everyText(spec: { every: string; anchor?: number | string; timezone?: string }): string {
  const { anchor, timezone } = spec;
  const from = anchor === undefined
    ? ""
    : ` from ${typeof anchor === "number" ? new Date(anchor).toISOString() : anchor}`;
  const text = `@every ${spec.every}${from}`;
  return timezone === undefined || timezone === "UTC" ? text : `CRON_TZ=${timezone} ${text}`;
}
