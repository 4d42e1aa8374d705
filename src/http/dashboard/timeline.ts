/**
 * The per-job timeline: an inline SVG of the past 24 h of recorded slots (coloured by
 * outcome) and the next 24 h of planned slots, with "now" in the middle. No script:
 * each mark carries a `<title>` the browser shows on hover.
 */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { RunRecord, RunStatus } from "../../store/types.ts";
import { instantFormatter } from "./_format.ts";

const DAY = 86_400_000;
const WIDTH = 960;
const HEIGHT = 46;
const TRACK_Y = 6;
const TRACK_H = 22;
/** Marks drawn per side at most; denser schedules still read as a solid band. */
const MAX_MARKS = 720;

/** Outcome colours, in legend order; the stylesheet defines `.s-<status>`. */
export const STATUS_ORDER: readonly (RunStatus | "planned")[] = ["ok", "error", "timeout", "abandoned", "skipped", "missed", "running", "planned"];

/** What the timeline draws. */
export interface TimelineInput {
  now: number;
  zone: string;
  /** Recorded slots; those outside the past 24 h are ignored. */
  past: readonly RunRecord[];
  /** Planned slots; those beyond the next 24 h are ignored. */
  future: readonly number[];
}

function x(ms: number, now: number): number {
  return Math.round(((ms - (now - DAY)) / (2 * DAY)) * WIDTH * 10) / 10;
}

/** Renders the timeline SVG. */
export function timeline(input: TimelineInput): HtmlEscapedString | Promise<HtmlEscapedString> {
  const { now, zone } = input;
  const past = input.past.filter((r) => r.slot >= now - DAY && r.slot <= now).slice(0, MAX_MARKS);
  const future = input.future.filter((t) => t > now && t <= now + DAY).slice(0, MAX_MARKS);
  const counts = new Map<string, number>();
  for (const r of past) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const summary = [...counts].map(([s, n]) => `${n} ${s}`).join(", ");
  const label = `Past 24 hours: ${past.length} slots${summary ? ` (${summary})` : ""}. Next 24 hours: ${future.length} planned slots.`;
  const ticks = [-24, -18, -12, -6, 0, 6, 12, 18, 24];
  const formatInstant = instantFormatter(zone);
  return html`<svg class="timeline" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${label}">
<rect class="track" x="0" y="${TRACK_Y}" width="${WIDTH}" height="${TRACK_H}" rx="4"></rect>
<rect class="track-past" x="0" y="${TRACK_Y}" width="${WIDTH / 2}" height="${TRACK_H}" rx="4"></rect>
${ticks.map((h) => html`<line class="grid" x1="${x(now + h * 3_600_000, now)}" x2="${x(now + h * 3_600_000, now)}" y1="${TRACK_Y}" y2="${TRACK_Y + TRACK_H}"></line>`)}
${future.map((t) => html`<rect class="mark s-planned" x="${x(t, now) - 1.5}" y="${TRACK_Y + 5}" width="3" height="${TRACK_H - 10}" rx="1"><title>${formatInstant(t)}: planned</title></rect>`)}
${past.map((r) => html`<rect class="mark s-${r.status}" data-status="${r.status}" x="${x(r.slot, now) - 2}" y="${TRACK_Y + 2}" width="4" height="${TRACK_H - 4}" rx="1"><title>${formatInstant(r.slot)}: ${r.status}${r.kind === "manual" ? " (manual)" : ""}</title></rect>`)}
<line class="now" x1="${WIDTH / 2}" x2="${WIDTH / 2}" y1="2" y2="${TRACK_Y + TRACK_H + 4}"></line>
${ticks.map((h) => html`<text class="axis" x="${x(now + h * 3_600_000, now)}" y="${HEIGHT - 3}" text-anchor="${h === -24 ? "start" : h === 24 ? "end" : "middle"}">${h === 0 ? "now" : `${h > 0 ? "+" : "−"}${Math.abs(h)}h`}</text>`)}
</svg>`;
}

/** The colour legend shared by every timeline on the page. */
export function legend(): HtmlEscapedString | Promise<HtmlEscapedString> {
  return html`<ul class="legend" aria-label="Timeline legend">${STATUS_ORDER.map((s) => html`<li><span class="swatch s-${s}"></span>${s}</li>`)}</ul>`;
}
