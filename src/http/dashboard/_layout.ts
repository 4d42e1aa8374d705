// deno-fmt-ignore-file -- deno fmt reformats the insides of html`` templates, which changes the page it renders.
/** The page shell (head, inline styles, top bar) and the login page. */
import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { HealthReport } from "../../engine/types.ts";
import { instantFormatter } from "./_format.ts";
import { STYLES } from "./_styles.ts";

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What the top bar shows. */
export interface Chrome {
  title: string;
  base: string;
  home: string;
  now: number;
  health?: HealthReport;
  /** CSRF token for the logout form; logout is shown only with a session. */
  csrf?: string;
  /** Reload `refreshUrl` (the page without its notice) every this many seconds: a meta refresh, no script. */
  refreshSeconds?: number;
  refreshUrl?: string;
}

const utc = instantFormatter("UTC");

/** Wraps `body` in the document with the top bar. */
export function layout(chrome: Chrome, heading: string, body: Html): Html {
  const h = chrome.health;
  const healthPill = h === undefined ? "" : html`<span class="pill ${h.ok ? "good" : "bad"}" data-health="${h.ok ? "ok" : "unhealthy"}">${h.ok ? "healthy" : "unhealthy"}</span>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${heading} · ${chrome.title}</title><style>${raw(STYLES)}</style>
${chrome.refreshSeconds ? html`<meta http-equiv="refresh" content="${chrome.refreshSeconds};url=${chrome.refreshUrl ?? chrome.home}">` : ""}</head>
<body><header class="top"><h1><a href="${chrome.home}">${chrome.title}</a></h1>
<div class="meta">${healthPill}${h ? html`<span>node <code title="${h.node}" data-node>${shortNode(h.node)}</code></span><span>${h.jobs} ${h.jobs === 1 ? "job" : "jobs"}</span>` : ""}<span data-now>${utc(chrome.now)}</span></div>
<div class="spacer"></div>
${chrome.csrf !== undefined ? html`<form method="post" action="${chrome.base}/ui/logout"><input type="hidden" name="csrf" value="${chrome.csrf}"><button type="submit">Sign out</button></form>` : ""}
</header><main>${body}</main></body></html>`;
}

/** A node id for the top bar: a random UUID (the default) cut to its first 8 characters; the full id is the tooltip. */
function shortNode(node: string): string {
  return node.length > 16 ? `${node.slice(0, 8)}…` : node;
}

/** The sign-in form shown to an unauthenticated browser. */
export function loginPage(title: string, base: string, error?: string): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in · ${title}</title><style>${raw(STYLES)}</style></head>
<body><form class="login" method="post" action="${base}/ui/login">
<h1>${title}</h1><p>Enter the scheduler's API token to open the dashboard.</p>
<p class="hint" data-token-hint>It is the router's <code>token</code>: usually the <code>EDGECRON_TOKEN</code> environment variable
(a Worker's secret), or the token the server printed in its terminal at start-up.</p>
${error ? html`<div class="notice bad" role="alert">${error}</div>` : ""}
<label for="token">Token</label><input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button class="primary" type="submit">Sign in</button></form></body></html>`;
}

/** A small page for refused form posts (and, with its own heading and link, for a store that is down). */
export function refusedPage(title: string, home: string, message: string, heading = "Refused", link = "Back to the dashboard"): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${heading} · ${title}</title><style>${raw(STYLES)}</style></head>
<body><main><div class="notice bad" role="alert">${message}</div><p><a href="${home}">${link}</a></p></main></body></html>`;
}

/** The body of the job page for a name that matches no job. */
export function notFound(home: string, name: string): Html {
  return html`<div class="notice bad" role="alert">No job named <b>${name}</b>.</div><p><a href="${home}">Back to all jobs</a></p>`;
}

/** The body of a page whose address has a bad query parameter: what was wrong, and a way back. */
export function badQuery(back: string, backText: string, field: string, message: string): Html {
  return html`<div class="notice bad" role="alert" data-bad-query="${field}">Bad <code>${field}</code> in the address: ${message}.</div><p><a href="${back}">${backText}</a></p>`;
}
