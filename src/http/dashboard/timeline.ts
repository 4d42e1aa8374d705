// deno-fmt-ignore-file -- deno fmt reformats the insides of html`` templates, which changes the page it renders.
/**
 * The per-job timeline: an inline SVG of the past 24 h of recorded slots (coloured by
 * outcome) and the next 24 h of planned slots, with "now" in the middle. No script.
 * Planned slots are drawn as spans (see `_planned.ts`): a dense schedule reads as one
 * band that reaches +24 h, never a cut-off run of marks. Past outcomes are one compact
 * path per outcome on the overview, one mark per slot with a tooltip on a job's page.
 */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { RunRecord, RunStatus } from "../../store/types.ts";
import { instantFormatter } from "./_format.ts";
import type { Spans } from "./_planned.ts";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const DAY = 86_400_000;
const WIDTH = 960;
const HEIGHT = 46;
const TRACK_Y = 6;
const TRACK_H = 22;
/** Marks drawn at most in detail mode; past that the compact paths are used. */
const MAX_MARKS = 720;

/** Outcome colours, in legend order; the stylesheet defines `.s-<status>`. */
export const STATUS_ORDER: readonly (RunStatus | "planned")[] = ["ok", "error", "timeout", "abandoned", "cancelled", "skipped", "missed", "buffered", "running", "planned"];

/** Later paths paint over earlier ones where marks touch: failures stay visible. */
const PAINT_ORDER: readonly RunStatus[] = ["ok", "skipped", "missed", "buffered", "running", "cancelling", "cancelled", "abandoned", "timeout", "error"];

/** What the timeline draws. */
export interface TimelineInput {
  now: number;
  zone: string;
  /** Recorded slots; those outside the past 24 h are ignored. */
  past: readonly RunRecord[];
  /** Planned slots in the next 24 h: how many, and the spans they occupy. */
  planned: { count: number; spans: Spans };
  /** One mark per past slot with a tooltip (a job's page); default false (compact paths). */
  detail?: boolean;
  /** The job has jitter: a slot that ran is drawn at its recorded start; default false. */
  jittered?: boolean;
}

// Where a past row is drawn: a jittered job's runs at their actual start.
function drawnAt(r: RunRecord, jittered: boolean | undefined): number {
  return jittered === true && r.kind === "scheduled" && r.status !== "missed" && r.status !== "skipped" ? r.startedAt : r.slot;
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

function plannedBand(input: TimelineInput): Html | "" {
  const { now, planned } = input;
  const spans = planned.spans.filter(([, end]) => end > now).map(([s, e]) => [Math.max(s, now), Math.min(e, now + DAY)] as const);
  if (planned.count === 0 || spans.length === 0) return "";
  const d = spans.map(([s, e]) => {
    const left = x(s, now);
    const w = Math.max(2, Math.round((x(e, now) - left) * 10) / 10);
    return `M${left} ${TRACK_Y + 6}h${w}v${TRACK_H - 12}h${-w}z`;
  }).join("");
  const end = spans.at(-1)![1];
  return html`<path class="band s-planned" data-planned="${planned.count}" data-until="${end}" d="${d}"><title>${planned.count} planned in the next 24 h</title></path>`;
}

function compact(now: number, past: readonly RunRecord[], jittered: boolean | undefined): Html {
  const byStatus = new Map<RunStatus, number[]>(PAINT_ORDER.map((s) => [s, []]));
  for (const r of past) byStatus.get(r.status)?.push(x(drawnAt(r, jittered), now));
  return html`${[...byStatus].filter(([, xs]) => xs.length > 0).map(([status, xs]) => html`<path class="mark s-${status}" data-status="${status}" data-count="${xs.length}" d="${strokes(xs, TRACK_Y + 2, TRACK_H - 4)}"><title>${xs.length} ${status} in the past 24 h</title></path>`)}`;
}

function detailed(input: TimelineInput, past: readonly RunRecord[]): Html {
  const { now } = input;
  const format = instantFormatter(input.zone);
  return html`${past.slice(0, MAX_MARKS).map((r) => html`<rect class="mark s-${r.status}" data-status="${r.status}" x="${x(drawnAt(r, input.jittered), now) - 2}" y="${TRACK_Y + 2}" width="4" height="${TRACK_H - 4}"><title>${format(r.slot)}: ${r.status}${r.kind === "manual" ? " (manual)" : ""}</title></rect>`)}`;
}

/** Renders the timeline SVG. */
export function timeline(input: TimelineInput): Html {
  const { now } = input;
  const past = input.past.filter((r) => r.slot >= now - DAY && r.slot <= now);
  const counts = new Map<string, number>();
  for (const r of past) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const summary = [...counts].map(([s, n]) => `${n} ${s}`).join(", ");
  const label = `Past 24 hours: ${past.length} slots${summary ? ` (${summary})` : ""}. Next 24 hours: ${input.planned.count} planned slots.`;
  const ticks = [-24, -18, -12, -6, 0, 6, 12, 18, 24];
  const at = (h: number): number => x(now + h * 3_600_000, now);
  const anchor = (h: number): string => (h === -24 ? "start" : h === 24 ? "end" : "middle");
  const text = (h: number): string => (h === 0 ? "now" : `${h > 0 ? "+" : "−"}${Math.abs(h)}h`);
  return html`<svg class="timeline" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${label}">
<rect class="track" x="0" y="${TRACK_Y}" width="${WIDTH}" height="${TRACK_H}" rx="4"></rect>
<rect class="track-past" x="0" y="${TRACK_Y}" width="${WIDTH / 2}" height="${TRACK_H}" rx="4"></rect>
<path class="grid" d="${ticks.map((h) => `M${at(h)} ${TRACK_Y}v${TRACK_H}`).join("")}"></path>
${plannedBand(input)}
${input.detail && past.length <= MAX_MARKS ? detailed(input, past) : compact(now, past, input.jittered)}
<line class="now" x1="${WIDTH / 2}" x2="${WIDTH / 2}" y1="2" y2="${TRACK_Y + TRACK_H + 4}"></line>
${ticks.map((h) => html`<text class="axis${h % 12 === 0 ? "" : " minor"}" x="${at(h)}" y="${HEIGHT - 3}" text-anchor="${anchor(h)}">${text(h)}</text>`)}
</svg>`;
}

/** The colour legend shared by every timeline on the page. */
export function legend(): Html {
  return html`<ul class="legend" aria-label="Timeline legend">${STATUS_ORDER.map((s) => html`<li><span class="swatch s-${s}"></span>${s}</li>`)}</ul>`;
}
