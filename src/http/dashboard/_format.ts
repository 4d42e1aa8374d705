/** Text for the dashboard: schedules in words, instants in a job's zone, relative times. */
import cronstrue from "cronstrue";
import type { ScheduleSpec } from "../../core/types.ts";
import { formatDuration, tryParseDuration } from "../../core/duration.ts";

/**
 * A cron expression in words (cronstrue), or undefined when cronstrue cannot read it. A
 * day-of-week `N/S` is given to it as `N-7/S`: it read `5/1` as Friday to Saturday, where
 * the schedule (as cronie's) runs Friday to Sunday. `aws`: EventBridge's form, whose
 * day-of-week counts from 1, Sunday (read as cron, `2` was said to be Tuesday).
 */
export function cronInWords(cron: string, aws = false): string | undefined {
  const fields = cron.trim().split(/\s+/);
  if (!aws && fields.length >= 5 && fields.length <= 7) {
    const dow = fields.length === 7 ? 5 : fields.length - 1;
    fields[dow] = fields[dow]!.replace(/(^|,)(\d|[A-Za-z]{3})\/(\d+)(?=,|$)/g, "$1$2-7/$3");
  }
  try {
    return cronstrue.toString(fields.join(" "), {
      use24HourTimeFormat: true,
      throwExceptionOnParseError: true,
      verbose: false,
      dayOfWeekStartIndexZero: !aws,
    });
  } catch {
    return undefined;
  }
}

/** The schedule in words: cronstrue for cron, our own phrasing for intervals and one-shots. */
export function scheduleInWords(spec: ScheduleSpec, zone: string): string {
  if ("cron" in spec) return cronInWords(spec.cron, spec.format === "aws") ?? "";
  if ("every" in spec) {
    const ms = tryParseDuration(spec.every);
    const every = ms === undefined ? spec.every : formatDuration(ms);
    const anchor = spec.anchor === undefined
      ? ""
      : typeof spec.anchor === "string"
      ? `, from ${spec.anchor} each day`
      : `, anchored at ${formatInstant(spec.anchor, "UTC")}`;
    return `Every ${every}${anchor}`;
  }
  return `Once, at ${formatInstant(spec.at, zone)}`;
}

function dateTimeFormat(locale: string, zone: string): Intl.DateTimeFormat {
  const options: Intl.DateTimeFormatOptions = {
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZoneName: "short",
  };
  try {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone: zone });
  } catch {
    return new Intl.DateTimeFormat(locale, { ...options, timeZone: "UTC" });
  }
}

/**
 * A formatter for instants in `zone`: `Mon 30 Nov, 14:00:00 CET`, always with seconds so
 * that every time on the page has one shape. Build one per zone and reuse it: Intl
 * formatters are costly to create.
 */
export function instantFormatter(zone: string): (ms: number) => string {
  const gb = dateTimeFormat("en-GB", zone);
  const us = dateTimeFormat("en-US", zone);
  return (ms) => {
    const p: Record<string, string> = {};
    for (const part of gb.formatToParts(ms)) p[part.type] = part.value;
    // en-GB names European zones (CET, BST) and en-US American ones (EST, PDT); each
    // gives "GMT-5"-style offsets for the other side, so take whichever has a name.
    let abbr = p.timeZoneName ?? "";
    if (abbr.startsWith("GMT") && abbr !== "GMT") {
      const alt = us.formatToParts(ms).find((x) => x.type === "timeZoneName")?.value;
      if (alt !== undefined && !alt.startsWith("GMT")) abbr = alt;
    }
    return `${p.weekday} ${p.day} ${p.month}, ${p.hour}:${p.minute}:${p.second} ${abbr}`;
  };
}

/**
 * Formatters by zone for one page: an Intl formatter costs milliseconds to build, so a
 * page of 100 jobs in four zones builds four, not a hundred.
 */
export function formatterCache(): (zone: string) => (ms: number) => string {
  const byZone = new Map<string, (ms: number) => string>();
  return (zone) => {
    let format = byZone.get(zone);
    if (format === undefined) byZone.set(zone, format = instantFormatter(zone));
    return format;
  };
}

/** `Mon 30 Nov, 14:00:00 CET` in `zone`; see `instantFormatter` for many instants. */
export function formatInstant(ms: number, zone: string): string {
  return instantFormatter(zone)(ms);
}

/** `in 4m`, `2h 5m ago`, `now`: coarse, for a glance. */
export function relative(ms: number, now: number): string {
  const delta = ms - now;
  const abs = Math.abs(delta);
  if (abs < 1000) return "now";
  const units: [number, string][] = [[86_400_000, "d"], [3_600_000, "h"], [60_000, "m"], [1000, "s"]];
  const parts: string[] = [];
  let rest = abs;
  for (const [size, unit] of units) {
    const n = Math.floor(rest / size);
    if (n > 0 && parts.length < 2) {
      parts.push(`${n}${unit}`);
      rest -= n * size;
    }
    if (parts.length > 0 && n === 0) break;
  }
  const text = parts.join(" ");
  return delta > 0 ? `in ${text}` : `${text} ago`;
}

/** `1.2s`, `340ms`: a run's duration. */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return formatDuration(Math.round(ms / 1000) * 1000);
}
