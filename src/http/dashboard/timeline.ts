/**
 * The per-job timeline: an inline SVG of the past 24 h of recorded slots (coloured by
 * outcome) and the next 24 h of planned slots, with "now" in the middle. No script.
 * The overview draws one compact path per outcome (a page of 100 busy jobs stays
 * small); a job's own page draws one mark per slot with a hover `<title>`.
 */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { RunRecord, RunStatus } from "../../store/types.ts";
import { instantFormatter } from "./_format.ts";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const DAY = 86_400_000;
const WIDTH = 960;
const HEIGHT = 46;
const TRACK_Y = 6;
const TRACK_H = 22;
/** Marks drawn per side at most in detail mode; denser schedules still read as a band. */
const MAX_MARKS = 720;

/** Outcome colours, in legend order; the stylesheet defines `.s-<status>`. */
export const STATUS_ORDER: readonly (RunStatus | "planned")[] = ["ok", "error", "timeout", "abandoned", "skipped", "missed", "running", "planned"];

/** Later paths paint over earlier ones where marks touch: failures stay visible. */
const PAINT_ORDER: readonly RunStatus[] = ["ok", "skipped", "missed", "running", "abandoned", "timeout", "error"];

/** What the timeline draws. */
export interface TimelineInput {
  now: number;
  zone: string;
  /** Recorded slots; those outside the past 24 h are ignored. */
  past: readonly RunRecord[];
  /** Planned slots; those beyond the next 24 h are ignored. */
  future: readonly number[];
  /** One mark per slot with a tooltip (a job's page); default false (compact paths). */
  detail?: boolean;
}

function x(ms: number, now: number): number {
  return Math.round(((ms - (now - DAY)) / (2 * DAY)) * WIDTH * 10) / 10;
}

/** A path of vertical strokes at each x, deduplicated to the half pixel. */
function strokes(xs: readonly number[], top: number, height: number): string {
  const seen = new Set<number>();
  let d = "";
  for (const v of xs) {
    const key = Math.round(v * 2) / 2;
    if (seen.has(key)) continue;
    seen.add(key);
    d += `M${key} ${top}v${height}`;
  }
  return d;
}

function compact(input: TimelineInput, past: readonly RunRecord[], future: readonly number[]): Html {
  const { now } = input;
  const byStatus = new Map<RunStatus, number[]>(PAINT_ORDER.map((s) => [s, []]));
  for (const r of past) byStatus.get(r.status)?.push(x(r.slot, now));
  return html`${future.length === 0 ? "" : html`<path class="mark s-planned" d="${strokes(future.map((t) => x(t, now)), TRACK_Y + 5, TRACK_H - 10)}"><title>${future.length} planned in the next 24 h</title></path>`}
${[...byStatus].filter(([, xs]) => xs.length > 0).map(([status, xs]) => html`<path class="mark s-${status}" data-status="${status}" data-count="${xs.length}" d="${strokes(xs, TRACK_Y + 2, TRACK_H - 4)}"><title>${xs.length} ${status} in the past 24 h</title></path>`)}`;
}

function detailed(input: TimelineInput, past: readonly RunRecord[], future: readonly number[]): Html {
  const { now } = input;
  const format = instantFormatter(input.zone);
  return html`${future.slice(0, MAX_MARKS).map((t) => html`<rect class="mark s-planned" x="${x(t, now) - 1.5}" y="${TRACK_Y + 5}" width="3" height="${TRACK_H - 10}"><title>${format(t)}: planned</title></rect>`)}
${past.slice(0, MAX_MARKS).map((r) => html`<rect class="mark s-${r.status}" data-status="${r.status}" x="${x(r.slot, now) - 2}" y="${TRACK_Y + 2}" width="4" height="${TRACK_H - 4}"><title>${format(r.slot)}: ${r.status}${r.kind === "manual" ? " (manual)" : ""}</title></rect>`)}`;
}

/** Renders the timeline SVG. */
export function timeline(input: TimelineInput): Html {
  const { now } = input;
  const past = input.past.filter((r) => r.slot >= now - DAY && r.slot <= now);
  const future = input.future.filter((t) => t > now && t <= now + DAY);
  const counts = new Map<string, number>();
  for (const r of past) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const summary = [...counts].map(([s, n]) => `${n} ${s}`).join(", ");
  const label = `Past 24 hours: ${past.length} slots${summary ? ` (${summary})` : ""}. Next 24 hours: ${future.length} planned slots.`;
  const ticks = [-24, -18, -12, -6, 0, 6, 12, 18, 24];
  const at = (h: number): number => x(now + h * 3_600_000, now);
  return html`<svg class="timeline" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${label}">
<rect class="track" x="0" y="${TRACK_Y}" width="${WIDTH}" height="${TRACK_H}" rx="4"></rect>
<rect class="track-past" x="0" y="${TRACK_Y}" width="${WIDTH / 2}" height="${TRACK_H}" rx="4"></rect>
<path class="grid" d="${ticks.map((h) => `M${at(h)} ${TRACK_Y}v${TRACK_H}`).join("")}"></path>
${input.detail ? detailed(input, past, future) : compact(input, past, future)}
<line class="now" x1="${WIDTH / 2}" x2="${WIDTH / 2}" y1="2" y2="${TRACK_Y + TRACK_H + 4}"></line>
${ticks.map((h) => html`<text class="axis" x="${at(h)}" y="${HEIGHT - 3}" text-anchor="${h === -24 ? "start" : h === 24 ? "end" : "middle"}">${h === 0 ? "now" : `${h > 0 ? "+" : "−"}${Math.abs(h)}h`}</text>`)}
</svg>`;
}

/** The colour legend shared by every timeline on the page. */
export function legend(): Html {
  return html`<ul class="legend" aria-label="Timeline legend">${STATUS_ORDER.map((s) => html`<li><span class="swatch s-${s}"></span>${s}</li>`)}</ul>`;
}
