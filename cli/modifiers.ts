/** `--except`, `--start` and `--end` of `edgecron next`: the schedule modifiers on the command line. */
import type { ModifierOptions } from "../src/core/mod.ts";
import { daysFromCivil, daysInMonth } from "../src/core/civil.ts";
import { quote, SchedulerError } from "../src/core/errors.ts";
import { toEpochMs } from "../src/core/instant.ts";
import { zoneOffsets } from "../src/core/zone/offsets.ts";

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** What the command line gave: exclusions, and a start and an end as typed. */
export interface ModifierArgs {
  except: string[];
  start: string | undefined;
  end: string | undefined;
}

/**
 * The core modifier options of `args` for a schedule in `timezone`. A bare date is a
 * local day in that zone: `--start` from its first instant, `--end` through its last
 * (the end is the next day's midnight, which no slot reaches). Anything else is passed
 * on as an instant (ISO with offset, or epoch ms), which the core checks.
 */
export function modifierOptions(args: ModifierArgs, timezone: string): ModifierOptions {
  const out: ModifierOptions = {};
  if (args.except.length > 0) out.except = args.except;
  if (args.start !== undefined) out.startAt = instant(args.start, timezone, "--start");
  if (args.end !== undefined) out.endAt = instant(args.end, timezone, "--end");
  // Named as typed: the core would name `endAt` and the end day's next midnight.
  const [from, until] = [epochMs(out.startAt), epochMs(out.endAt)];
  if (from !== undefined && until !== undefined && until <= from) {
    throw new SchedulerError(
      "invalid-spec",
      `--end ${JSON.stringify(args.end)} is not after --start ${
        JSON.stringify(args.start)
      }: no slot can fall between them`,
      { path: "--end" },
    );
  }
  return out;
}

/** Epoch ms of what the core takes as an instant, or `undefined` (the caller names what was wrong). */
export function epochMs(at: unknown): number | undefined {
  if (at === undefined) return undefined;
  try {
    return toEpochMs(at);
  } catch {
    return undefined;
  }
}

function instant(text: string, timezone: string, flag: "--start" | "--end"): string | number {
  if (/^-?\d+$/.test(text)) return Number(text);
  const d = DATE.exec(text);
  if (d === null) return text;
  const [y, m, dd] = [Number(d[1]), Number(d[2]), Number(d[3])];
  // Refused here, by flag: the core would name `startAt`/`endAt`, and `--end`'s next day rolled 02-30 over.
  if (m < 1 || m > 12 || dd < 1 || dd > daysInMonth(y, m)) {
    throw new SchedulerError("invalid-spec", `${flag}: ${quote(text)} is not a calendar date`, { path: flag });
  }
  const day = daysFromCivil(y, m, dd) + (flag === "--end" ? 1 : 0);
  return zoneOffsets(timezone).wallToInstant(day * 86_400) * 1000;
}
