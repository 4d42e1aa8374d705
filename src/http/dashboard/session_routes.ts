/** Signing in and out of the dashboard: `POST /ui/login` and `POST /ui/logout`. */
import type { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { sameOrigin, SESSION_COOKIE } from "../_auth.ts";
import { readForm } from "../_body.ts";
import { basePath, homePath, type RouterContext } from "../_context.ts";
import { isHttps } from "../_headers.ts";
import { clientKey } from "../_throttle.ts";
import { loginPage, refusedPage } from "./_layout.ts";
import { htmlHeaders, staleForm } from "./_shared.ts";

/**
 * Registers `POST /ui/login`: the token, posted once from the same origin, is exchanged for
 * a session cookie (HttpOnly, SameSite=Strict, Path = the mount); wrong tokens are throttled per client.
 */
export function registerLogin(app: Hono, rc: RouterContext): void {
  const { auth } = rc;
  app.post("/ui/login", async (c) => {
    htmlHeaders(c);
    const base = basePath(c, "/ui/login");
    if (!sameOrigin(c.req.raw)) {
      return c.html(await refusedPage(rc.title, homePath(base), "Refused: cross-site sign-in."), 403);
    }
    const form = await readForm(c.req.raw, rc.maxBodyBytes);
    const client = clientKey(c.req.raw, rc.trustProxy);
    const wait = rc.throttle.wait(client, rc.now());
    if (wait > 0) {
      c.header("Retry-After", String(Math.ceil(wait / 1000)));
      return c.html(await loginPage(rc.title, base, "Too many wrong tokens; wait and try again."), 429);
    }
    // Counted as a failure before the (async) check, so concurrent guesses cannot all slip in;
    // a good token takes it back.
    const countedAt = rc.now();
    rc.throttle.failed(client, countedAt);
    if (!await auth.login(form.get("token") ?? "")) return c.html(await loginPage(rc.title, base, "Wrong token."), 401);
    rc.throttle.succeeded(client, countedAt);
    if (auth.required) {
      setCookie(c, SESSION_COOKIE, await auth.issueSession(rc.now()), {
        httpOnly: true,
        sameSite: "Strict",
        path: homePath(base),
        secure: rc.secureCookie ?? isHttps(c.req.raw, rc.trustProxy),
        maxAge: Math.floor(rc.sessionTtlMs / 1000),
      });
    }
    return c.redirect(homePath(base), 303);
  });
}

/** Registers `POST /ui/logout`: ends every session (with the session's CSRF token) and clears the cookie. */
export function registerLogout(app: Hono, rc: RouterContext): void {
  const { auth } = rc;
  app.post("/ui/logout", async (c) => {
    const base = basePath(c, "/ui/logout");
    if (!sameOrigin(c.req.raw)) {
      return c.html(await refusedPage(rc.title, homePath(base), "Refused: cross-site request."), 403);
    }
    // Sessions are not tracked one by one: signing out ends every session, on every node,
    // so it takes the same CSRF token as the other forms (a same-origin link or a script
    // injected elsewhere on the origin must not sign everyone out).
    const session = getCookie(c, SESSION_COOKIE);
    const form = await readForm(c.req.raw, rc.maxBodyBytes);
    if (await auth.session(session, rc.now())) {
      if (!await auth.checkCsrf(session, form.get("csrf"))) {
        htmlHeaders(c);
        return await staleForm(rc, c, base);
      }
      await auth.revokeAll(rc.now());
    }
    deleteCookie(c, SESSION_COOKIE, { path: homePath(base) });
    return c.redirect(homePath(base), 303);
  });
}
