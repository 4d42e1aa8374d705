// deno-fmt-ignore-file -- deno fmt reformats the insides of html`` templates, which changes the page it renders.
/** The two dashboard pages: every job at a glance, and one job with its run history. */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { RunRecord } from "../../store/types.ts";
import { formatElapsed, relative } from "./_format.ts";
import { type CardContext, jobCard, jobHref, type JobView, statusBadge, timeTag } from "./_job.ts";
import { legend } from "./timeline.ts";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The result of a dashboard action, carried in the redirect's query. */
export interface Notice {
  action: "run" | "pause" | "resume" | "backfill";
  job: string;
  /** An outcome (`ok`, `error`...) or a refusal (`already-running`...). */
  result: string;
  /** The run's slot (a manual run that ran), to look its error up. */
  slot?: number;
  /** The recorded error of that run: read from the store, never from the URL. */
  error?: string;
  /** Why a form was refused, as the API says it: from the form's own answer, never from the URL. */
  message?: string;
}

const GOOD = new Set(["ok", "paused", "resumed"]);

function noticeBox(notice: Notice | undefined): Html | "" {
  if (notice === undefined) return "";
  const { action, job, result } = notice;
  const why = notice.message ?? result.replace(/-/g, " ");
  let text: Html;
  if (action === "backfill") {
    const planned = /^planned-(\d+)$/.exec(result);
    text = planned ? html`Backfill of <b>${job}</b> started: ${planned[1]} slots; they show in the history as they run` : html`Could not backfill <b>${job}</b>: ${why}`;
  } else if (action === "run") {
    const error = notice.error === undefined ? "" : html` <span class="err" data-notice-error>${notice.error}</span>`;
    text = /^[a-z]+$/.test(result) ? html`Ran <b>${job}</b>: ${statusBadge(result)}${error}` : html`Did not run <b>${job}</b>: ${why}`;
  } else {
    text = result === "paused" || result === "resumed" ? html`<b>${job}</b> ${result}` : html`Could not ${action} <b>${job}</b>: ${why}`;
  }
  const good = GOOD.has(result) || result.startsWith("planned-");
  return html`<div class="notice ${good ? "good" : "bad"}" role="status" data-notice="${result}">${text}</div>`;
}

/** A page of jobs with their timelines; `nextAfter` links the next page, `first` the first. */
export function overviewPage(cards: readonly Html[], cc: CardContext & { nextAfter: string | null; paged: boolean }, notice?: Notice): Html {
  const home = cc.base === "" ? "/" : cc.base;
  return html`${noticeBox(notice)}
<div class="toolbar"><h2>Jobs</h2>${legend()}</div>
${cards.length === 0 ? html`<div class="empty">No jobs yet. Register one with <code>scheduler.job()</code> or <code>POST /jobs</code>.</div>` : cards}
${cc.paged || cc.nextAfter !== null ? html`<nav class="pager">${cc.paged ? html`<a href="${home}" data-page="first">← First jobs</a>` : ""}${cc.nextAfter === null ? "" : html`<a href="${home}?after=${encodeURIComponent(cc.nextAfter)}" data-page="next">More jobs →</a>`}</nav>` : ""}`;
}

/** Cards rendered between two host turns: a page of 100 timelines took 25–50 ms in one piece at 20 000 jobs. */
const CARDS_PER_TURN = 20;

/** The overview's job cards, `CARDS_PER_TURN` at a time with `pause()` between (the event loop turns). */
export async function overviewCards(views: readonly JobView[], cc: CardContext, pause: () => Promise<void>): Promise<Html[]> {
  const cards: Html[] = [];
  for (const v of views) {
    if (cards.length > 0 && cards.length % CARDS_PER_TURN === 0) await pause();
    cards.push(jobCard(v, cc));
  }
  return cards;
}

/** Outcomes written without running anything: they took no time worth showing. */
const NOT_RUN = new Set(["missed", "skipped"]);

function runRow(r: RunRecord, formatInstant: (ms: number) => string, now: number): Html {
  const took = NOT_RUN.has(r.status)
    ? "—"
    : r.finishedAt === null
    ? (r.status === "running" ? `running ${relative(r.startedAt, now).replace(" ago", "")}` : "—")
    : formatElapsed(r.finishedAt - r.startedAt);
  return html`<tr data-slot="${r.slot}" data-status="${r.status}"><td data-label="Slot">${timeTag(r.slot, formatInstant)}</td><td data-label="Outcome">${statusBadge(r.status)}</td><td data-label="Kind">${r.kind}</td><td data-label="Attempt">${r.attempt}</td><td data-label="Node"><code>${r.node}</code></td><td data-label="Took" class="took">${took}</td><td data-label="Error" class="err">${r.error ?? ""}</td></tr>`;
}

/** One job: its card, the next slots, its target when data-defined, its run history. */
export function jobPage(view: JobView, history: readonly RunRecord[], cc: CardContext & { nextBefore: number | null; paged: boolean }, notice?: Notice): Html {
  const { info } = view;
  const format = cc.formatterFor(info.timezone);
  const target = info.def?.spec.target as { url?: unknown; method?: unknown; headers?: unknown } | undefined;
  let where = "";
  if (target && typeof target.url === "string" && URL.canParse(target.url)) {
    const u = new URL(target.url);
    // Only the origin and path: query strings and credentials may hold secrets.
    where = `${typeof target.method === "string" ? target.method : "POST"} ${u.origin}${u.pathname}`;
  }
  const headerNames = target && typeof target.headers === "object" && target.headers !== null ? Object.keys(target.headers) : [];
  return html`${noticeBox(notice)}
<p><a href="${cc.base === "" ? "/" : cc.base}">← All jobs</a></p>
${jobCard(view, cc)}
<div class="toolbar"><span></span>${legend()}</div>
${where ? html`<h2 class="section">Webhook target</h2><p><code>${where}</code>${headerNames.length ? html` <span class="sub">headers: ${headerNames.join(", ")}</span>` : ""}</p>` : ""}
<h2 class="section">Backfill</h2>
<form method="post" action="${jobHref(cc.base, info.name)}/backfill" class="backfill"><input type="hidden" name="csrf" value="${cc.csrf}"><label>From <input name="from" required placeholder="2026-01-01T00:00:00Z" size="22"></label> <label>to (not included) <input name="to" required placeholder="2026-01-02T00:00:00Z" size="22"></label> <label><input type="checkbox" name="rerun" value="1"> re-run slots that already ran</label> <button type="submit">Backfill</button></form>
<h2 class="section">Run history</h2>
${history.length === 0 ? html`<div class="empty">No runs recorded yet.</div>` : html`<table class="runs"><thead><tr><th>Slot (${info.timezone})</th><th>Outcome</th><th>Kind</th><th>Attempt</th><th>Node</th><th>Took</th><th>Error</th></tr></thead>
<tbody>${history.map((r) => runRow(r, format, cc.now))}</tbody></table>`}
${cc.nextBefore === null && !cc.paged ? "" : html`<nav class="pager">${cc.paged ? html`<a href="${jobHref(cc.base, info.name)}" data-page="first">← Newest runs</a>` : ""}${cc.nextBefore === null ? "" : html`<a href="${jobHref(cc.base, info.name)}?before=${cc.nextBefore}" data-page="next">Older runs →</a>`}</nav>`}`;
}
