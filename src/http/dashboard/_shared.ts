/** What every dashboard route shares: its response headers, the sign-in guard, the form guard, the page chrome. */
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { sameOrigin, SESSION_COOKIE } from "../_auth.ts";
import { basePath, homePath, requireAuth, type RouterContext } from "../_context.ts";
import { type Chrome, loginPage, refusedPage } from "./_layout.ts";

/** The headers of every dashboard answer: a strict CSP, no sniffing, no caching. */
export function htmlHeaders(c: Context): void {
  c.header(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header("X-Content-Type-Options", "nosniff");
  // Not "no-referrer": with it browsers send `Origin: null` on form posts, which the CSRF check refuses.
  c.header("Referrer-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
}

/** Authorises a page or form by bearer token or session cookie; otherwise answers with the sign-in page (401). */
export function pageAuth(rc: RouterContext, route: string): MiddlewareHandler {
  return requireAuth(rc, {
    cookie: true,
    onDenied: async (c) => {
      htmlHeaders(c);
      return c.html(await loginPage(rc.title, basePath(c, route)), 401);
    },
  });
}

/**
 * Around every page and form: a request whose store call failed (the router's `onError`
 * logged it and answered the API's JSON 503) gets an HTML page instead, with a link that
 * asks again (a page) or goes back to the dashboard (a form, whose post is not repeated).
 */
export function storeDown(rc: RouterContext): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (c.error === undefined || c.res.status !== 503) return;
    const url = new URL(c.req.url);
    // A form is not posted again: its link goes home, the mount prefix of its `/ui/…` route.
    const route = c.req.routePath;
    const again = c.req.method === "GET" ? url.pathname + url.search : route.slice(0, route.lastIndexOf("/ui/")) || "/";
    htmlHeaders(c);
    c.res = await c.html(
      await refusedPage(
        rc.title,
        again,
        "The store cannot be reached right now. Try again in a moment.",
        "Unavailable",
        "Try again",
      ),
      503,
    );
  };
}

/** A job form is the dashboard's own: same origin, and a bearer token or the session's CSRF token. */
export async function formAllowed(rc: RouterContext, c: Context, form: URLSearchParams): Promise<boolean> {
  const viaBearer = await rc.auth.bearer(c.req.raw);
  return sameOrigin(c.req.raw) &&
    (viaBearer || await rc.auth.checkCsrf(getCookie(c, SESSION_COOKIE), form.get("csrf")));
}

/** The answer to a form that failed its CSRF check (logout, run, pause, resume, backfill). */
export async function staleForm(rc: RouterContext, c: Context, base: string): Promise<Response> {
  return c.html(
    await refusedPage(
      rc.title,
      homePath(base),
      "Refused: the form is stale or came from another site. Reload the page and try again.",
    ),
    403,
  );
}

/** The frame of every page (title, links, health) and the session's CSRF token for its forms. */
export async function chromeOf(
  rc: RouterContext,
  c: Context,
  base: string,
  now: number,
): Promise<{ csrf: string; chrome: Chrome }> {
  const session = getCookie(c, SESSION_COOKIE);
  const csrf = await rc.auth.csrf(session);
  return {
    csrf,
    chrome: {
      title: rc.title,
      base,
      home: homePath(base),
      now,
      health: await rc.scheduler.health(),
      ...(rc.auth.required && session ? { csrf } : {}),
    },
  };
}
