// deno-fmt-ignore-file -- deno fmt reformats the insides of html`` templates, which changes the page it renders.
/** One job's card: identity, schedule, next slots, last outcome, counters, timeline, actions. */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { JobInfo } from "../../engine/types.ts";
import type { RunRecord } from "../../store/types.ts";
import { instantFormatter, relative, scheduleInWords } from "./_format.ts";
import type { Spans } from "./_planned.ts";
import { timeline } from "./timeline.ts";
import { inertBidi } from "../_text.ts";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What a card needs. */
export interface JobView {
  info: JobInfo;
  /** Recent runs, newest first (the card draws the past 24 h). */
  past: RunRecord[];
  /** Planned slots over the next 24 h (none when paused or disabled). */
  planned: { count: number; spans: Spans };
}

/** Where forms post and links point. */
export interface CardContext {
  base: string;
  now: number;
  csrf: string;
  /** Which page the actions return to. */
  back: "home" | "job";
  /** Next slots listed (the timeline draws all within 24 h). */
  listNext: number;
  /** Formatter for a zone, shared by the page's cards (see `formatterCache`). */
  formatterFor: (zone: string) => (ms: number) => string;
}

/** `/ui/jobs/<name>` under `base`. */
export function jobHref(base: string, name: string): string {
  return `${base}/ui/jobs/${encodeURIComponent(name)}`;
}

const utc = instantFormatter("UTC");

/** An instant in the job's zone, with its UTC form as the tooltip and ISO as `datetime`. */
export function timeTag(ms: number, format: (ms: number) => string): Html {
  return html`<time datetime="${new Date(ms).toISOString()}" title="${utc(ms)}">${format(ms)}</time>`;
}

function action(cc: CardContext, name: string, verb: "run" | "pause" | "resume", label: string, primary = false): Html {
  // On a job's page, a pause can say why.
  const note = verb === "pause" && cc.back === "job" ? html`<input name="note" maxlength="500" placeholder="note (optional)" aria-label="Pause note">` : "";
  return html`<form method="post" action="${jobHref(cc.base, name)}/${verb}"><input type="hidden" name="csrf" value="${cc.csrf}"><input type="hidden" name="back" value="${cc.back}">${note}<button type="submit" name="action" value="${verb}"${primary ? html` class="primary"` : ""}>${label}</button></form>`;
}

/** Why, when and by whom a paused job was paused. */
function pauseNote(info: JobInfo, cc: CardContext, format: (ms: number) => string): Html | "" {
  if (!info.paused || info.pause === undefined) return "";
  const { note, at, by } = info.pause;
  return html`<p class="sub pause-note" data-pause-by="${by}">Paused ${timeTag(at, format)} (${relative(at, cc.now)}) by <b>${by}</b>${note === null ? "" : html`: ${inertBidi(note)}`}</p>`;
}

/** The job's state as a pill: broken (a stored row is unreadable; the reason as its title), running, paused, disabled, completed (`maxRuns`), ended (`endAt`) or active. */
function state(info: JobInfo): Html {
  if (info.broken !== undefined) return html`<span class="pill bad" data-state="broken" title="${info.broken}">broken</span>`;
  if (info.runningSince !== undefined) return html`<span class="pill warn" data-state="running">running</span>`;
  if (info.paused) return html`<span class="pill idle" data-state="paused">paused</span>`;
  if (!info.enabled) return html`<span class="pill idle" data-state="disabled">disabled</span>`;
  if (info.state === "completed") return html`<span class="pill idle" data-state="completed">completed</span>`;
  if (info.state === "ended") return html`<span class="pill idle" data-state="ended">ended</span>`;
  return html`<span class="pill good" data-state="active">active</span>`;
}

/** A status badge. */
export function statusBadge(status: string): Html {
  return html`<span class="status s-${status}">${status}</span>`;
}

function nextList(info: JobInfo, cc: CardContext, format: (ms: number) => string): Html {
  if (info.paused || !info.enabled) return html`<p class="sub" data-next="none">none: ${info.paused ? "paused" : "disabled"}</p>`;
  const next = info.next.slice(0, cc.listNext);
  if (next.length === 0) return html`<p class="sub" data-next="none">none</p>`;
  return html`<ol class="next">${next.map((t) => html`<li data-slot="${t}">${timeTag(t, format)} <span class="sub">${relative(t, cc.now)}</span></li>`)}</ol>`;
}

function lastOutcome(last: RunRecord | undefined, cc: CardContext, format: (ms: number) => string): Html {
  if (last === undefined) return html`<span class="sub">never ran</span>`;
  // The overview shortens a long error (full text in the tooltip); a job's page shows it all.
  const error = last.error === null ? "" : cc.back === "job" || last.error.length <= 90 ? last.error : `${last.error.slice(0, 87)}...`;
  return html`${statusBadge(last.status)} <span class="sub">${timeTag(last.slot, format)} · ${relative(last.finishedAt ?? last.slot, cc.now)}</span>${error ? html`<div class="sub err" title="${last.error}">${error}</div>` : ""}`;
}

/** `1 run`, `2 runs`: one counter, its noun agreeing with the number. */
function counter(n: number, one: string, many: string): Html {
  return html`<span><b>${n}</b> ${n === 1 ? one : many}</span>`;
}

/** Renders one job card. */
export function jobCard(view: JobView, cc: CardContext): Html {
  const { info } = view;
  const words = scheduleInWords(info.spec, info.timezone);
  const c = info.counters;
  const format = cc.formatterFor(info.timezone);
  return html`<section class="job" data-job="${info.name}">
<div class="job-head"><div class="job-title">
<h3>${cc.back === "home" ? html`<a href="${jobHref(cc.base, info.name)}">${info.name}</a>` : info.name} <span class="tag">${info.source}</span> ${state(info)}</h3>
${info.description ? html`<p class="desc">${inertBidi(info.description)}</p>` : ""}
${pauseNote(info, cc, cc.formatterFor(info.timezone))}
</div><div class="actions">${action(cc, info.name, "run", "Run now", true)}${info.paused ? action(cc, info.name, "resume", "Resume") : action(cc, info.name, "pause", "Pause")}</div></div>
<dl class="facts">
<div><dt>Schedule</dt><dd><code>${"cron" in info.spec ? info.spec.cron : info.schedule}</code>${words ? html`<div class="sub" data-words>${words}</div>` : ""}</dd></div>
<div><dt>Timezone</dt><dd>${info.timezone}</dd></div>
<div><dt>Next</dt><dd>${nextList(info, cc, format)}</dd></div>
<div><dt>Last outcome</dt><dd class="last-outcome">${lastOutcome(info.lastOutcome, cc, format)}</dd></div>
<div><dt>Counters (this node)</dt><dd class="counters">${counter(c.runs, "run", "runs")}${counter(c.ok, "ok", "ok")}${counter(c.errors, "error", "errors")}${counter(c.timeouts, "timeout", "timeouts")}${counter(c.skipped, "skipped", "skipped")}${counter(c.missed, "missed", "missed")}${counter(c.lost, "lost", "lost")}${counter(c.abandoned, "abandoned", "abandoned")}</dd></div>
</dl>
<div class="timeline-wrap">${timeline({ now: cc.now, zone: info.timezone, past: view.past, planned: view.planned, detail: cc.back === "job", jittered: info.jitter !== undefined })}</div>
</section>`;
}
